export * from "./cdk8sBridge";
export * from "./helmRelease";
export * from "./refs";
export * from "./scheduling";
