export * from "./cdk8sBridge";
export * from "./chartSource";
export * from "./helmRelease";
export * from "./refs";
export * from "./scheduling";
