export * from "./charts";
