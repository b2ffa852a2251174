export * from "./ownership";
