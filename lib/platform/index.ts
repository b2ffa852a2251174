export * from "./platform";
export * from "./app";
export * from "./ingress";
export * from "./team";
