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
type MaintenanceInput = z.infer<typeof maintenanceSchema>;
/** A weekly maintenance window and its exclusions, each exclusion's scope set. */
export type Maintenance = Frozen<
  Omit<MaintenanceInput, "exclusions"> & {
    exclusions: Required<NonNullable<MaintenanceInput["exclusions"]>[number]>[];
  }
>;

/**
 * The GKE name of a node pool: its config name, and `-spot` for spot pools. Spot is the one pool setting
 * in the config that GKE cannot change in place (terraform-google-kubernetes-engine
 * modules/beta-private-cluster-update-variant/cluster.tf `force_node_pool_recreation_resources`; machine
 * type, disk and labels update in place), so changing it changes the name, and the new pool is created
 * beside the old one before the old one is drained and deleted.
 */
export function nodePoolName(pool: Pick<NodePool, "name" | "spot">): string {
  return pool.spot ? `${pool.name}-spot` : pool.name;
}
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
  /** A Cloud Armor security policy name, on Google's load balancers. */
  readonly securityPolicy?: string;
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

export type App = Required<
  Omit<z.infer<typeof appSchema>, "expose" | "metrics" | "mesh" | "livenessPath">
> & {
  readonly livenessPath?: string;
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
  readonly cluster: Filled<
    Omit<Cluster, "secretsEncryption" | "nodePools" | "autopilot" | "backups" | "maintenance">,
    "existing" | "kubernetesVersion"
  > & {
    /** The weekly maintenance window; null for "any time". */
    readonly maintenance: Maintenance | null;
    /** The Backup for GKE plan; null for none. */
    readonly backups: Filled<NonNullable<Cluster["backups"]>> | null;
    /** True when `location` is a region (control plane and nodes in three zones). */
    readonly regional: boolean;
    /** Absent `key`: the platform creates the key ring and key. */
    readonly secretsEncryption: Filled<NonNullable<Cluster["secretsEncryption"]>, "key">;
    readonly nodePools: readonly NodePool[];
    readonly autopilot: Filled<NonNullable<Cluster["autopilot"]>>;
  };
  readonly mesh: Filled<Omit<Mesh, "istio">, "tracing"> & {
    /** Absent revisions: one istiod without a revision. */
    readonly istio: Filled<NonNullable<Mesh["istio"]>, "revisions" | "defaultRevision">;
  };
  /** Which app namespaces are isolated from the others (`isolatedNamespaces` lists them). */
  readonly isolation: Filled<Section<"isolation">>;
  readonly ingress: Filled<Omit<Ingress, "tls" | "acme" | "requestLogging">> & {
    readonly requestLogging: Filled<NonNullable<Ingress["requestLogging"]>>;
    readonly tls: Filled<NonNullable<Ingress["tls"]>>;
    readonly acme?: Filled<NonNullable<Ingress["acme"]>>;
  };
  readonly monitoring: Filled<Section<"monitoring">, "prometheusUrl">;
  /** CRD owners the user declared; lib/crds derives the rest. */
  readonly crds: Section<"crds">;
  /** Where the charts come from: absent mirror and folder means each chart's upstream repository. */
  readonly chartSource: Filled<Section<"chartSource">, "mirror" | "folder">;
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
  readonly nodePool: Omit<NodePool, "protect">;
  readonly backupAgent: boolean;
  readonly backups: BackupPlanSettings | null;
  readonly binaryAuthorization: "enforce" | "disabled";
  readonly deletionProtection: boolean;
  readonly protect: boolean;
  readonly maintenance: Maintenance | null;
  readonly replicas: number;
  /** Prometheus keeps its TSDB on a PersistentVolumeClaim per replica (sizing.prometheus.storage). */
  readonly persistentMonitoring: boolean;
}

type BackupPlanSettings = Filled<NonNullable<Section<"cluster">["backups"]>>;

// Daily at 22:00 UTC: outside European business hours and clear of the weekend maintenance window.
// Secrets and volume data included: a restore without them brings back objects that cannot run.
const dailyBackups: BackupPlanSettings = {
  schedule: "0 22 * * *",
  retainDays: 7,
  deleteLockDays: 0,
  includeSecrets: true,
  includeVolumeData: true,
};

// GKE requires 48h of maintenance availability in any 32 days, in windows of at least 4h
// (cloud.google.com/kubernetes-engine/docs/concepts/maintenance-windows-and-exclusions):
// two 6h weekend windows give 48h in the worst 32 days (four of each weekday), exactly what it needs.
const weekendWindow: Maintenance = { days: ["SA", "SU"], start: "02:00", hours: 6, exclusions: [] };

export const tierDefaults: Record<Tier, TierDefaults> = {
  dev: {
    // One zone: nodes are not tripled across three zones. (GKE's management fee is per cluster, zonal or
    // regional; its free tier waives it for one zonal or Autopilot cluster per billing account.)
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
    backups: null,
    // Dev runs images from wherever a developer builds them.
    binaryAuthorization: "disabled",
    // Dev is rebuilt freely.
    deletionProtection: false,
    protect: false,
    // Dev takes upgrades whenever GKE schedules them.
    maintenance: null,
    replicas: 1,
    // An emptyDir: dev is torn down freely, and a StatefulSet's PersistentVolumeClaims outlive it (disks left behind).
    persistentMonitoring: false,
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
    // Backups on, so restores are rehearsed before prod needs one; a week of them is enough to rehearse.
    backupAgent: true,
    backups: dailyBackups,
    // As prod, so an image the policy refuses is refused here first.
    binaryAuthorization: "enforce",
    // Staging may be recreated from code; prod may not.
    deletionProtection: false,
    protect: false,
    maintenance: weekendWindow,
    replicas: 2,
    // As prod, so the volume's life (zonal disks, resizing, backups with volume data) is rehearsed before prod.
    persistentMonitoring: true,
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
    // A month of daily backups; none can be deleted in its first week, by mistake or by an attacker.
    backups: { ...dailyBackups, retainDays: 30, deleteLockDays: 7 },
    // Only images the project's policy allows run in prod (safer-cluster enforces it always).
    binaryAuthorization: "enforce",
    // Losing prod by a stray `pulumi destroy` or console click is not recoverable.
    deletionProtection: true,
    protect: true,
    maintenance: weekendWindow,
    replicas: 2,
    // The certificate and identity alerts keep their history and pending state through a restart.
    persistentMonitoring: true,
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
  // The mesh's CNI plugin redirects traffic wherever the cluster admits it, so app namespaces need no
  // NET_ADMIN init container and enforce baseline or restricted Pod Security instead of privileged.
  // Autopilot admits no CNI plugin, and a cluster made elsewhere may be Autopilot: there, only Istio
  // ambient asks for it (and is refused on Autopilot).
  const meshCni =
    input.mesh?.cni ??
    (dataplane === "ambient" || (mode === "standard" && meshDefaults[meshKind].redirectsTraffic));
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
      kubernetesVersion: c.kubernetesVersion,
      // GKE owns the Gateway API CRDs on its standard channel; no chart installs them.
      gatewayApi: c.gatewayApi ?? "standard",
      // No node has a public IP; egress goes through Cloud NAT.
      privateNodes: c.privateNodes ?? true,
      // A public endpoint (IAM-authenticated) lets `pulumi up` run from CI without a bastion.
      privateEndpoint: c.privateEndpoint ?? false,
      authorizedNetworks: c.authorizedNetworks ?? [],
      // The DNS endpoint needs no IP allow-list to be safe: IAM authorizes every request, from CI anywhere
      // (cloud-foundation-fabric modules/gke-cluster-standard/variables.tf `dns_access`, on by default).
      dnsEndpoint: c.dnsEndpoint ?? true,
      // IP endpoints only where the config uses them (an allow-list or the private endpoint): off, nothing
      // reaches the control plane by address (Fabric's `ip_access` is off unless set).
      ipEndpoints: c.ipEndpoints ?? ((c.authorizedNetworks ?? []).length > 0 || c.privateEndpoint === true),
      // Dataplane V2 enforces NetworkPolicy in eBPF without Calico (both anchors' default); whether it is the default beside the mesh is schema.ts meshDefaults.
      dataplaneV2: c.dataplaneV2 ?? (mode === "autopilot" || meshDefaults[meshKind].dataplaneV2),
      managedPrometheus: c.managedPrometheus ?? backend === "managed-prometheus",
      // Caches DNS on each node: fewer kube-dns timeouts under mesh-heavy lookup load.
      nodeLocalDns: c.nodeLocalDns ?? true,
      // A backup plan needs the agent, so asking for one turns the agent on.
      backupAgent: c.backupAgent ?? (c.backups ? true : d.backupAgent),
      backups: backupPlan(c, d),
      // Secrets in etcd encrypted with a key the project controls (CIS GKE 5.3.1); 90-day rotation (CIS Google Cloud 1.10).
      secretsEncryption: {
        enabled: c.secretsEncryption?.enabled ?? true,
        rotationDays: c.secretsEncryption?.rotationDays ?? 90,
        key: c.secretsEncryption?.key,
      },
      deletionProtection: c.deletionProtection ?? d.deletionProtection,
      protect: c.protect ?? d.protect,
      maintenance:
        c.maintenance === undefined
          ? d.maintenance
          : c.maintenance && {
              ...c.maintenance,
              exclusions: (c.maintenance.exclusions ?? []).map((e) => ({
                ...e,
                // GKE's own default scope; the usual reason for an exclusion is that nothing may change.
                scope: e.scope ?? "NO_UPGRADES",
              })),
            },
      labels: { stack: labelValue(stack), "managed-by": "pulumi", ...c.labels, environment: input.tier },
      nodePools: (c.nodePools ?? [d.nodePool]).map((p: z.infer<typeof nodePoolSchema>) => ({
        ...p,
        spot: p.spot ?? d.nodePool.spot,
        diskSizeGb: p.diskSizeGb ?? d.nodePool.diskSizeGb,
        labels: p.labels ?? {},
        // A pool is as protected as its cluster unless the config says otherwise for this pool.
        protect: p.protect ?? c.protect ?? d.protect,
      })),
      nodeServiceAccountRoles: c.nodeServiceAccountRoles ?? [],
      // None named: nodes read every repository of the project, where each tier's images live.
      imageRepositories: c.imageRepositories ?? [],
      // A fresh project has only a few APIs on; enabling one that is on is a no-op.
      enableApis: c.enableApis ?? mode !== "existing",
      // Free, and costs per namespace and label are what a platform's tenants are charged by.
      costAllocation: c.costAllocation ?? true,
      // Free workload configuration auditing in the console (the Container Security API).
      securityPosture: c.securityPosture ?? "basic",
      binaryAuthorization: c.binaryAuthorization ?? d.binaryAuthorization,
      // Off: an unreachable cluster is usually a network problem, and forgetting its objects would make
      // the next `pulumi up` create them again over the existing ones.
      deleteUnreachable: c.deleteUnreachable ?? false,
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
    isolation: {
      // Staging and prod hold data and credentials worth a lateral move from a compromised pod; dev holds
      // neither, and developers call its apps from ad-hoc pods anywhere (isolation.enabled opts it in).
      enabled: input.isolation?.enabled ?? input.tier !== "dev",
      except: input.isolation?.except ?? [],
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
      requestLogging: {
        // Prod's requests are answerable after an incident (and Cloud Armor's decisions visible); every
        // request by default: lower sampleRate for high-traffic services.
        enabled: input.ingress?.requestLogging?.enabled ?? input.tier === "prod",
        sampleRate: input.ingress?.requestLogging?.sampleRate ?? 1,
      },
      // Only changes of a backend's health are logged: why it left the load balancer, at little cost.
      healthCheckLogging: input.ingress?.healthCheckLogging ?? true,
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
    chartSource: {
      mirror: input.chartSource?.mirror?.replace(/\/+$/, ""),
      folder: input.chartSource?.folder,
      digests: input.chartSource?.digests ?? {},
    },
    sizing: resolveSizing(
      input.sizing,
      highAvailability,
      meshHighAvailability,
      meshDefaults[meshKind].proxy,
      d.persistentMonitoring,
    ),
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
            securityPolicy: a.expose.securityPolicy,
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

/**
 * The app namespaces isolated from the others (`platform:isolation`), sorted: every app namespace but
 * the exceptions when isolation is on, none when it is off.
 */
export function isolatedNamespaces(config: Pick<PlatformConfig, "isolation" | "apps">): string[] {
  if (!config.isolation.enabled) return [];
  return [...new Set(config.apps.map((a) => a.namespace))]
    .filter((ns) => !config.isolation.except.includes(ns))
    .sort();
}

/** Whether `namespace` is one of `isolatedNamespaces(config)`, without building the list (asked once per app). */
export function isIsolatedNamespace(
  config: Pick<PlatformConfig, "isolation" | "apps">,
  namespace: string,
): boolean {
  return (
    config.isolation.enabled &&
    !config.isolation.except.includes(namespace) &&
    config.apps.some((a) => a.namespace === namespace)
  );
}

/** The path of an app's readiness, startup and liveness probes, which load balancers health-check too. */
export function probePathOf(app: Pick<App, "expose">): string {
  return app.expose?.healthCheckPath ?? "/";
}

/** The tier's plan when the agent runs, the user's choices over it, or null for none. */
function backupPlan(c: Section<"cluster">, d: TierDefaults): BackupPlanSettings | null {
  if (c.backups === null) return null;
  const base = d.backups ?? dailyBackups;
  if (c.backups === undefined) return (c.backupAgent ?? d.backupAgent) ? base : null;
  // Dev has no plan of its own: one asked for there starts from staging's.
  return {
    schedule: c.backups.schedule ?? base.schedule,
    retainDays: c.backups.retainDays ?? base.retainDays,
    deleteLockDays: c.backups.deleteLockDays ?? base.deleteLockDays,
    includeSecrets: c.backups.includeSecrets ?? base.includeSecrets,
    includeVolumeData: c.backups.includeVolumeData ?? base.includeVolumeData,
  };
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
