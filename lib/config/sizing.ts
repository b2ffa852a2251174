import { z } from "zod";
import { showValue } from "./errors";
import { checkedString, type ValueProblem } from "./valueChecks";

/**
 * Production sizing: replicas, requests and limits of every workload the platform installs, tunable per
 * environment under `platform:sizing`. The numbers here are the profile every tier starts from; each
 * carries its source (the chart's own HA guidance at the pinned version where it has one) or, where
 * upstream publishes none, the reason for it. `highAvailability` (on in prod) decides replicas and
 * disruption budgets; requests and limits are the same in every tier, so dev schedules like prod.
 */

/** CPU as Kubernetes writes it: millicores (`100m`) or cores (`1`, `0.5`). */
export const cpuQuantity = z
  .string()
  .regex(/^([1-9][0-9]{0,5}m|[0-9]{1,3}(\.[0-9]{1,3})?)$/, "a CPU quantity such as 100m or 2");
/** Memory in binary units, as every chart's own defaults write it. */
export const memoryQuantity = z
  .string()
  .regex(/^[1-9][0-9]{0,6}(Ki|Mi|Gi)$/, "a memory quantity such as 128Mi or 2Gi");

const resourcesShape = {
  /** CPU request. */
  cpu: cpuQuantity.optional(),
  /** Memory request. */
  memory: memoryQuantity.optional(),
  /** Memory limit: the container is restarted above it instead of starving its node. */
  memoryLimit: memoryQuantity.optional(),
  /**
   * CPU limit. @default none: a CPU limit throttles a busy proxy or controller even on an idle node
   * (Istio's sidecars keep their chart's own 2000m cap, global.proxy.resources.limits.cpu, unless set)
   */
  cpuLimit: cpuQuantity.optional(),
};
/** A node agent or a sidecar: one per node or per pod, so no replica count. */
const agentSchema = z.strictObject(resourcesShape);
const workloadShape = {
  /** Replicas; two or more while highAvailability is on for a control plane. */
  replicas: z.int().min(1).max(50).optional(),
  ...resourcesShape,
};
/** A Deployment: replicas too. */
const workloadSchema = z.strictObject(workloadShape);

/**
 * Persistent Disk's bounds, 10 GiB to 64 TiB for pd-balanced, what GKE's `standard-rwo` StorageClass
 * provisions (cloud.google.com/compute/docs/disks#disk-types); a TSDB also needs room beyond its WAL.
 */
const storageSizeBounds = { minGi: 10, maxGi: 65536 } as const;

/** A Prometheus volume's size in GiB: the PersistentVolumeClaim of each replica, or its emptyDir's limit. */
export function storageSizeProblem(value: string): ValueProblem | undefined {
  const allowed = `a size in Gi from ${storageSizeBounds.minGi}Gi to ${storageSizeBounds.maxGi}Gi, such as 50Gi`;
  const m = /^([1-9][0-9]{0,5})Gi$/.exec(value);
  if (!m) {
    return {
      problem: `${showValue(value)} is not a size in Gi`,
      allowed,
      fix: (path) => `set ${path} to a size such as 50Gi`,
    };
  }
  const gi = Number(m[1]);
  if (gi < storageSizeBounds.minGi || gi > storageSizeBounds.maxGi) {
    return {
      problem: `${showValue(value)} is ${gi < storageSizeBounds.minGi ? "below Persistent Disk's smallest size" : "above Persistent Disk's largest size"}`,
      allowed,
      fix: (path) =>
        `set ${path} to ${gi < storageSizeBounds.minGi ? `${storageSizeBounds.minGi}Gi or more` : `${storageSizeBounds.maxGi}Gi or less`}`,
    };
  }
  return undefined;
}

/** Prometheus' TSDB volume (docs/monitoring.md, "Replicas and storage"). */
export const prometheusStorageSchema = z
  .strictObject({
    /**
     * A PersistentVolumeClaim per replica, kept across restarts; false: an emptyDir, lost with the pod.
     * @default true in staging and prod, and wherever storageClass is set; false in dev
     */
    persistent: z.boolean().optional(),
    /** The volume of each replica: its PersistentVolumeClaim, or its emptyDir's size limit. @default 50Gi persistent, 10Gi emptyDir */
    size: checkedString(storageSizeProblem).optional(),
    /** The PersistentVolumeClaims' StorageClass. @default standard-rwo (GKE's balanced Persistent Disk) */
    storageClass: z
      .string()
      .max(253)
      .regex(
        /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/,
        "a StorageClass name such as standard-rwo",
      )
      .optional(),
    /** How long samples are kept; size-based retention (80% of the volume) may drop older ones first. @default 15d */
    retention: z
      .string()
      .regex(/^[1-9][0-9]{0,4}[hdw]$/, "a retention time such as 15d or 2w or 36h")
      .optional(),
  })
  .check((ctx) => {
    // A StorageClass only provisions PersistentVolumeClaims: with an emptyDir it would have no effect.
    if (ctx.value.persistent === false && ctx.value.storageClass !== undefined) {
      const found: ValueProblem = {
        problem: `${showValue(ctx.value.storageClass)} is set, but persistent is false: an emptyDir has no StorageClass, so it would have no effect`,
        allowed: "a storageClass only with persistent storage",
        fix: (path) => `remove ${path}, or set ${path.replace(/storageClass$/, "persistent")} to true`,
      };
      ctx.issues.push({
        code: "custom",
        message: found.problem,
        params: { valueProblem: found },
        input: ctx.value.storageClass,
        path: ["storageClass"],
      });
    }
  });

/** Prometheus: a workload with its TSDB volume. */
const prometheusSchema = z.strictObject({
  ...workloadShape,
  /** Its TSDB volume, size and retention. @default persistent in staging and prod (docs/monitoring.md, "Replicas and storage") */
  storage: prometheusStorageSchema.optional(),
});

/** Every workload `platform:sizing` sizes, with what it is and whether it has replicas. */
export const sizingComponents = {
  proxy: { title: "the mesh proxy in every meshed pod", replicated: false, controlPlane: false },
  linkerdControlPlane: {
    title: "Linkerd's destination, identity and proxy injector (and the heartbeat, where turned back on)",
    replicated: true,
    controlPlane: true,
  },
  linkerdViz: {
    title: "linkerd-viz's tap API (its other parts run once)",
    replicated: true,
    controlPlane: true,
  },
  linkerdCni: { title: "linkerd-cni on every node", replicated: false, controlPlane: false },
  istiod: { title: "istiod (its autoscaler's minimum)", replicated: true, controlPlane: true },
  istioCsr: {
    title: "istio-csr, which signs every workload certificate",
    replicated: true,
    controlPlane: true,
  },
  istioCni: { title: "istio-cni on every node", replicated: false, controlPlane: false },
  ztunnel: { title: "ztunnel on every node", replicated: false, controlPlane: false },
  certManager: { title: "cert-manager's controller", replicated: true, controlPlane: true },
  certManagerWebhook: { title: "cert-manager's webhook", replicated: true, controlPlane: true },
  certManagerCainjector: { title: "cert-manager's CA injector", replicated: true, controlPlane: true },
  trustManager: { title: "trust-manager", replicated: true, controlPlane: true },
  ingressController: { title: "Traefik or ingress-nginx", replicated: true, controlPlane: true },
  prometheus: { title: "Prometheus", replicated: true, controlPlane: false },
  alertmanager: { title: "Alertmanager", replicated: true, controlPlane: false },
  grafana: { title: "Grafana", replicated: true, controlPlane: false },
  prometheusOperator: { title: "the Prometheus Operator", replicated: true, controlPlane: false },
  kubeStateMetrics: { title: "kube-state-metrics", replicated: true, controlPlane: false },
  nodeExporter: { title: "node-exporter on every node", replicated: false, controlPlane: false },
} as const;

export type SizingComponent = keyof typeof sizingComponents;

export const sizingSchema = z.strictObject({
  /**
   * Two or more replicas, spread across zones, with a disruption budget, for every control plane:
   * cert-manager, trust-manager, istio-csr, the ingress controller (and the mesh's, through
   * mesh.highAvailability, which follows this). @default true in prod
   */
  highAvailability: z.boolean().optional(),
  proxy: agentSchema.optional(),
  linkerdControlPlane: workloadSchema.optional(),
  linkerdViz: workloadSchema.optional(),
  linkerdCni: agentSchema.optional(),
  istiod: workloadSchema.optional(),
  istioCsr: workloadSchema.optional(),
  istioCni: agentSchema.optional(),
  ztunnel: agentSchema.optional(),
  certManager: workloadSchema.optional(),
  certManagerWebhook: workloadSchema.optional(),
  certManagerCainjector: workloadSchema.optional(),
  trustManager: workloadSchema.optional(),
  ingressController: workloadSchema.optional(),
  prometheus: prometheusSchema.optional(),
  alertmanager: workloadSchema.optional(),
  grafana: workloadSchema.optional(),
  prometheusOperator: workloadSchema.optional(),
  kubeStateMetrics: workloadSchema.optional(),
  nodeExporter: agentSchema.optional(),
});

/** Requests and limits of one container, every value set but the CPU limit (none by default). */
export interface ResourceSizing {
  readonly cpu: string;
  readonly memory: string;
  readonly memoryLimit: string;
  readonly cpuLimit?: string;
}

/** A Deployment's replicas and its containers' resources. */
export interface WorkloadSizing extends ResourceSizing {
  readonly replicas: number;
}

/** Prometheus' TSDB volume, resolved: retention by time and by size, both within the volume. */
export interface PrometheusStorage {
  /** A PersistentVolumeClaim per replica; otherwise an emptyDir, lost with the pod. */
  readonly persistent: boolean;
  /** The volume of each replica, in Gi: its PersistentVolumeClaim, or its emptyDir's size limit. */
  readonly size: string;
  /** The PersistentVolumeClaims' StorageClass (persistent only). */
  readonly storageClass?: string;
  /** How long samples are kept (Prometheus' --storage.tsdb.retention.time). */
  readonly retention: string;
  /** The most the TSDB may hold (--storage.tsdb.retention.size): 80% of the volume. */
  readonly retentionSize: string;
}

/** Prometheus' replicas, resources and TSDB volume. */
export interface PrometheusServerSizing extends WorkloadSizing {
  readonly storage: PrometheusStorage;
}

/** Every workload's sizing, resolved. */
export type Sizing = { readonly highAvailability: boolean } & {
  readonly [K in SizingComponent]: K extends "prometheus"
    ? PrometheusServerSizing
    : (typeof sizingComponents)[K]["replicated"] extends true
      ? WorkloadSizing
      : ResourceSizing;
};

type Profile = { readonly [K in SizingComponent]: ResourceSizing & { readonly replicas?: number } };

/**
 * The profile's numbers. `replicas` is the count with highAvailability on; off, every Deployment runs
 * one. Sources are at the pinned versions (lib/versions/charts.ts).
 */
export const sizingProfile: Profile = {
  // Linkerd: linkerd-control-plane values-ha.yaml proxy.resources (cpu 100m, memory 20Mi, limit 250Mi).
  // Istio's proxy: istio-discovery values.yaml global.proxy.resources (see proxySizing).
  proxy: { cpu: "100m", memory: "20Mi", memoryLimit: "250Mi" },
  // linkerd-control-plane values-ha.yaml: controllerReplicas 3, controllerResources 100m / 50Mi, limit 250Mi.
  linkerdControlPlane: { replicas: 3, cpu: "100m", memory: "50Mi", memoryLimit: "250Mi" },
  // viz/charts/linkerd-viz values-ha.yaml: tap.replicas 3, resources 100m / 50Mi, limit 250Mi.
  linkerdViz: { replicas: 3, cpu: "100m", memory: "50Mi", memoryLimit: "250Mi" },
  // linkerd2-cni values.yaml publishes none; the installer copies files and watches one directory.
  linkerdCni: { cpu: "10m", memory: "32Mi", memoryLimit: "128Mi" },
  // istio-discovery values.yaml: resources.requests 500m / 2048Mi (no limit); the limit doubles the
  // request, headroom for config pushes (Istio's performance guide: memory grows with services and sidecars).
  istiod: { replicas: 2, cpu: "500m", memory: "2048Mi", memoryLimit: "4096Mi" },
  // istio-csr values.yaml publishes none; it signs one small CSR per workload per hour: cert-manager's
  // guidance for its webhook (three replicas, modest memory, no cache) applies, and two survive a drain.
  istioCsr: { replicas: 2, cpu: "50m", memory: "64Mi", memoryLimit: "256Mi" },
  // istio-cni values.yaml cni.resources.requests 100m / 100Mi; the limit keeps a leak off the node.
  istioCni: { cpu: "100m", memory: "100Mi", memoryLimit: "512Mi" },
  // ztunnel values.yaml resources.requests 200m / 512Mi ("enough for ~200k pod cluster"); the limit
  // doubles it: an OOM kill stops every ambient pod's traffic on the node, so it must be rare.
  ztunnel: { cpu: "200m", memory: "512Mi", memoryLimit: "1024Mi" },
  // cert-manager best-practice.md "High Availability": replicaCount 2 (leader election, a hot standby);
  // "Scalability": the chart sets no resources, size them for the cluster; it caches Certificates and Secrets.
  certManager: { replicas: 2, cpu: "50m", memory: "128Mi", memoryLimit: "512Mi" },
  // best-practice.md: webhook replicaCount 3 or more; "modest memory requirements because it does not use a cache".
  certManagerWebhook: { replicas: 3, cpu: "10m", memory: "32Mi", memoryLimit: "128Mi" },
  // best-practice.md: cainjector replicaCount 2 (leader election); it caches the objects it injects into.
  certManagerCainjector: { replicas: 2, cpu: "10m", memory: "64Mi", memoryLimit: "256Mi" },
  // trust-manager elects a leader (--leader-elect, templates/deployment.yaml at v0.24.0), as cert-manager's
  // controller: two are one active and a standby (replicaCount defaults to 1); one Bundle reconciler, small cache.
  trustManager: { replicas: 2, cpu: "25m", memory: "64Mi", memoryLimit: "256Mi" },
  // Two replicas spread across zones keep the entry point through a zone loss or a node drain;
  // ingress-nginx values.yaml controller.resources.requests 100m / 90Mi, rounded up for TLS buffers.
  ingressController: { replicas: 2, cpu: "100m", memory: "128Mi", memoryLimit: "512Mi" },
  // Two with highAvailability, as kube-prometheus runs them (jsonnet/kube-prometheus/components/
  // prometheus.libsonnet replicas: 2): the certificate and identity alerts keep firing through a drain or a
  // zone loss; each replica scrapes everything and the operator drops its prometheus_replica label from the
  // alerts it sends, so Alertmanager deduplicates them (pkg/prometheus/promcfg.go at v0.93.1). Memory grows
  // with series: a meshed cluster's proxies export per-route histograms, so 2Gi to start and a 4Gi limit.
  prometheus: { replicas: 2, cpu: "500m", memory: "2Gi", memoryLimit: "4Gi" },
  // Two with highAvailability: Alertmanager's cluster is no quorum, any peer that is up notifies, and the pair
  // gossips its silences and notification log, so a drain loses neither (each replica's emptyDir would).
  alertmanager: { replicas: 2, cpu: "10m", memory: "64Mi", memoryLimit: "256Mi" },
  // One replica with SQLite storage (kube-prometheus-stack's Grafana), which cannot be shared.
  grafana: { replicas: 1, cpu: "50m", memory: "128Mi", memoryLimit: "512Mi" },
  // One replica: the operator only reconciles; the Prometheus it manages keeps running without it.
  prometheusOperator: { replicas: 1, cpu: "50m", memory: "64Mi", memoryLimit: "256Mi" },
  // One replica: every replica exports every object's series, so a second doubles them; kube-state-metrics
  // scales by sharding instead (its README, "Horizontal sharding").
  kubeStateMetrics: { replicas: 1, cpu: "10m", memory: "64Mi", memoryLimit: "256Mi" },
  // node-exporter reads /proc and /sys; its series count is per node, small and fixed.
  nodeExporter: { cpu: "10m", memory: "32Mi", memoryLimit: "128Mi" },
};

/**
 * The Istio proxy's: istio-discovery values.yaml global.proxy.resources (requests 100m / 128Mi, limit
 * 1024Mi). Its 2000m CPU limit stays, the values merging over the chart's: a cap no proxy of an app
 * needs, which `sizing.proxy.cpuLimit` replaces.
 */
export const istioProxySizing: ResourceSizing = { cpu: "100m", memory: "128Mi", memoryLimit: "1024Mi" };

type SizingInput = z.infer<typeof sizingSchema>;
type PrometheusStorageInput = z.infer<typeof prometheusStorageSchema>;

/**
 * Prometheus' volume without persistence: an emptyDir on the node's boot disk, limited so the TSDB cannot
 * fill that disk (dev's nodes have 50 GB, shared with images and logs).
 */
const emptyDirSize = "10Gi";
/**
 * A PersistentVolumeClaim per replica: about two weeks of a busy cluster's series. At the memory limit's
 * reach (roughly half a million active series) and the operator's default 30s scrape interval, Prometheus
 * writes ~2 GB a day (1-2 bytes a sample, Prometheus docs/storage.md), so 15 days take ~30 GB of the 40GB
 * that size-based retention allows on 50Gi.
 */
const persistentSize = "50Gi";
/**
 * Two full weeks, so a week-over-week comparison (`offset 1w`) always has its week; size-based retention
 * drops the oldest blocks first where the series outgrow the volume.
 */
const defaultRetention = "15d";
/**
 * GKE's balanced Persistent Disk with WaitForFirstConsumer binding, so each replica's disk is made in the
 * zone its pod is scheduled to (GKE's built-in `standard-rwo` StorageClass, the Compute Engine Persistent
 * Disk CSI driver's).
 */
export const defaultStorageClass = "standard-rwo";
/**
 * Size-based retention at 80% of the volume: Prometheus counts its WAL and head chunks in the size but
 * deletes only whole blocks, and compaction writes a new block before it removes the old ones; Prometheus
 * recommends "at most 80-85% of your allocated Prometheus disk space" (docs/storage.md, "Right-Sizing
 * Retention Size", at v3.14.0, the version kube-prometheus-stack 88.5.3 runs).
 */
const retentionShare = 0.8;

/**
 * Prometheus' volume: persistent where asked or where the tier wants it, sized, with retention by time
 * and by size that fit the volume. `GB` is Prometheus' unit for 2^30 bytes (docs/storage.md:
 * "Based on powers-of-2"), so 80% of a 50Gi volume is `40GB`.
 */
export function resolvePrometheusStorage(
  input: PrometheusStorageInput | undefined,
  persistentByDefault: boolean,
): PrometheusStorage {
  // Naming a StorageClass asks for PersistentVolumeClaims in any tier.
  const persistent = input?.persistent ?? (input?.storageClass !== undefined || persistentByDefault);
  const size = input?.size ?? (persistent ? persistentSize : emptyDirSize);
  const gi = Number(/^([0-9]+)Gi$/.exec(size)?.[1]);
  return {
    persistent,
    size,
    ...(persistent ? { storageClass: input?.storageClass ?? defaultStorageClass } : {}),
    retention: input?.retention ?? defaultRetention,
    retentionSize: `${Math.floor(gi * retentionShare)}GB`,
  };
}

/**
 * The environment's sizing: the profile, `highAvailability`'s replica counts (one replica without
 * it), and the user's values over both. `proxy` is the mesh's proxy profile (schema.ts meshDefaults);
 * `persistentMonitoring` is the tier's choice of a persistent Prometheus volume (tiers.ts tierDefaults).
 */
export function resolveSizing(
  input: SizingInput | undefined,
  highAvailability: boolean,
  meshHighAvailability: boolean,
  proxy: ResourceSizing,
  persistentMonitoring: boolean,
): Sizing {
  const out: Record<string, unknown> = { highAvailability };
  for (const key of Object.keys(sizingComponents) as SizingComponent[]) {
    const profile: ResourceSizing & { readonly replicas?: number } =
      key === "proxy" ? proxy : sizingProfile[key];
    const { replicas: haReplicas, ...resources } = profile;
    const given = input?.[key] ?? {};
    const meshPart = key.startsWith("linkerd") || key.startsWith("istio");
    const ha = meshPart ? meshHighAvailability : highAvailability;
    out[key] = {
      ...resources,
      ...(sizingComponents[key].replicated ? { replicas: ha ? (haReplicas ?? 1) : 1 } : {}),
      ...given,
      // The volume as given, resolved: it replaces the input's own `storage`.
      ...(key === "prometheus"
        ? { storage: resolvePrometheusStorage(input?.prometheus?.storage, persistentMonitoring) }
        : {}),
    };
  }
  return out as Sizing;
}

/** The Kubernetes `resources` of a container with this sizing. */
export function containerResources(s: ResourceSizing): {
  requests: { cpu: string; memory: string };
  limits: { memory: string; cpu?: string };
} {
  return {
    requests: { cpu: s.cpu, memory: s.memory },
    limits: { memory: s.memoryLimit, ...(s.cpuLimit ? { cpu: s.cpuLimit } : {}) },
  };
}

/** A quantity in base units (cores, bytes), for comparing a request with its limit. */
export function quantityValue(q: string): number {
  const units: Record<string, number> = { m: 1e-3, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };
  const m = /^([0-9.]+)(m|Ki|Mi|Gi)?$/.exec(q);
  if (!m) return NaN;
  return Number(m[1]) * (m[2] ? units[m[2]] : 1);
}
