export * from "./charts";
export * from "./linkerd";
