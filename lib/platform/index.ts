export * from "./platform";
export * from "./overrides";
export * from "./ingress";
