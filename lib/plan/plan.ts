import * as pulumi from "@pulumi/pulumi";
import {
  ConfigError,
  checkRules,
  configRules,
  configWarnings,
  assembleEnvironment,
  configKeyProblems,
  parseInput,
  probePathOf,
  resolveConfig,
  type App,
  type ConfigProblem,
  type EnvironmentInput,
  type PlatformConfig,
  type SizingComponent,
  isRegionalGatewayClass,
  teamOfNamespace,
} from "../config";
import { crdOwnership, needsCertManager, type CrdOwners } from "../crds";
import type { ChartContext, ChartFrom, MonitoringRef } from "../deploy";
import {
  gatewayAccessLabel,
  type AccessGrant,
  type Exposure,
  type MeshRouteSpec,
  type PodSecurityLevel,
} from "../manifests";
import {
  meshFor,
  meshSizedCharts,
  otherMeshKeyProblems,
  type GrafanaDashboard,
  type MeshKind,
  type Mesh,
  type MeshEnforcement,
  type MeshIdentity,
  type MeshInstall,
  type MeshPodContract,
  type PodMetadata,
  type ReliedOnValue,
} from "../meshes";
import { charts, type ChartName } from "../versions";
import { isGuardedIn, meshClosure, sameNamespaceGrants } from "./isolation";
import { meshTrafficRules } from "./meshTrafficRules";
import { accessGrants, clusterSourcesOf, ingressCaller } from "./accessGrants";
import { teamServiceAccount, teamPlansOf, type TeamPlan } from "./teamPlans";
import { teamPlanRules } from "./teams";
import { chartSourceProblems } from "./chartSources";
import { gatewayApiWarnings } from "./gatewayApiVersions";
import { chartContext } from "./overrides";

/** One Helm release the environment installs. */
export interface PlannedRelease {
  readonly chart: ChartName;
  /** Another version than the chart's pin (an Istio canary revision). @default the pin */
  readonly version?: string;
  /** That version's repository and digest, where this package does not pin it. @default the pin's */
  readonly from?: ChartFrom;
  /** Values the platform relies on, which an override may not change (`MeshRelease.reliedOn`). */
  readonly reliedOn?: readonly ReliedOnValue[];
}

/**
 * The environment's mesh, as a program reads it: which mesh, and the metadata its namespaces and pods
 * carry. Everything else that differs by mesh (its releases, policy objects, scrapes, ingress) is the
 * platform's to ask, not part of the plan's contract.
 */
export interface PlannedMesh {
  /** Which mesh: `linkerd`, `istio` or `none`. */
  readonly kind: MeshKind;
  /** For messages: "Linkerd", "Istio", "no mesh". */
  readonly title: string;
  /** Labels and annotations that put an app namespace's pods in the mesh. */
  readonly namespaceEnrolment: PodMetadata;
  /** The Pod Security level a meshed namespace must allow. */
  readonly meshedPodSecurity: PodSecurityLevel;
  /** Pod template metadata that lets a Job or CronJob in a meshed namespace finish (with `mesh.nativeSidecars: false`). */
  readonly jobPodMetadata: PodMetadata;
  /** The in-cluster address of the mesh's own dashboard, when one is installed. */
  readonly dashboardUrl?: string;
}

/** An app or team namespace: the mesh's enrolment, deny by default, the shared Gateway's access label. */
export interface NamespacePlan {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

/** One app, every fact about it derived once. */
export interface AppPlan {
  readonly app: App;
  /** The path of its readiness and startup probes, which load balancers health-check too. */
  readonly probePath: string;
  /** The path of its liveness probe, where it has one. */
  readonly livenessPath?: string;
  /** Spread its replicas across zones and nodes (any app with more than one). */
  readonly spread: boolean;
  /** How it is exposed, in the exposure API's terms; absent when it is reachable in the cluster only. */
  readonly exposure?: Exposure;
  /** A Google load balancer (GKE Gateway or GCE Ingress) sends to its pods directly, outside the mesh. */
  readonly fromGoogleLoadBalancer: boolean;
  /** Where those load balancers' traffic and health checks come from: Google's ranges, and the proxy-only subnet for regional classes. */
  readonly loadBalancerSources: readonly string[];
  /** Calls to it need authorization: it has rules, or its namespace is closed in the mesh (`meshClosure`). */
  readonly guarded: boolean;
  /** Everything that may call it when guarded: its rules, and what must always get through. */
  readonly grants: readonly AccessGrant[];
  /** Its Service's mesh routes, every backend's port resolved. */
  readonly routes: readonly MeshRouteSpec[];
  /** The Google service account its ServiceAccount acts as: its team's, where the team has one. */
  readonly googleServiceAccount?: string;
}

export type { TeamPlan, TeamServiceAccount } from "./teamPlans";
export { accessGrants, clusterSourcesOf } from "./accessGrants";

/**
 * The environment, resolved once: every default applied, every rule checked, and every fact the
 * components need derived here and nowhere else. `Platform` wires components from it.
 */
export interface Plan {
  /** The resolved environment config. */
  readonly config: PlatformConfig;
  /** The environment's mesh, as a program reads it; the platform asks everything else of it (`meshOfPlan`). */
  readonly mesh: PlannedMesh;
  /** One owner per CRD family: who installs, upgrades and never deletes each family the environment needs. */
  readonly crdOwners: CrdOwners;
  /** CRD owners and the user's chart overrides, checked. */
  readonly charts: ChartContext;
  /** Every Helm release the environment installs, by release name. */
  readonly releases: Readonly<Record<string, PlannedRelease>>;
  /** cert-manager is installed (mesh identity, or certificates for in-cluster ingress), with trust-manager or not. */
  readonly certManager?: { readonly trustManager: boolean };
  /** The platform installs kube-prometheus-stack. */
  readonly prometheus: boolean;
  /** Where monitors go; absent without monitoring. */
  readonly monitoring?: Omit<MonitoringRef, "crdOwner">;
  /** Dashboards the platform's Grafana loads for the mesh. */
  readonly grafanaDashboards?: Readonly<Record<string, GrafanaDashboard>>;
  /** The Gateway API bundle file the platform applies itself, when it owns the Gateway API. */
  readonly gatewayApiBundleFile?: string;
  /** App and team namespaces, sorted by name. */
  readonly namespaces: readonly NamespacePlan[];
  /** Every team, in the config's order. */
  readonly teams: readonly TeamPlan[];
  /** Every app of the environment, in the config's order, with what the plan derived for it. */
  readonly apps: readonly AppPlan[];
  /** Ports GKE's control plane must reach on nodes for admission webhooks. */
  readonly webhookPorts: readonly number[];
  /** The pod and Service ranges, when the platform makes the network; a cluster made elsewhere brings its own. */
  readonly clusterNetworks?: readonly string[];
  /**
   * Where in-cluster clients outside the mesh come from: kubelet's probes (from the node's address or
   * its pod range's gateway, by CNI) and Prometheus. The node and pod ranges where the platform makes
   * the network, else the private ranges. Policy grants them, never every address.
   */
  readonly clusterSources: readonly string[];
  /** The shared Gateway uses a regional or internal class, which needs a proxy-only subnet. */
  readonly proxyOnlySubnet: boolean;
  /** Valid but risky choices, said at render and at `pulumi up`. */
  readonly warnings: readonly string[];
}

export interface ResolvePlanOptions {
  /** Config keys holding secrets (`platform:ingress`): problems with their values do not quote them. */
  readonly secretKeys?: readonly string[];
}

/**
 * The one way from an environment written in code to a plan: the environment as a stack file's
 * `platform:*` keys would hold it (`EnvironmentInput`, `gcp` included), resolved with every default and
 * checked by every rule, or refused with one `ConfigError` listing every problem: the schema's, then the
 * cross-field rules' (network overlaps, app and exposure collisions, keys set without effect), the mesh's,
 * CRD ownership's and the chart overrides' (their keys included) together. Nothing is registered before
 * it returns. `new Platform("p", { config })` resolves its config here; `loadPlan` reads a stack's.
 * @param stack the stack (environment) name, which names resources where the config does not
 * @param source where the config came from, for the message (e.g. `stacks/Pulumi.dev.yaml`)
 */
export function resolvePlan(
  raw: unknown,
  stack: string,
  source?: string,
  options: ResolvePlanOptions = {},
): Plan {
  const input = parseInput(raw, source, options.secretKeys);
  return planFor(resolveConfig(input, stack), input, source);
}

/**
 * The plan of an already resolved config (internal: the library's own tests and tools, which change a
 * resolved config in code). With the user's `input`, the rules that refuse keys set without effect run
 * too; without it only the rules on the resolved config. Users resolve through `resolvePlan`.
 */
export function planFor(config: PlatformConfig, input?: EnvironmentInput, source?: string): Plan {
  const mesh = meshFor(config.mesh);
  planned.set(config.mesh, mesh);
  const problems: ConfigProblem[] = [
    ...(input ? [...checkRules(input, config), ...otherMeshKeyProblems(mesh, input)] : configRules(config)),
    ...mesh.configProblems(input, config),
    ...meshDashboardProblems(config, mesh),
    ...meshTrafficRules(config, mesh),
    ...teamPlanRules(config),
  ];
  const ownership = crdOwnership(config, mesh);
  problems.push(...ownership.problems);
  const releases = plannedReleases(config, mesh);
  const overrides = chartContext(config, ownership.owners, releases);
  problems.push(
    ...overrides.problems,
    ...chartSourceProblems(config, releases),
    ...(input ? sizingWithoutEffect(input, config, releases) : []),
  );
  if (problems.length > 0) throw new ConfigError(problems, source);

  const withCertManager = needsCertManager(config, mesh);
  const gatewayApps = config.apps.filter((a) => a.expose?.via.includes("gke-gateway"));
  const gateway = config.ingress.kind === "gke-gateway" || gatewayApps.length > 0;
  return {
    config,
    mesh,
    crdOwners: ownership.owners,
    charts: overrides.context,
    releases,
    certManager: withCertManager ? { trustManager: mesh.needsTrustManager } : undefined,
    prometheus: config.monitoring.backend === "prometheus",
    monitoring: monitoringOf(config),
    grafanaDashboards: config.monitoring.meshDashboards ? mesh.grafanaDashboards : undefined,
    gatewayApiBundleFile:
      ownership.owners.gatewayApi?.kind === "platform" ? config.crds.gatewayApiBundleFile : undefined,
    namespaces: namespacesOf(config, mesh),
    teams: teamPlansOf(config),
    apps: config.apps.map((app) => appPlan(config, mesh, app)),
    webhookPorts: [
      ...new Set([
        ...mesh.webhookPorts,
        ...(config.ingress.kind === "ingress-nginx" ? (charts.ingressNginx.webhookPorts ?? []) : []),
      ]),
    ].sort((a, b) => a - b),
    clusterNetworks:
      config.cluster.mode === "existing" ? undefined : [config.network.podsCidr, config.network.servicesCidr],
    clusterSources: clusterSourcesOf(config),
    proxyOnlySubnet: gateway && isRegionalGatewayClass(config.ingress.gatewayClass),
    warnings: [
      ...configWarnings(config),
      ...mesh.configWarnings(config),
      ...gatewayApiWarnings(config, mesh, ownership.owners),
    ],
  };
}

/** Each resolved mesh section's mesh, made once by `planFor`. */
const planned = new WeakMap<PlatformConfig["mesh"], Mesh>();

/**
 * The plan's mesh with every capability the platform's layers ask of it (internal: a program reads
 * `Plan.mesh`). The one `planFor` made; a plan built another way gets the same answers from its config.
 */
export function meshOfPlan(plan: Pick<Plan, "config">): Mesh {
  return planned.get(plan.config.mesh) ?? meshFor(plan.config.mesh);
}

/** `resolvePlan`, for the config only (internal: the library's tests and tools). */
export function parseEnvironment(raw: unknown, stack: string, source?: string): PlatformConfig {
  return resolvePlan(raw, stack, source).config;
}

/**
 * Reads the current stack's environment from Pulumi config and resolves its plan. Every `platform:*`
 * key is part of the environment (so a misspelled top-level key is caught too), and `gcp:project` and
 * `gcp:region` are the Google provider's own keys. Throws a `ConfigError` before any resource exists.
 *
 * @param values the raw config map; defaults to the running program's (`pulumi.runtime.allConfig()`)
 */
export function loadPlan(values: Record<string, string> = pulumi.runtime.allConfig()): Plan {
  const stack = pulumi.getStack();
  const source = `Pulumi.${stack}.yaml`;
  // Keys the platform would not read are reported with every other problem, in one error.
  const keyProblems = configKeyProblems(values, pulumi.getProject());
  // Which keys hold secrets: the SDK knows, but says so only through its runtime's internals.
  const isSecret = (pulumi.runtime as unknown as { isConfigSecret?: (key: string) => boolean })
    .isConfigSecret;
  const secretKeys = Object.keys(values).filter((k) => isSecret?.(k) === true);
  let plan: Plan;
  try {
    plan = resolvePlan(assembleEnvironment(values), stack, source, { secretKeys });
  } catch (err) {
    if (err instanceof ConfigError && keyProblems.length > 0) {
      throw new ConfigError([...keyProblems, ...err.problems], source);
    }
    throw err;
  }
  if (keyProblems.length > 0) throw new ConfigError(keyProblems, source);
  return plan;
}

/**
 * The charts that run each sized workload other than the meshes' (`Mesh.sizedCharts` names theirs):
 * sizing one that is not installed has no effect.
 */
export const platformSizedBy: { readonly [K in SizingComponent]?: readonly ChartName[] } = {
  certManager: ["certManager"],
  certManagerWebhook: ["certManager"],
  certManagerCainjector: ["certManager"],
  trustManager: ["trustManager"],
  ingressController: ["traefik", "ingressNginx"],
  prometheus: ["kubePrometheusStack"],
  alertmanager: ["kubePrometheusStack"],
  grafana: ["kubePrometheusStack"],
  prometheusOperator: ["kubePrometheusStack"],
  kubeStateMetrics: ["kubePrometheusStack"],
  nodeExporter: ["kubePrometheusStack"],
};

/** `platform:sizing` keys for workloads this environment does not run: an error, never ignored. */
function sizingWithoutEffect(
  input: EnvironmentInput,
  config: PlatformConfig,
  releases: Readonly<Record<string, PlannedRelease>>,
): ConfigProblem[] {
  const installed = new Set(Object.values(releases).map((r) => r.chart));
  const sizedBy = { ...meshSizedCharts(config.mesh), ...platformSizedBy };
  return (Object.keys(sizedBy) as SizingComponent[])
    .filter((key) => input.sizing?.[key] !== undefined)
    .filter(
      (key) =>
        !(sizedBy[key] ?? []).some((c) => installed.has(c)) ||
        // Autopilot admits no node-exporter, so the platform turns it off there.
        (key === "nodeExporter" && config.cluster.mode === "autopilot"),
    )
    .map((key) => ({
      path: `platform:sizing.${key}`,
      problem: `is set, but this environment does not run ${(sizedBy[key] ?? []).map((c) => charts[c].chart).join(" or ")}${key === "nodeExporter" ? " (not on Autopilot)" : ""}, so it would have no effect`,
      fix: `remove platform:sizing.${key}`,
    }));
}

/** Every Helm release the environment installs, by release name, in install order. */
function plannedReleases(config: PlatformConfig, mesh: MeshInstall): Record<string, PlannedRelease> {
  const releases: Record<string, PlannedRelease> = {};
  if (needsCertManager(config, mesh)) releases["cert-manager"] = { chart: "certManager" };
  if (mesh.needsTrustManager) releases["trust-manager"] = { chart: "trustManager" };
  for (const r of mesh.releases)
    releases[r.release] = { chart: r.chart, version: r.version, from: r.from, reliedOn: r.reliedOn };
  if (config.monitoring.backend === "prometheus")
    releases["kube-prometheus-stack"] = { chart: "kubePrometheusStack" };
  if (config.ingress.kind === "traefik") releases.traefik = { chart: "traefik" };
  if (config.ingress.kind === "ingress-nginx") releases["ingress-nginx"] = { chart: "ingressNginx" };
  return releases;
}

function meshDashboardProblems(config: PlatformConfig, mesh: MeshIdentity & MeshInstall): ConfigProblem[] {
  if (
    !config.monitoring.meshDashboards ||
    (config.monitoring.backend === "prometheus" && mesh.grafanaDashboards)
  )
    return [];
  return [
    {
      path: "platform:monitoring.meshDashboards",
      problem: `is true, but the dashboards go into the platform's Grafana (monitoring.backend "prometheus") for a mesh that publishes them (Linkerd, Istio); here the backend is "${config.monitoring.backend}" and the mesh "${mesh.kind}"`,
      fix: 'set platform:monitoring.backend to "prometheus" with a mesh, or remove platform:monitoring.meshDashboards',
    },
  ];
}

/** Which kind of monitor the environment's monitoring reads, and the labels its Prometheus selects. */
function monitoringOf(config: PlatformConfig): Plan["monitoring"] {
  switch (config.monitoring.backend) {
    case "none":
      return undefined;
    case "managed-prometheus":
      return { backend: "managed-prometheus", selectorLabels: {} };
    default:
      return { backend: "prometheus-operator", selectorLabels: config.monitoring.selectorLabels };
  }
}

function namespacesOf(config: PlatformConfig, mesh: MeshPodContract & MeshEnforcement): NamespacePlan[] {
  const names = [
    ...new Set([...config.apps.map((a) => a.namespace), ...config.teams.flatMap((t) => t.namespaces)]),
  ].sort();
  const onGateway = new Set(
    config.apps.filter((a) => a.expose?.via.includes("gke-gateway")).map((a) => a.namespace),
  );
  return names.map((name) => {
    const enrolment: PodMetadata = mesh.namespaceEnrolment;
    const deny =
      mesh.policy && meshClosure(config, mesh, name) !== "open" ? mesh.policy.denyByDefaultAnnotations : {};
    return {
      name,
      labels: { ...enrolment.labels, ...(onGateway.has(name) ? { [gatewayAccessLabel]: "true" } : {}) },
      annotations: { ...enrolment.annotations, ...deny },
    };
  });
}

function appPlan(config: PlatformConfig, mesh: MeshPodContract & MeshEnforcement, app: App): AppPlan {
  const guarded = isGuardedIn(config, mesh, app);
  const team = teamOfNamespace(config, app.namespace);
  const account = team && teamServiceAccount(config, team);
  return {
    ...(account ? { googleServiceAccount: account.email } : {}),
    app,
    probePath: probePathOf(app),
    livenessPath: app.livenessPath,
    // Replicas in one zone or on one node go down together; a disruption budget does not help then.
    spread: app.replicas > 1,
    exposure: app.expose && { name: app.name, namespace: app.namespace, port: app.port, ...app.expose },
    fromGoogleLoadBalancer: app.expose?.via.some((v) => v === "gke-gateway" || v === "gce-ingress") ?? false,
    loadBalancerSources: [
      ...new Set(
        (app.expose?.via ?? [])
          .filter((v) => v === "gke-gateway" || v === "gce-ingress")
          .flatMap((v) => {
            const caller = ingressCaller(config, v);
            return caller.kind === "network" ? caller.cidrs : [];
          }),
      ),
    ],
    guarded,
    grants:
      guarded && mesh.policy
        ? [...sameNamespaceGrants(config, mesh, app), ...accessGrants(config, mesh, app)]
        : [],
    routes: app.mesh.routes.map((r) => ({
      ...r,
      backends: r.backends.map((b) => ({
        service: b.app,
        // The mesh traffic rules refuse a backend that names no app of the namespace.
        port:
          b.port ??
          config.apps.find((a) => a.namespace === app.namespace && a.name === b.app)?.port ??
          app.port,
        weight: b.weight,
      })),
    })),
  };
}
