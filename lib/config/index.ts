export * from "./defaults";
export * from "./errors";
export * from "./load";
export * from "./schema";
export * from "./sizing";
export * from "./warnings";
export { configPath, parseInput } from "./validate";
export { checkRules, configRules, parseCidr } from "./rules";
