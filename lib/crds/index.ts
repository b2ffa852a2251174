export * from "./families";
export * from "./crdCharts";
export * from "./ownership";
