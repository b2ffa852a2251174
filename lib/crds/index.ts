export { crdFamilies, type CrdFamily } from "../versions";
export * from "./crdCharts";
export * from "./ownership";
