export * from "./crdCharts";
export * from "./ownership";
