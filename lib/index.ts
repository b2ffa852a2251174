/**
 * gke-mesh-platform: typed Pulumi and cdk8s constructs for one opinionated GKE platform.
 *
 * What a `pulumi up` program imports: what it composes (the `Platform`, or the building blocks on their
 * own), the plan entry points, and the errors. The checks are `gke-mesh-platform/check` and the offline
 * render `gke-mesh-platform/render`; this entry loads neither (test/entryPoints.test.ts). Layers and
 * internals (docs/architecture.md) are not exported; a test counts what is, and another that every type
 * a building block's Args or the `Plan` names is among it.
 */

// The whole platform from one environment config, and the one way from a config to its plan:
// `loadPlan` for a Pulumi stack's config, `resolvePlan` for a config written in code.
export { Platform, type PlatformArgs } from "./platform";
export {
  loadPlan,
  resolvePlan,
  type AppPlan,
  type NamespacePlan,
  type Plan,
  type PlannedMesh,
  type PlannedRelease,
  type ResolvePlanOptions,
  type TeamPlan,
  type TeamServiceAccount,
} from "./plan";
export {
  ConfigError,
  // `AppConfig` is one app of `platform:apps` (a config type); `App` is the component that deploys one.
  type App as AppConfig,
  type ConfigProblem,
  type EnvironmentInput,
  type PlatformConfig,
  // `TeamConfig` is one team of `platform:teams`; `Team` is the component that deploys one.
  type Team as TeamConfig,
  type TeamQuota,
  type Tier,
  type WorkloadSizing,
} from "./config";

// Building blocks, each usable on its own with a provider of your own.
export { App, Ingress, Team, type AppArgs, type IngressArgs, type TeamArgs } from "./platform";
export {
  ExistingCluster,
  GkeCluster,
  type ClusterAccess,
  type ClusterInput,
  type ClusterSettings,
  type Edge,
  type ExistingClusterArgs,
  type GkeClusterArgs,
  type NetworkInput,
  type NetworkSettings,
} from "./gcp";
export {
  CertManager,
  GatewayApiCrds,
  IngressNginx,
  Prometheus,
  Traefik,
  type CertManagerArgs,
  type CertManagerSizing,
  type IngressControllerArgs,
  type PrometheusArgs,
  type PrometheusSizing,
} from "./addons";
export {
  Istio,
  Linkerd,
  type IstioArgs,
  type IstioSizing,
  type LinkerdArgs,
  type LinkerdSizing,
  type MeshControlPlane,
} from "./meshes/components";
export {
  meshNamespaceMetadata,
  type GrafanaDashboard,
  type IstioRevision,
  type MeshKind,
  type MeshNamespaceMetadata,
  type MeshSettings,
  type PodMetadata,
} from "./meshes";
// What a plan's fields are written with: its CRD owners, and its mesh's Pod Security level.
export type { CrdFamily, CrdOwner, CrdOwners } from "./crds";
export type { NamespaceQuota, PodSecurityLevel, TeamRole, TeamRoute } from "./manifests";
// What the building blocks' Args are written with: exposures, mesh routes and access grants.
export { type AccessGrant, type Caller, type Exposure, type MeshRouteSpec } from "./manifests";
// A building block used on its own takes its chart context from `standaloneCharts` (which CRD families its
// charts own), spread with a chart source (`source: { folder }` for pinned charts on disk, or a mirror).
export { standaloneCharts, type CertManagerRef, type ChartContext, type MonitoringRef } from "./deploy";
