export * from "./invariants";
