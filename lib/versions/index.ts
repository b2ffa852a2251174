export * from "./charts";
export * from "./gke";
export * from "./linkerd";
export * from "./istio";
export * from "./valuesKeys";
export * from "./ingress";
export * from "./kubernetes";
export * from "./certificates";
