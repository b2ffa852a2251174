export * from "./objects";
export * from "./helm";
export * from "./objectSet";
export * from "./invariants";
export * from "./crossings";
export * from "./relabel";
export * from "./scrapes";
export * from "./secretReaders";
