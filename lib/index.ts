/**
 * gke-mesh-platform: typed Pulumi and cdk8s constructs for one opinionated GKE platform.
 * Layers (docs/architecture.md): versions → config → crds → manifests → gcp → addons → platform.
 */
export * from "./addons";
export * from "./config";
export * from "./crds";
export * from "./gcp";
export * from "./manifests";
export * from "./platform";
export * as versions from "./versions";
export * from "./safety";
