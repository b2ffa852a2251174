import type { z } from "zod";
import { meshDefaults } from "./schema";
import { resolveSizing, type Sizing } from "./sizing";
import type {
  EnvironmentInput,
  Tier,
  accessRuleSchema,
  appSchema,
  existingClusterSchema,
  exposurePaths,
  httpMethods,
  maintenanceSchema,
  meshRouteSchema,
  nodePoolSchema,
  releaseChannels,
} from "./schema";

export type NodePool = Required<Omit<z.infer<typeof nodePoolSchema>, "labels">> & {
  readonly labels: Record<string, string>;
};
export type Maintenance = Frozen<z.infer<typeof maintenanceSchema>>;
export type ExistingClusterRef = z.infer<typeof existingClusterSchema>;
export type ExposurePath = (typeof exposurePaths)[number];

export interface AppExposure {
  readonly host: string;
  readonly path: string;
  readonly via: readonly ExposurePath[];
  readonly timeoutSeconds: number;
  readonly healthCheckPath: string;
  readonly stripPrefix: boolean;
  readonly methods?: readonly (typeof httpMethods)[number][];
}

type RouteInput = z.infer<typeof meshRouteSchema>;
export type RouteMatch = NonNullable<RouteInput["matches"]>[number];
export type AccessRule = z.infer<typeof accessRuleSchema>;

/** A mesh route with its defaults: no matches means every request. */
export interface MeshRoute {
  readonly name: string;
  readonly matches: readonly RouteMatch[];
  readonly backends: readonly { readonly app: string; readonly port?: number; readonly weight: number }[];
  readonly timeouts?: { readonly request?: string; readonly backendRequest?: string };
  readonly retry?: { readonly on: readonly string[]; readonly attempts: number; readonly timeout?: string };
  readonly fault?: { readonly percent: number; readonly status: number };
}

/** An app's east-west policy: its Service's mesh routes and who may call it. */
export interface AppMeshPolicy {
  readonly routes: readonly MeshRoute[];
  readonly authorization?: { readonly rules: readonly AccessRule[] };
}

export type App = Required<Omit<z.infer<typeof appSchema>, "expose" | "metrics" | "mesh">> & {
  readonly expose?: AppExposure;
  readonly metrics?: { readonly path: string };
  readonly mesh: AppMeshPolicy;
};

/** A section of the environment as users write it. */
type Section<K extends keyof EnvironmentInput> = NonNullable<EnvironmentInput[K]>;

/**
 * `T` as the defaults leave it: every key the user may omit is set, except the keys in `Keep`, which
 * stay optional because they are choices without a default (one level; nested sections say theirs).
 */
type Filled<T, Keep extends keyof T = never> = {
  readonly [K in Exclude<keyof T, Keep>]-?: Frozen<Exclude<T[K], undefined>>;
} & { readonly [K in Keep]?: Frozen<Exclude<T[K], undefined>> };

/** Read-only all the way down: the resolved environment is never changed after resolution. */
type Frozen<T> = T extends readonly (infer U)[]
  ? readonly Frozen<U>[]
  : T extends object
    ? { readonly [K in keyof T]: Frozen<T[K]> }
    : T;

type Cluster = Section<"cluster">;
type Mesh = Section<"mesh">;
type Ingress = Section<"ingress">;

/**
 * The fully resolved environment: every default applied, every cross-field rule checked. Derived from
 * the schema (`environmentInputSchema`), so a key added there is a key here; what the defaults add is
 * `stack`, `cluster.regional`, and the resolved shapes of node pools and apps.
 */
export interface PlatformConfig {
  /** The Pulumi stack name. */
  readonly stack: string;
  readonly tier: Tier;
  readonly gcp: Section<"gcp">;
  readonly network: Filled<Section<"network">>;
  readonly cluster: Filled<Omit<Cluster, "secretsEncryption" | "nodePools" | "autopilot">, "existing"> & {
    /** True when `location` is a region (control plane and nodes in three zones). */
    readonly regional: boolean;
    readonly secretsEncryption: Filled<NonNullable<Cluster["secretsEncryption"]>>;
    readonly nodePools: readonly NodePool[];
    readonly autopilot: Filled<NonNullable<Cluster["autopilot"]>>;
  };
  readonly mesh: Filled<Omit<Mesh, "istio">, "tracing"> & {
    /** Absent revisions: one istiod without a revision. */
    readonly istio: Filled<NonNullable<Mesh["istio"]>, "revisions" | "defaultRevision">;
  };
  readonly ingress: Filled<Omit<Ingress, "tls" | "acme">> & {
    readonly tls: Filled<NonNullable<Ingress["tls"]>>;
    readonly acme?: Filled<NonNullable<Ingress["acme"]>>;
  };
  readonly monitoring: Filled<Section<"monitoring">, "prometheusUrl">;
  /** CRD owners the user declared; lib/crds derives the rest. */
  readonly crds: Section<"crds">;
  readonly apps: readonly App[];
  /** Replicas, requests and limits of every workload the platform installs. */
  readonly sizing: Sizing;
  /** Chart value overrides by release name. */
  readonly overrides: {
    readonly charts: Readonly<Record<string, Filled<NonNullable<Section<"overrides">["charts"]>[string]>>>;
  };
}

/** What differs between tiers. Everything else is the same secure default everywhere. */
interface TierDefaults {
  readonly zonal: boolean;
  readonly releaseChannel: (typeof releaseChannels)[number];
  readonly nodePool: NodePool;
  readonly backupAgent: boolean;
  readonly deletionProtection: boolean;
  readonly protect: boolean;
  readonly maintenance: Maintenance | null;
  readonly replicas: number;
}

// GKE requires 48h of maintenance availability in any 32 days, in windows of at least 4h
// (cloud.google.com/kubernetes-engine/docs/concepts/maintenance-windows-and-exclusions):
// two 6h weekend windows give about 55h.
const weekendWindow: Maintenance = { days: ["SA", "SU"], start: "02:00", hours: 6 };

export const tierDefaults: Record<Tier, TierDefaults> = {
  dev: {
    // One zone: a zonal control plane is free of the regional cluster fee and nodes are not tripled.
    zonal: true,
    // REGULAR gets new GKE versions weeks before STABLE, so dev meets them first.
    releaseChannel: "REGULAR",
    // Spot e2 nodes: the cheapest that still fit a mesh, an ingress and monitoring.
    nodePool: {
      name: "default",
      machineType: "e2-standard-4",
      minNodes: 1,
      maxNodes: 3,
      spot: true,
      diskSizeGb: 50,
      labels: {},
    },
    // Nothing in dev is worth restoring.
    backupAgent: false,
    // Dev is rebuilt freely.
    deletionProtection: false,
    protect: false,
    // Dev takes upgrades whenever GKE schedules them.
    maintenance: null,
    replicas: 1,
  },
  staging: {
    // Like prod, so regional failure modes show up before prod.
    zonal: false,
    releaseChannel: "REGULAR",
    // Regional: min 1 per zone is 3 nodes, enough to exercise PodDisruptionBudgets.
    nodePool: {
      name: "default",
      machineType: "e2-standard-4",
      minNodes: 1,
      maxNodes: 3,
      spot: false,
      diskSizeGb: 100,
      labels: {},
    },
    // Backups on, so restores are rehearsed before prod needs one.
    backupAgent: true,
    // Staging may be recreated from code; prod may not.
    deletionProtection: false,
    protect: false,
    maintenance: weekendWindow,
    replicas: 2,
  },
  prod: {
    // Regional control plane and nodes in three zones survive a zone outage.
    zonal: false,
    // STABLE takes versions after they have soaked in RAPID and REGULAR.
    releaseChannel: "STABLE",
    // n2 for steady CPU; min 2 per zone keeps 6 nodes through a zone loss and a rollout.
    nodePool: {
      name: "default",
      machineType: "n2-standard-4",
      minNodes: 2,
      maxNodes: 10,
      spot: false,
      diskSizeGb: 100,
      labels: {},
    },
    backupAgent: true,
    // Losing prod by a stray `pulumi destroy` or console click is not recoverable.
    deletionProtection: true,
    protect: true,
    maintenance: weekendWindow,
    replicas: 2,
  },
};

/** Applies the tier's defaults to a validated input. Pure: the same input gives the same config. */
export function resolveConfig(input: EnvironmentInput, stack: string): PlatformConfig {
  const d = tierDefaults[input.tier];
  const c = input.cluster ?? {};
  const mode = c.mode ?? "standard";
  const name = c.name ?? clusterNameFor(stack);
  const meshKind = input.mesh?.kind ?? "linkerd";
  const dataplane = input.mesh?.dataplane ?? "sidecar";
  // Istio ambient redirects traffic with istio-cni; the other modes use a privileged init container unless asked.
  const meshCni = input.mesh?.cni ?? dataplane === "ambient";
  const backend = input.monitoring?.backend ?? "prometheus";
  const ingressKind = input.ingress?.kind ?? "gke-gateway";
  // Prod survives a node or zone loss: every control plane keeps a replica through a drain.
  const highAvailability = input.sizing?.highAvailability ?? input.tier === "prod";
  const meshHighAvailability = input.mesh?.highAvailability ?? highAvailability;
  // Autopilot clusters are always regional.
  const location =
    c.location ?? (d.zonal && mode !== "autopilot" ? `${input.gcp.region}-b` : input.gcp.region);

  return {
    stack,
    tier: input.tier,
    gcp: input.gcp,
    network: {
      name: input.network?.name ?? `${name}-vpc`,
      // Non-overlapping RFC 1918 ranges; a /14 of pods fits about 1,000 nodes at 110 pods each.
      nodesCidr: input.network?.nodesCidr ?? "10.0.0.0/20",
      podsCidr: input.network?.podsCidr ?? "10.4.0.0/14",
      servicesCidr: input.network?.servicesCidr ?? "10.8.0.0/20",
      // A /23 is the proxy-only subnet size Google recommends for regional load balancers.
      proxyOnlyCidr: input.network?.proxyOnlyCidr ?? "10.9.0.0/23",
      controlPlaneCidr: input.network?.controlPlaneCidr ?? "172.16.0.0/28",
    },
    cluster: {
      mode,
      name,
      location,
      regional: isRegion(location),
      releaseChannel: c.releaseChannel ?? d.releaseChannel,
      // GKE owns the Gateway API CRDs on its standard channel; no chart installs them.
      gatewayApi: c.gatewayApi ?? "standard",
      // No node has a public IP; egress goes through Cloud NAT.
      privateNodes: c.privateNodes ?? true,
      // A public endpoint (IAM-authenticated) lets `pulumi up` run from CI without a bastion.
      privateEndpoint: c.privateEndpoint ?? false,
      authorizedNetworks: c.authorizedNetworks ?? [],
      // Dataplane V2 enforces NetworkPolicy in eBPF without Calico; whether it is the default beside the mesh is schema.ts meshDefaults.
      dataplaneV2: c.dataplaneV2 ?? (mode === "autopilot" || meshDefaults[meshKind].dataplaneV2),
      managedPrometheus: c.managedPrometheus ?? backend === "managed-prometheus",
      // Caches DNS on each node: fewer kube-dns timeouts under mesh-heavy lookup load.
      nodeLocalDns: c.nodeLocalDns ?? true,
      backupAgent: c.backupAgent ?? d.backupAgent,
      // Secrets in etcd encrypted with a key the project controls (CIS GKE 5.3.1); 90-day rotation (CIS Google Cloud 1.10).
      secretsEncryption: {
        enabled: c.secretsEncryption?.enabled ?? true,
        rotationDays: c.secretsEncryption?.rotationDays ?? 90,
      },
      deletionProtection: c.deletionProtection ?? d.deletionProtection,
      protect: c.protect ?? d.protect,
      maintenance: c.maintenance === undefined ? d.maintenance : c.maintenance,
      labels: { stack: labelValue(stack), "managed-by": "pulumi", ...c.labels, environment: input.tier },
      nodePools: (c.nodePools ?? [d.nodePool]).map((p) => ({
        ...p,
        spot: p.spot ?? d.nodePool.spot,
        diskSizeGb: p.diskSizeGb ?? d.nodePool.diskSizeGb,
        labels: p.labels ?? {},
      })),
      nodeServiceAccountRoles: c.nodeServiceAccountRoles ?? [],
      autopilot: {
        // A sidecar mesh without its CNI plugin needs NET_ADMIN in its init container; Autopilot denies it unless allowed.
        allowNetAdmin:
          c.autopilot?.allowNetAdmin ??
          (mode === "autopilot" && meshDefaults[meshKind].redirectsTraffic && !meshCni),
      },
      existing: c.existing,
    },
    mesh: {
      kind: meshKind,
      cni: meshCni,
      dataplane,
      // Kubernetes stops a native sidecar when the app container exits, so meshed Jobs finish.
      nativeSidecars: input.mesh?.nativeSidecars ?? true,
      // Prod survives a node or zone loss without losing the injector or identity.
      highAvailability: meshHighAvailability,
      dashboard: input.mesh?.dashboard ?? false,
      previousTrustAnchor: input.mesh?.previousTrustAnchor ?? false,
      denyByDefault: input.mesh?.denyByDefault ?? [],
      tracing: input.mesh?.tracing,
      istio: {
        revisions: input.mesh?.istio?.revisions,
        defaultRevision: input.mesh?.istio?.defaultRevision ?? input.mesh?.istio?.revisions?.[0]?.name,
        // STRICT where it matters: prod, and staging so prod's failures show up there first.
        mtls: input.mesh?.istio?.mtls ?? (input.tier === "dev" ? "PERMISSIVE" : "STRICT"),
        loadBalancerTraffic: input.mesh?.istio?.loadBalancerTraffic ?? "permissive-ports",
      },
    },
    ingress: {
      // GKE Gateway: Google's managed load balancer with container-native NEGs, no in-cluster proxy to run.
      kind: ingressKind,
      gatewayClass: input.ingress?.gatewayClass ?? "gke-l7-global-external-managed",
      // Google-managed certificates renew themselves; nothing to rotate or leak.
      tls: {
        mode: input.ingress?.tls?.mode ?? "managed",
        certificates: input.ingress?.tls?.certificates ?? [],
      },
      // A stable address DNS can point at across Gateway re-creations.
      staticIp: input.ingress?.staticIp ?? true,
      // TLS 1.0 and 1.1 are deprecated (RFC 8996).
      minTlsVersion: input.ingress?.minTlsVersion ?? "TLS_1_2",
      // Long enough for in-flight requests to finish when a pod stops being ready during a rollout.
      drainingTimeoutSeconds: input.ingress?.drainingTimeoutSeconds ?? 30,
      acme: input.ingress?.acme
        ? {
            email: input.ingress.acme.email,
            solver: input.ingress.acme.solver ?? "http01",
            staging: input.ingress.acme.staging ?? false,
          }
        : undefined,
    },
    monitoring: {
      backend,
      // kube-prometheus-stack's Prometheus selects PodMonitors labelled with its release name
      // (podMonitorSelectorNilUsesHelmValues: true); the platform names its release kube-prometheus-stack.
      selectorLabels: input.monitoring?.selectorLabels ?? { release: "kube-prometheus-stack" },
      prometheusUrl: input.monitoring?.prometheusUrl,
      meshDashboards: input.monitoring?.meshDashboards ?? false,
    },
    crds: { ...input.crds },
    sizing: resolveSizing(input.sizing, highAvailability, meshHighAvailability, meshDefaults[meshKind].proxy),
    overrides: {
      charts: Object.fromEntries(
        Object.entries(input.overrides?.charts ?? {}).map(([release, o]) => [
          release,
          { values: o.values, overrideCrdFlags: o.overrideCrdFlags ?? false },
        ]),
      ),
    },
    apps: (input.apps ?? []).map((a) => ({
      ...a,
      namespace: a.namespace ?? a.name,
      replicas: a.replicas ?? d.replicas,
      expose: a.expose
        ? {
            host: a.expose.host,
            path: a.expose.path ?? "/",
            via: a.expose.via ?? (ingressKind === "none" ? [] : [ingressKind]),
            // GKE's backend service default; long requests must say so.
            timeoutSeconds: a.expose.timeoutSeconds ?? 30,
            healthCheckPath: a.expose.healthCheckPath ?? "/",
            stripPrefix: a.expose.stripPrefix ?? false,
            methods: a.expose.methods,
          }
        : undefined,
      mesh: {
        routes: (a.mesh?.routes ?? []).map((r) => ({
          name: r.name,
          matches: r.matches ?? [],
          // A route without backends shapes the app's own traffic (timeouts, retries, faults).
          backends: (r.backends ?? [{ app: a.name }]).map((b) => ({ ...b, weight: b.weight ?? 1 })),
          timeouts: r.timeouts,
          // One retry: Linkerd's own default for retry.linkerd.io/limit.
          retry: r.retry && { on: r.retry.on, attempts: r.retry.attempts ?? 1, timeout: r.retry.timeout },
          // 500 is what a failing app most often answers, and what Linkerd's fault-injection guide uses.
          fault: r.fault && { percent: r.fault.percent, status: r.fault.status ?? 500 },
        })),
        authorization: a.mesh?.authorization,
      },
    })),
  };
}

/**
 * Whether calls to an app need authorization: it has rules, or its namespace denies by default. A
 * guarded app gets the platform's allowances for probes, scrapes and its ingress.
 */
export function isGuarded(
  config: Pick<PlatformConfig, "mesh">,
  app: Pick<App, "mesh" | "namespace">,
): boolean {
  return app.mesh.authorization !== undefined || config.mesh.denyByDefault.includes(app.namespace);
}

/** The path of an app's readiness, startup and liveness probes, which load balancers health-check too. */
export function probePathOf(app: Pick<App, "expose">): string {
  return app.expose?.healthCheckPath ?? "/";
}

export function clusterNameFor(stack: string): string {
  return `gke-${stack.toLowerCase().replace(/[^a-z0-9-]/g, "-")}`.slice(0, 40).replace(/-+$/, "");
}

/** A region has no zone suffix: `europe-west1` vs `europe-west1-b`. */
export function isRegion(location: string): boolean {
  return /^[a-z]+-[a-z]+[0-9]+$/.test(location);
}

function labelValue(value: string): string {
  return value
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, "-")
    .slice(0, 63);
}
