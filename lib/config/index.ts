export * from "./defaults";
export * from "./errors";
export * from "./load";
export * from "./schema";
export * from "./warnings";
export { configPath, parseEnvironment } from "./validate";
export { parseCidr } from "./rules";
export { restRouteSuffix } from "./meshTrafficRules";
