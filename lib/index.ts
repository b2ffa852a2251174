/**
 * gke-mesh-platform: typed Pulumi and cdk8s constructs for one opinionated GKE platform.
 *
 * What a `pulumi up` program imports: what it composes (the `Platform`, or the building blocks on their
 * own), the plan and config entry points, and the errors. The checks are `gke-mesh-platform/check` and
 * the offline render `gke-mesh-platform/render`; this entry loads neither (test/entryPoints.test.ts).
 * Layers and internals (docs/architecture.md) are not exported; a test counts what is.
 */

// The whole platform from one environment config, and its entry points.
export { Platform, type PlatformArgs } from "./platform";
export {
  loadEnvironmentConfig,
  loadPlan,
  parseEnvironment,
  planFor,
  resolvePlan,
  type AppPlan,
  type NamespacePlan,
  type Plan,
  type PlannedRelease,
  type ResolvePlanOptions,
} from "./plan";
export {
  ConfigError,
  environmentFromConfig,
  type App as AppConfig,
  type ConfigProblem,
  type EnvironmentInput,
  type PlatformConfig,
  type Tier,
} from "./config";

// Building blocks, each usable on its own with a provider of your own.
export { App, Ingress, type AppArgs, type IngressArgs } from "./platform";
export {
  ExistingCluster,
  GkeCluster,
  type ClusterAccess,
  type ExistingClusterArgs,
  type GkeClusterArgs,
} from "./gcp";
export {
  CertManager,
  GatewayApiCrds,
  IngressNginx,
  Prometheus,
  Traefik,
  type CertManagerArgs,
  type IngressControllerArgs,
  type PrometheusArgs,
} from "./addons";
export {
  Istio,
  Linkerd,
  installMesh,
  type IstioArgs,
  type LinkerdArgs,
  type MeshControlPlane,
} from "./meshes/components";
export { meshFor, meshOf, type Mesh, type MeshKind, type MeshSettings } from "./meshes";
export { standaloneCharts, type CertManagerRef, type ChartContext, type MonitoringRef } from "./deploy";
export { crdOwnership, type CrdOwners } from "./crds";
