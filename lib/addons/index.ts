export * from "./cdk8sBridge";
export * from "./certManager";
export * from "./gatewayApiCrds";
export * from "./helmRelease";
export * from "./linkerd";
export * from "./prometheus";
export * from "./ingressControllers";
export * from "./istio";
