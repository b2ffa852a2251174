export * from "./cluster";
export * from "./existingCluster";
export * from "./kubernetesProvider";
export * from "./network";
export * from "./nodeServiceAccount";
export * from "./projectServices";
export * from "./secretsKey";
export * from "./edge";
