export * from "./cdk8sBridge";
export * from "./chartSource";
export * from "./crdChart";
export * from "./helmRelease";
export * from "./refs";
export * from "./scheduling";
export * from "./turns";
