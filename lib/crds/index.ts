export { crdFamilies, crdFamilyOf, type CrdFamily } from "../versions";
export * from "./crdCharts";
export * from "./ownership";
