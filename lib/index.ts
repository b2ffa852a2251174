/**
 * gke-mesh-platform: typed Pulumi and cdk8s constructs for one opinionated GKE platform.
 * Layers (docs/architecture.md): versions → config → crds → manifests → gcp → addons → platform.
 */
export * from "./config";
export * from "./gcp";
export * from "./platform";
export * as versions from "./versions";
