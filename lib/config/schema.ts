import { z } from "zod";
import { istioVersions, supportedMinors } from "../versions";
import { gcpLocationProblem, gcpRegionProblem, machineTypeProblem } from "./gcpValues";
import { checkedString, hostNameProblem, imageReferenceProblem, valueCheck } from "./valueChecks";
import { istioProxySizing, sizingProfile, sizingSchema, type ResourceSizing } from "./sizing";

/**
 * The environment config as a user writes it, in `stacks/Pulumi.<env>.yaml` under the `platform:`
 * namespace (plus the provider's own `gcp:project` and `gcp:region`). Every object is strict: an
 * unknown key is an error that names the nearest valid key. Everything not required has a default
 * per tier (see `defaults.ts`); cross-field rules live in `rules.ts`.
 */

export const tiers = ["dev", "staging", "prod"] as const;
export type Tier = (typeof tiers)[number];

export const clusterModes = ["standard", "autopilot", "existing"] as const;
export const releaseChannels = ["RAPID", "REGULAR", "STABLE", "EXTENDED"] as const;
export const gatewayApiChannels = ["standard", "disabled"] as const;
export const meshKinds = ["linkerd", "istio", "none"] as const;

/**
 * What other sections' defaults read from the chosen mesh (everything else about a mesh is its own, in
 * lib/meshes): whether its proxies redirect traffic (without the mesh's CNI, an init container with
 * NET_ADMIN), whether GKE Dataplane V2 is the default beside it, and its proxy's default sizing.
 */
export const meshDefaults: {
  readonly [K in (typeof meshKinds)[number]]: {
    readonly redirectsTraffic: boolean;
    readonly dataplaneV2: boolean;
    readonly proxy: ResourceSizing;
  };
} = {
  // On with Linkerd too: its one Cilium caveat, socket-level load balancing in pod namespaces (linkerd/website
  // linkerd.io/content/2-edge/reference/cluster-configuration.md "Cilium"), breaks Istio sidecars alike
  // (cilium/cilium#16583); GKE runs those on Dataplane V2 and Autopilot, using Google's pod-namespace bypass (cilium/cilium#17154).
  linkerd: { redirectsTraffic: true, dataplaneV2: true, proxy: sizingProfile.proxy },
  istio: { redirectsTraffic: true, dataplaneV2: true, proxy: istioProxySizing },
  // No proxy runs; the profile's numbers stand in.
  none: { redirectsTraffic: false, dataplaneV2: true, proxy: sizingProfile.proxy },
};
export const istioDataplanes = ["sidecar", "ambient"] as const;
export const ingressKinds = ["gke-gateway", "traefik", "ingress-nginx", "gce-ingress", "none"] as const;
export const monitoringBackends = [
  "prometheus",
  "managed-prometheus",
  "existing-prometheus",
  "none",
] as const;
export const weekdays = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"] as const;

/**
 * Single-cluster GatewayClasses of the Google-hosted controller, and whether each load balancer is
 * regional (docs.cloud.google.com/kubernetes-engine/docs/how-to/gatewayclass-capabilities): a regional
 * one runs its proxies in the region's proxy-only subnet and takes regional SSL certificates and policies.
 * The one table the plan, the config rules and the edge read.
 */
const gatewayClassScope = {
  "gke-l7-global-external-managed": "global",
  "gke-l7-regional-external-managed": "regional",
  "gke-l7-rilb": "regional",
  "gke-l7-gxlb": "global",
} as const;
export type GatewayClass = keyof typeof gatewayClassScope;
export const gatewayClasses = Object.keys(gatewayClassScope) as [GatewayClass, ...GatewayClass[]];

/** A regional (or internal) Gateway class: proxy-only subnet, regional certificates and SSL policy. */
export function isRegionalGatewayClass(gatewayClass: GatewayClass): boolean {
  return gatewayClassScope[gatewayClass] === "regional";
}

const cidr = z
  .string()
  .regex(/^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/, "an IPv4 CIDR such as 10.0.0.0/20");
// A Cloud KMS key's resource id (cloud.google.com/kms/docs/resource-hierarchy#retrieve_resource_id).
const kmsKeyId = z
  .string()
  .regex(
    /^projects\/[a-z][-a-z0-9]{4,28}[a-z0-9]\/locations\/[a-z0-9-]+\/keyRings\/[a-zA-Z0-9_-]{1,63}\/cryptoKeys\/[a-zA-Z0-9_-]{1,63}$/,
    "a Cloud KMS key id such as projects/acme-sec/locations/europe-west1/keyRings/gke/cryptoKeys/secrets",
  );
const resourceName = z
  .string()
  .regex(
    /^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$/,
    "a name of lowercase letters, digits and '-', starting with a letter, at most 40 characters, such as shop",
  );
/**
 * An istiod revision: a DNS label short enough for its Service `istiod-<revision>` (63 characters), in
 * Istio's own convention such as `1-30-3`; `default` is the istiod installed without a revision.
 */
const istioRevisionName = z
  .string()
  .regex(
    /^[a-z0-9]([-a-z0-9]{0,54}[a-z0-9])?$/,
    "lowercase letters, digits and '-', such as 1-30-3 or stable, at most 56 characters; default is the istiod without a revision",
  );
/** A chart's sha256 digest, as a Helm repository index or an OCI registry gives it. */
export const chartDigest = z
  .string()
  .regex(/^sha256:[0-9a-f]{64}$/, "sha256: and 64 lowercase hex digits, such as sha256:0f1e...");

/**
 * An istiod revision: its name and Istio version. A version this package pins (`istioVersions`) comes from
 * the chart source; a newer one, for a canary before the package pins it, names where its charts come
 * from and their digests (docs/istio.md, "Canary upgrades").
 */
export const istioRevisionSchema = z.strictObject({
  name: istioRevisionName,
  /** The Istio version, such as 1.30.7: a pinned one, or a newer release with `charts`. */
  version: z.string().regex(/^1\.[0-9]{1,3}\.[0-9]{1,3}$/, `an Istio release such as ${istioVersions[0]}`),
  /** Where a version this package does not pin comes from; not for a pinned version. */
  charts: z
    .strictObject({
      /**
       * The repository of that Istio release's charts. @default Istio's OCI registry
       * (oci://ghcr.io/istio/release/charts), against which Helm checks the digests
       */
      repo: z
        .string()
        .regex(
          /^(oci|https):\/\/[^\s]+$/,
          "an oci:// registry path or https:// Helm repository, such as oci://ghcr.io/istio/release/charts",
        )
        .optional(),
      /** The sha256 digests of that release's `base` and `istiod` charts, which the canary installs. */
      digests: z.strictObject({ base: chartDigest, istiod: chartDigest }),
    })
    .optional(),
});

// GCP label keys and values (cloud.google.com/resource-manager/docs/labels-overview#requirements).
const labels = z.record(
  z
    .string()
    .regex(
      /^[a-z][a-z0-9_-]{0,62}$/,
      "a GCP label key: lowercase, starting with a letter, at most 63 characters, such as team",
    ),
  z
    .string()
    .regex(
      /^[a-z0-9_-]{0,63}$/,
      "a GCP label value: lowercase letters, digits, '_' and '-', at most 63 characters, such as payments",
    ),
);

export const gcpSchema = z.strictObject({
  project: z.string().regex(/^[a-z][-a-z0-9]{4,28}[a-z0-9]$/, "a GCP project id such as acme-platform-dev"),
  region: checkedString(gcpRegionProblem),
});

export const networkSchema = z.strictObject({
  /** Name of the VPC. @default `<cluster name>-vpc` */
  name: resourceName.optional(),
  /** Primary range of the node subnet. @default 10.0.0.0/20 */
  nodesCidr: cidr.optional(),
  /** Secondary range for pods. @default 10.4.0.0/14 */
  podsCidr: cidr.optional(),
  /** Secondary range for Services. @default 10.8.0.0/20 */
  servicesCidr: cidr.optional(),
  /** Proxy-only subnet for regional and internal Gateway classes. @default 10.9.0.0/23 */
  proxyOnlyCidr: cidr.optional(),
  /** The control plane's /28 on private clusters. @default 172.16.0.0/28 */
  controlPlaneCidr: cidr.optional(),
});

export const nodePoolSchema = z.strictObject({
  name: resourceName,
  machineType: checkedString(machineTypeProblem),
  /** Nodes per zone, lower bound of the autoscaler. */
  minNodes: z.int().min(0).max(1000),
  /** Nodes per zone, upper bound of the autoscaler. */
  maxNodes: z.int().min(1).max(1000),
  /**
   * Spot VMs: up to 91% cheaper, preemptible. GKE cannot change it in place: a spot pool is named
   * `<name>-spot`, so changing it creates the new pool beside the old one, then drains and deletes the
   * old one (in prod, set the pool's protect to false for that change). @default true in dev, false elsewhere
   */
  spot: z.boolean().optional(),
  /** Boot disk size. @default 50 in dev, 100 elsewhere */
  diskSizeGb: z.int().min(10).max(65536).optional(),
  /** Kubernetes labels on the nodes. */
  labels: z.record(z.string(), z.string()).optional(),
  /** Pulumi `protect` on this pool: replacing or removing it needs this off first. @default cluster.protect */
  protect: z.boolean().optional(),
});

export const maintenanceScopes = ["NO_UPGRADES", "NO_MINOR_UPGRADES", "NO_MINOR_OR_NODE_UPGRADES"] as const;

const utcTimestamp = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/, "a UTC time in RFC 3339 such as 2026-12-20T00:00:00Z");

export const maintenanceSchema = z.strictObject({
  /** Days of the weekly window. */
  days: z.array(z.enum(weekdays)).min(1),
  /** Start time, UTC, HH:MM. */
  start: z.string().regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, "a UTC time HH:MM such as 02:00"),
  /** Length of each window in hours. */
  hours: z.int().min(1).max(24),
  /**
   * Periods when GKE must not upgrade automatically (a release freeze, a sale). GKE allows up to 20.
   * @default none
   */
  exclusions: z
    .array(
      z.strictObject({
        /** Names the exclusion in GKE. */
        name: resourceName,
        /** UTC, RFC 3339. */
        start: utcTimestamp,
        /** UTC, RFC 3339; at most 30 days after start for NO_UPGRADES. */
        end: utcTimestamp,
        /** What is held back. @default NO_UPGRADES (nothing changes) */
        scope: z.enum(maintenanceScopes).optional(),
      }),
    )
    .max(20)
    .optional(),
});

export const existingClusterSchema = z.strictObject({
  /** Name of a GKE cluster made elsewhere; the platform reads its endpoint and CA. */
  name: resourceName.optional(),
  /** Zone or region of that cluster. */
  location: checkedString(gcpLocationProblem).optional(),
  /** Path of a kubeconfig file to use instead of name and location (any conformant cluster). */
  kubeconfigPath: z.string().min(1).optional(),
  /** Context inside that kubeconfig. @default its current-context */
  context: z.string().min(1).optional(),
});

export const clusterSchema = z.strictObject({
  /** standard, autopilot, or existing (install onto a cluster made elsewhere). @default standard */
  mode: z.enum(clusterModes).optional(),
  /** Cluster name. @default `gke-<stack>` */
  name: resourceName.optional(),
  /** Zone (zonal cluster) or region (regional). @default `<region>-b` in dev, the region elsewhere and on Autopilot */
  location: checkedString(gcpLocationProblem).optional(),
  /** GKE release channel. @default REGULAR, STABLE in prod */
  releaseChannel: z.enum(releaseChannels).optional(),
  /**
   * The Kubernetes minor the cluster runs at least: GKE's minimum control-plane version for a cluster the
   * platform creates (GKE upgrades further within the channel); for an existing cluster, the minor it
   * runs. It decides the Gateway API version GKE serves. @default the release channel's auto-upgrade
   * target (lib/versions/kubernetes.ts releaseChannelMinors)
   */
  kubernetesVersion: z.enum(supportedMinors).optional(),
  /** GKE's Gateway API channel. @default standard */
  gatewayApi: z.enum(gatewayApiChannels).optional(),
  /** Nodes without public IPs. @default true */
  privateNodes: z.boolean().optional(),
  /** The control plane's IP endpoint reachable only from inside the VPC (needs ipEndpoints). @default false */
  privateEndpoint: z.boolean().optional(),
  /**
   * CIDRs allowed to reach the control plane's IP endpoints (needs ipEndpoints). @default none (any
   * address, IAM still required; warned)
   */
  authorizedNetworks: z.array(z.strictObject({ name: z.string().min(1), cidr })).optional(),
  /**
   * The DNS-based control-plane endpoint: reachable from any network, every request authenticated and
   * authorized by IAM; the kubeconfig uses it. @default true
   */
  dnsEndpoint: z.boolean().optional(),
  /**
   * The control plane's IP endpoints (public and private). @default true when authorizedNetworks or
   * privateEndpoint is set, false otherwise
   */
  ipEndpoints: z.boolean().optional(),
  /**
   * Dataplane V2 (eBPF, network policy enforcement). Chosen when the cluster is created: GKE cannot
   * change it, so later changes are ignored. @default true
   */
  dataplaneV2: z.boolean().optional(),
  /** Managed Service for Prometheus collection. @default true when monitoring.backend is managed-prometheus */
  managedPrometheus: z.boolean().optional(),
  /** NodeLocal DNSCache. @default true */
  nodeLocalDns: z.boolean().optional(),
  /** Backup for GKE agent. @default true in staging and prod, and wherever backups is set */
  backupAgent: z.boolean().optional(),
  /**
   * A Backup for GKE plan: every namespace on a schedule, Secrets and volume data included, encrypted
   * with the platform's KMS key; null for none. Needs backupAgent. @default staging: daily, kept 7 days;
   * prod: daily, kept 30 days and undeletable for 7; dev: none
   */
  backups: z
    .strictObject({
      /** When backups are taken: a cron schedule in UTC. @default "0 22 * * *" */
      schedule: z
        .string()
        .regex(/^\S+( \S+){4}$/, 'a cron schedule of five fields, in UTC, such as "0 22 * * *"')
        .optional(),
      /** Days a backup is kept, then deleted. @default 7, 30 in prod */
      retainDays: z.int().min(1).max(365).optional(),
      /** Days a backup cannot be deleted by anyone. @default 0, 7 in prod */
      deleteLockDays: z.int().min(0).max(90).optional(),
      /** Back up Secrets (encrypted with the platform's key). @default true */
      includeSecrets: z.boolean().optional(),
      /** Back up persistent volumes' data, not only the objects. @default true */
      includeVolumeData: z.boolean().optional(),
    })
    .nullable()
    .optional(),
  /** Application-layer secrets encryption with a Cloud KMS key the platform creates, or one it adopts. */
  secretsEncryption: z
    .strictObject({
      /** @default true */
      enabled: z.boolean().optional(),
      /** Key rotation period in days, for the key the platform creates. @default 90 */
      rotationDays: z.int().min(1).max(36500).optional(),
      /**
       * An existing Cloud KMS key to use instead of creating one (its key ring is never touched); the
       * platform only grants GKE's service agent access. @default none: the platform creates a key ring
       * with a random suffix and a key in it
       */
      key: kmsKeyId.optional(),
    })
    .optional(),
  /** GKE deletion protection. @default true in prod */
  deletionProtection: z.boolean().optional(),
  /**
   * Pulumi `protect` on the cluster, the KMS key the platform creates, the node pools (unless a pool's
   * own `protect` says otherwise) and the backup plan; not on the network. @default true in prod
   */
  protect: z.boolean().optional(),
  /** Weekly maintenance window; null for "any time". @default SA,SU 02:00 UTC for 6h in staging and prod */
  maintenance: maintenanceSchema.nullable().optional(),
  /** GCP labels on the cluster, beside environment (the tier), stack and managed-by. */
  labels: labels
    // `environment` comes from the tier: the prod-protected safety check and the policy pack read it.
    .check(
      valueCheck((l) =>
        "environment" in l
          ? {
              problem: `sets "environment", which the platform sets from platform:tier`,
              allowed: "GCP labels other than environment, such as team: payments",
              fix: (path) => `remove environment from ${path}; platform:tier sets it`,
            }
          : undefined,
      ),
    )
    .optional(),
  /** Node pools (Standard mode). @default one autoscaled pool sized per tier */
  nodePools: z.array(nodePoolSchema).min(1).optional(),
  /**
   * Artifact Registry repositories nodes pull images from, `<location>/<repository>` or
   * `projects/<project>/locations/<location>/repositories/<repository>`: read access on each alone.
   * @default none: read access to every repository of the project
   */
  imageRepositories: z
    .array(
      z
        .string()
        .regex(
          /^(projects\/[a-z][-a-z0-9]{4,28}[a-z0-9]\/locations\/[a-z0-9-]+\/repositories\/[a-z][-a-z0-9]{0,62}|[a-z0-9-]+\/[a-z][-a-z0-9]{0,62})$/,
          "an Artifact Registry repository such as europe-west1/images or projects/acme-shared/locations/europe/repositories/images",
        ),
    )
    .min(1)
    .optional(),
  /** Roles for the node service account beyond GKE's node role and image pulls, e.g. roles/secretmanager.secretAccessor. */
  nodeServiceAccountRoles: z
    .array(z.string().regex(/^roles\/[a-zA-Z0-9_.]+$/, "a role such as roles/artifactregistry.reader"))
    .optional(),
  /**
   * Enable the Google Cloud APIs the cluster and its load balancers use (never disabled on destroy), and
   * create GKE's service agent, before anything that needs them: a fresh project works on the first
   * `pulumi up`. @default true for the clusters the platform creates
   */
  enableApis: z.boolean().optional(),
  /** GKE cost allocation: namespace and label costs in the billing export. @default true */
  costAllocation: z.boolean().optional(),
  /** GKE security posture: workload configuration auditing (basic) in the console. @default basic */
  securityPosture: z.enum(["basic", "disabled"]).optional(),
  /**
   * Binary Authorization: `enforce` admits only images the project's policy allows (its default policy
   * allows all, until the security team narrows it). @default enforce in staging and prod, disabled in dev
   */
  binaryAuthorization: z.enum(["enforce", "disabled"]).optional(),
  /**
   * Let the Kubernetes provider drop from Pulumi state the objects of a cluster it cannot reach, e.g.
   * one deleted or recreated outside Pulumi (docs/gke.md); turn it on for that one `pulumi refresh`.
   * @default false
   */
  deleteUnreachable: z.boolean().optional(),
  /** Autopilot settings. */
  autopilot: z
    .strictObject({
      /** Allow NET_ADMIN for mesh init containers. @default true when a sidecar mesh without CNI is chosen */
      allowNetAdmin: z.boolean().optional(),
    })
    .optional(),
  /** Existing-cluster mode: which cluster. */
  existing: existingClusterSchema.optional(),
});

export const meshSchema = z.strictObject({
  /** Service mesh. @default linkerd */
  kind: z.enum(meshKinds).optional(),
  /**
   * Redirect traffic with the mesh's CNI plugin instead of a privileged init container, so app
   * namespaces enforce baseline (Istio) or restricted (Linkerd) Pod Security. @default true on Standard
   * clusters and with Istio ambient; false on Autopilot (it admits no CNI plugin) and on clusters made
   * elsewhere (they may be Autopilot)
   */
  cni: z.boolean().optional(),
  /** Istio data plane. @default sidecar */
  dataplane: z.enum(istioDataplanes).optional(),
  /** Proxies as native sidecars (Kubernetes 1.29+), which Kubernetes stops when a Job's app exits. @default true */
  nativeSidecars: z.boolean().optional(),
  /**
   * The mesh's control plane with several replicas, anti-affinity and disruption budgets, and a failing
   * injector webhook. @default sizing.highAvailability (true in prod)
   */
  highAvailability: z.boolean().optional(),
  /** The mesh dashboard (linkerd-viz), reading the stack's Prometheus. @default false */
  dashboard: z.boolean().optional(),
  /**
   * Export traces from the proxies and control plane to an OpenTelemetry collector (Linkerd's
   * proxy.tracing; linkerd-jaeger no longer exists). The collector's mesh identity lets proxies verify it.
   */
  tracing: z
    .strictObject({
      /** OTLP gRPC endpoint, host:port, e.g. collector.tracing.svc.cluster.local:4317. */
      collectorEndpoint: z
        .string()
        .regex(/^[a-z0-9.-]+:[0-9]{1,5}$/, "host:port such as collector.tracing.svc.cluster.local:4317"),
      /**
       * The collector's service account and namespace, its identity in the mesh: both are needed (Linkerd's
       * chart refuses tracing without them); the schema leaves them optional so the plan can say why.
       */
      serviceAccount: z.string().min(1).optional(),
      /** The collector's namespace. */
      namespace: z.string().min(1).optional(),
    })
    .optional(),
  /** Istio options. */
  istio: z
    .strictObject({
      /**
       * istiod revisions, each with a pinned Istio version; two during a canary upgrade. The revision
       * `default` is the istiod installed without a revision (release `istiod`, namespaces labelled
       * istio-injection=enabled), which a move to revisions keeps until every namespace has moved
       * (docs/istio.md). Without this, that one istiod at the pinned version.
       */
      revisions: z.array(istioRevisionSchema).min(1).max(2).optional(),
      /** The revision app namespaces are injected by (istio.io/rev; istio-injection for `default`). @default the first revision */
      defaultRevision: istioRevisionName.optional(),
      /** Mesh-wide mTLS. @default STRICT in staging and prod, PERMISSIVE in dev */
      mtls: z.enum(["STRICT", "PERMISSIVE"]).optional(),
      /**
       * How a Google load balancer's traffic, which reaches pods outside the mesh, enters it:
       * `permissive-ports` lets the exposed port accept plain traffic. @default permissive-ports
       */
      loadBalancerTraffic: z.enum(["permissive-ports"]).optional(),
    })
    .optional(),
  /**
   * App namespaces where the mesh refuses every call no authorization rule allows (docs/mesh-policy.md).
   * Probes, metrics scrapes and the app's ingress still get through. @default none
   */
  denyByDefault: z.array(resourceName).min(1).optional(),
  /**
   * During a trust anchor rotation, also trust the previous anchor's certificate: the Secret
   * `linkerd-previous-anchor` (Linkerd, docs/linkerd.md) or `istio-previous-root-ca` (Istio, docs/istio.md),
   * key `tls.crt`, in cert-manager's namespace. @default false
   */
  previousTrustAnchor: z.boolean().optional(),
});

/**
 * Isolation of app namespaces from each other (docs/mesh-policy.md, "Namespace isolation"). An isolated
 * namespace takes calls from its own pods, from the ingress, monitoring and mesh the platform runs, and
 * from the callers its apps' authorization rules name; nothing else from other namespaces. Two layers
 * enforce it: a NetworkPolicy, and the mesh's authorization where the mesh enforces per-request policy
 * (Linkerd; Istio's sidecars).
 */
export const isolationSchema = z.strictObject({
  /** Isolate every app namespace but those in `except`. @default true in staging and prod, false in dev */
  enabled: z.boolean().optional(),
  /**
   * App namespaces left open to every namespace: no NetworkPolicy, and no mesh policy unless
   * mesh.denyByDefault names them. @default none
   */
  except: z.array(resourceName).min(1).optional(),
});

export const crdOwnerDeclarations = ["platform", "pre-installed"] as const;

/** Who owns CRD families the platform cannot decide alone. Everything else is derived (lib/crds). */
export const crdsSchema = z.strictObject({
  /**
   * Gateway API CRDs when GKE's channel is disabled: the platform installs the pinned upstream
   * bundle, or they are pre-installed. @default platform
   */
  gatewayApi: z.enum(crdOwnerDeclarations).optional(),
  /**
   * The pinned upstream `standard-install.yaml` (versions.gatewayApi), downloaded, when the platform
   * installs the Gateway API itself. Each CRD becomes its own resource, retained on delete.
   */
  gatewayApiBundleFile: z.string().min(1).optional(),
  /**
   * Prometheus Operator CRDs: `platform` (kube-prometheus-stack's, only with monitoring.backend
   * prometheus) or `pre-installed` (an existing operator's; not with backend prometheus). @default
   * platform with backend prometheus, pre-installed with existing-prometheus, none otherwise
   */
  prometheusOperator: z.enum(crdOwnerDeclarations).optional(),
});

/** Ways an app can be exposed: the in-cluster controller of ingress.kind, or one of GKE's own load balancers. */
export const exposurePaths = ["gke-gateway", "traefik", "ingress-nginx", "gce-ingress"] as const;
export const httpMethods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

export const ingressSchema = z.strictObject({
  /** How traffic enters the cluster. @default gke-gateway */
  kind: z.enum(ingressKinds).optional(),
  /** GatewayClass of the shared Gateway. @default gke-l7-global-external-managed */
  gatewayClass: z.enum(gatewayClasses).optional(),
  /**
   * TLS on Google's load balancers: `managed` has the platform create a Google-managed certificate
   * per exposed host (Certificate Manager for GKE Gateway, ManagedCertificate for GCE Ingress);
   * `pre-shared` names existing Compute SSL certificates. @default managed
   */
  tls: z
    .strictObject({
      mode: z.enum(["managed", "pre-shared"]),
      /** Compute SSL certificate names, with mode pre-shared. */
      certificates: z.array(z.string().min(1)).optional(),
    })
    .optional(),
  /** Reserve a static IP (NamedAddress) for the Gateway or GCE Ingress. @default true */
  staticIp: z.boolean().optional(),
  /** Lowest TLS version the load balancer accepts. @default TLS_1_2 */
  minTlsVersion: z.enum(["TLS_1_2", "TLS_1_3"]).optional(),
  /** Seconds a backend that left the load balancer keeps finishing in-flight requests. @default 30 */
  drainingTimeoutSeconds: z.int().min(0).max(3600).optional(),
  /** Request logs of Google's load balancers (GKE Gateway, GCE Ingress) in Cloud Logging. */
  requestLogging: z
    .strictObject({
      /** @default true in prod */
      enabled: z.boolean().optional(),
      /** Share of requests logged, 0 to 1. @default 1 */
      sampleRate: z.number().min(0).max(1).optional(),
    })
    .optional(),
  /** Health-check logs of GKE Gateway backends (only changes of health are logged). @default true */
  healthCheckLogging: z.boolean().optional(),
  /** Let's Encrypt certificates for Traefik and ingress-nginx, through cert-manager. */
  acme: z
    .strictObject({
      email: z.email("an email address such as ops@example.com"),
      /** http01 through the ingress, or dns01 in Cloud DNS with Workload Identity. @default http01 */
      solver: z.enum(["http01", "dns01"]).optional(),
      /** Let's Encrypt's staging directory, for trying things out. @default false */
      staging: z.boolean().optional(),
    })
    .optional(),
});

export const monitoringSchema = z.strictObject({
  /** Where metrics go. @default prometheus */
  backend: z.enum(monitoringBackends).optional(),
  /**
   * Labels on every PodMonitor, matching the Prometheus's podMonitorSelector.
   * @default { release: kube-prometheus-stack }, what the platform's kube-prometheus-stack selects
   */
  selectorLabels: z.record(z.string(), z.string()).optional(),
  /** Query URL of an existing Prometheus (existing-prometheus), for the mesh dashboard. */
  prometheusUrl: z.url("a URL such as http://prometheus.monitoring.svc:9090").optional(),
  /** The mesh's Grafana dashboards in the platform's Grafana (backend prometheus). @default false */
  meshDashboards: z.boolean().optional(),
});

// Gateway API Duration (GEP-2257), the format of HTTPRoute timeouts.
const duration = z
  .string()
  .regex(/^([0-9]{1,5}(h|m|s|ms)){1,4}$/, "a Gateway API duration such as 500ms, 10s or 1m30s");
/**
 * A request path as mesh routes and authorization rules match it: `/authors.json` is that exact path,
 * `/authors/*` is every path under `/authors` (a prefix, whole segments). Both meshes read both forms.
 */
export const meshPath = z
  .string()
  .regex(
    /^(\/[-A-Za-z0-9/._~!$&'()+,;=:@%]*|\/([-A-Za-z0-9/._~!$&'()+,;=:@%]*\/)?\*)$/,
    "an exact path such as /authors.json, or a prefix ending in /* such as /authors/* (a * elsewhere is not matchable by both meshes)",
  );
const headerName = z
  .string()
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, "an HTTP header name such as x-request-id");

export const meshRouteSchema = z.strictObject({
  /** Names the HTTPRoute `<app>-<name>`, and the route in the mesh's metrics. */
  name: resourceName,
  /** Requests this route takes: any match may apply; within one, all conditions must. @default every request */
  matches: z
    .array(
      z.strictObject({
        path: meshPath.optional(),
        method: z.enum(httpMethods).optional(),
        /** Exact header values, e.g. `x-request-id: alternative`. */
        headers: z
          .record(headerName, z.string().min(1))
          .check(
            valueCheck((h) =>
              Object.keys(h).length > 16
                ? {
                    problem: `has ${Object.keys(h).length} headers; the HTTPRoute CRD allows at most 16 in one match`,
                    allowed: "at most 16 headers, such as x-request-id: alternative",
                    fix: (path) => `split ${path} over several matches of at most 16 headers each`,
                  }
                : undefined,
            ),
          )
          .optional(),
      }),
    )
    .min(1)
    .max(8)
    .optional(),
  /** Apps in the same namespace the requests go to, by weight (a canary). @default this app */
  backends: z
    .array(
      z.strictObject({
        app: resourceName,
        /** That app's Service port. @default its port */
        port: z.int().min(1).max(65535).optional(),
        /** Share relative to the other backends. @default 1 */
        weight: z.int().min(0).max(1000).optional(),
      }),
    )
    .min(1)
    .max(16)
    .optional(),
  /** HTTPRoute timeouts: `request` end to end, `backendRequest` per try. */
  timeouts: z.strictObject({ request: duration.optional(), backendRequest: duration.optional() }).optional(),
  /** Retry failed requests (Linkerd). Only for idempotent requests. */
  retry: z
    .strictObject({
      /** Statuses that are retried: 5xx, gateway-error, a code such as 503, or a range such as 500-504. */
      on: z
        .array(
          z
            .string()
            .regex(
              /^(5xx|gateway-error|[1-5][0-9]{2}(-[1-5][0-9]{2})?)$/,
              "5xx, gateway-error, a status such as 503, or a range such as 500-504",
            ),
        )
        .min(1),
      /** Retries after the first try. @default 1 */
      attempts: z.int().min(1).max(10).optional(),
      /** Time limit of each try. */
      timeout: duration.optional(),
    })
    .optional(),
  /** Fault injection: this share of the route's requests goes to a backend that answers `status`. */
  fault: z
    .strictObject({
      percent: z.int().min(1).max(100),
      /** @default 500 */
      status: z.int().min(400).max(599).optional(),
    })
    .optional(),
});

export const accessRuleSchema = z.strictObject({
  /**
   * Who may call: an app of the same namespace by name (`webapp`), or any service account as
   * `<namespace>/<service account>`. Callers are identified by their mesh identity (mTLS).
   */
  from: z
    .array(
      z
        .string()
        .regex(
          /^([a-z0-9]([-a-z0-9]*[a-z0-9])?\/)?[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/,
          "an app name such as webapp, or <namespace>/<service account>",
        ),
    )
    .min(1)
    .max(16),
  /** @default every method */
  methods: z.array(z.enum(httpMethods)).min(1).optional(),
  /** @default every path */
  paths: z.array(meshPath).min(1).max(16).optional(),
});

export const appMeshSchema = z.strictObject({
  /** Routes for calls to this app's Service through the mesh (HTTPRoutes with the Service as parent). */
  routes: z.array(meshRouteSchema).min(1).max(16).optional(),
  /**
   * Who may call which requests of this app. With rules, everything else is refused; probes, metrics
   * scrapes and the app's ingress still get through.
   */
  authorization: z.strictObject({ rules: z.array(accessRuleSchema).min(1).max(32) }).optional(),
});

export const appSchema = z.strictObject({
  name: resourceName,
  /** @default the app's name */
  namespace: resourceName.optional(),
  image: checkedString(imageReferenceProblem),
  port: z.int().min(1).max(65535),
  /** @default 1 in dev, 2 elsewhere */
  replicas: z.int().min(1).max(1000).optional(),
  /**
   * A path on the app's port that answers while the process itself works, without asking its
   * dependencies: an HTTP liveness probe on it restarts a hung process. @default none: no liveness
   * probe (Kubernetes restarts the container when its process exits); never the readiness path
   */
  livenessPath: z.string().startsWith("/", "a path starting with /, such as /livez").optional(),
  /** Prometheus metrics on the app's port, scraped by the environment's monitoring. */
  metrics: z
    .strictObject({ path: z.string().startsWith("/", "a path starting with /, such as /metrics") })
    .optional(),
  /** Expose through the environment's ingress. */
  expose: z
    .strictObject({
      host: checkedString(hostNameProblem),
      /** @default / */
      path: z.string().startsWith("/", "a path starting with /, such as /shop").optional(),
      /** Which ways; list two during an Ingress-to-Gateway migration. @default [ingress.kind] */
      via: z.array(z.enum(exposurePaths)).min(1).optional(),
      /** Longest a request may take end to end. @default 30 */
      timeoutSeconds: z.int().min(1).max(86400).optional(),
      /** The app's readiness path, which load balancers health-check. @default / */
      healthCheckPath: z.string().startsWith("/", "a path starting with /, such as /healthz").optional(),
      /** Remove `path` before the request reaches the app. @default false */
      stripPrefix: z.boolean().optional(),
      /** Only these methods are routed. @default all */
      methods: z.array(z.enum(httpMethods)).min(1).optional(),
      /**
       * A Cloud Armor security policy (its name) in front of the app on Google's load balancers: a global
       * policy for global Gateway classes and GCE Ingress, a regional one for regional classes. @default none
       */
      securityPolicy: z
        .string()
        .regex(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/, "a Cloud Armor security policy name such as shop-waf")
        .optional(),
    })
    .optional(),
  /** East-west traffic policy in the mesh: routes and authorization (docs/mesh-policy.md). */
  mesh: appMeshSchema.optional(),
});

/** Changes to what the platform installs, without forking it. */
export const overridesSchema = z.strictObject({
  /** Values deep-merged over the platform's for a Helm release, by release name. */
  charts: z
    .record(
      z.string(),
      z.strictObject({
        values: z.record(z.string(), z.unknown()),
        /** Take over CRD flags that CRD ownership decides. @default false */
        overrideCrdFlags: z.boolean().optional(),
      }),
    )
    .optional(),
});

/**
 * Where every Helm release's chart comes from: each chart's upstream repository, a mirror, or a local
 * folder (docs/upgrades.md, "Where charts come from").
 */
export const chartSourceSchema = z.strictObject({
  /**
   * A mirror holding every chart at its pinned version: an OCI registry (`oci://host/path`, each chart at
   * `<mirror>/<chart>:<version>`, such as Artifact Registry) or an HTTPS Helm repository. @default none:
   * each chart's upstream repository
   */
  mirror: z
    .string()
    .regex(
      /^(oci|https):\/\/[^\s/]+(\/[^\s]*)?$/,
      "an oci:// registry path or an https:// Helm repository, such as oci://europe-docker.pkg.dev/acme/charts",
    )
    .optional(),
  /**
   * A folder of the pinned charts, relative to the program's folder, as `helm pull` writes them: each
   * `<chart>-<version>.tgz`, or unpacked (`helm pull --untar --untardir <folder>/<chart>-<version>`).
   * @default none
   */
  folder: z.string().min(1).optional(),
  /**
   * The sha256 digest each pinned chart must have, by chart name (`istiod`, `cert-manager`): Helm checks
   * it against an OCI mirror, the platform against a folder's `.tgz`. An HTTPS repository cannot be
   * checked. @default none
   */
  digests: z.record(z.string(), chartDigest).optional(),
});

/** Everything one environment sets. Top-level keys are Pulumi config keys (`platform:<key>`). */
export const environmentInputSchema = z.strictObject({
  /** Which tier's defaults apply. */
  tier: z.enum(tiers),
  /** Read from the provider's `gcp:project` and `gcp:region`. */
  gcp: gcpSchema,
  network: networkSchema.optional(),
  cluster: clusterSchema.optional(),
  mesh: meshSchema.optional(),
  /** Which app namespaces only take calls from other namespaces that are allowed (docs/mesh-policy.md). */
  isolation: isolationSchema.optional(),
  ingress: ingressSchema.optional(),
  monitoring: monitoringSchema.optional(),
  crds: crdsSchema.optional(),
  chartSource: chartSourceSchema.optional(),
  apps: z.array(appSchema).optional(),
  /** Replicas, requests and limits of what the platform installs (docs/configuration.md, "Sizing"). */
  sizing: sizingSchema.optional(),
  overrides: overridesSchema.optional(),
});

export type EnvironmentInput = z.infer<typeof environmentInputSchema>;
