export * from "./customResources";
export * from "./linkerdIdentity";
export * from "./linkerdMonitors";
export * from "./meshWorkloads";
export * from "./namespaces";
