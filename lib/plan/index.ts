export * from "./plan";
export { chartContext } from "./overrides";
export { meshTrafficRules, restRouteSuffix } from "./meshTrafficRules";
export * from "./isolation";
export { isPlatformNamespace, namespaceNeed, platformNamespaces, type NamespaceNeed } from "./teams";
