export * from "./invariants";
export * from "./certificates";
