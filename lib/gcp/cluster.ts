import * as gcp from "@pulumi/gcp";
import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import {
  ConfigError,
  checkRules,
  nodePoolName,
  parseInput,
  resolveConfig,
  type EnvironmentInput,
  type Maintenance,
  type NodePool,
  type PlatformConfig,
  type Tier,
} from "../config";
import { createKubernetesProvider, gkeKubeconfigOutput } from "./kubernetesProvider";
import { Network, podsRangeName, servicesRangeName } from "./network";
import { NodeServiceAccount, nodeAccountId } from "./nodeServiceAccount";
import { ProjectServices, clusterApis, serviceAgentApis, serviceAgentMember } from "./projectServices";
import { SecretsKey } from "./secretsKey";

/** What the rest of the platform needs from a cluster, whoever made it. */
export interface ClusterAccess {
  readonly clusterName: pulumi.Output<string>;
  readonly location: pulumi.Output<string>;
  readonly endpoint: pulumi.Output<string>;
  /** Secret. */
  readonly kubeconfig: pulumi.Output<string>;
  /** `CHANNEL_STANDARD` when GKE owns the Gateway API CRDs. */
  readonly gatewayApiChannel: pulumi.Output<string>;
  readonly provider: k8s.Provider;
}

/** A cluster section with every default applied (`platform:cluster`, resolved). */
export type ClusterSettings = PlatformConfig["cluster"];

/** A network section with every default applied (`platform:network`, resolved). */
export type NetworkSettings = PlatformConfig["network"];

/** `platform:cluster` as a stack file holds it: every field optional, each default documented (docs/gke.md). */
export type ClusterInput = NonNullable<EnvironmentInput["cluster"]>;

/** `platform:network` as a stack file holds it: every range optional (docs/gke.md). */
export type NetworkInput = NonNullable<EnvironmentInput["network"]>;

export interface GkeClusterArgs {
  /** The Google Cloud project that holds the cluster, its network, KMS key and node service account. */
  readonly project: string;
  /** The region of the network, the KMS key and the Cloud NAT; a zonal cluster's zone is `cluster.location`. */
  readonly region: string;
  /**
   * The tier whose defaults the cluster gets where `cluster` says nothing (docs/configuration.md,
   * "Tiers"): release channel, zonal or regional, deletion protection, maintenance window, backups,
   * Binary Authorization and the node pool. Not read with `settings`.
   * @default "prod": the defaults that keep a cluster, a destroy refused and a regional control plane;
   * "dev" for a cheap zonal one
   */
  readonly tier?: Tier;
  /**
   * The cluster as `platform:cluster` says it (mode, location, node pools, security settings), each
   * field left out taking the default an environment config gets: the cluster is named after the
   * component; private nodes, Workload Identity, Dataplane V2, the Gateway API's standard channel,
   * secrets encrypted with a key of its own, the DNS endpoint. Refused with a `ConfigError` for what
   * a stack file would be refused for. Not read with `settings`.
   * @default every field's default (docs/gke.md)
   */
  readonly cluster?: ClusterInput;
  /**
   * The VPC's name and its node, pod, Service, proxy-only and control-plane ranges, as `platform:network`
   * says them. Not read with `settings`.
   * @default `<cluster name>-vpc` with 10.0.0.0/20 nodes, 10.4.0.0/14 pods, 10.8.0.0/20 Services,
   * 10.9.0.0/23 proxy-only and 172.16.0.0/28 for the control plane: RFC 1918 ranges that do not overlap
   */
  readonly network?: NetworkInput;
  /**
   * The cluster and network already resolved and checked, as a plan holds them (`plan.config.cluster`,
   * `plan.config.network`): what `Platform` passes. `tier`, `cluster` and `network` must be left out.
   * @default resolved here from `tier`, `cluster` and `network`
   */
  readonly settings?: { readonly cluster: ClusterSettings; readonly network: NetworkSettings };
  /**
   * TCP ports GKE's control plane must reach on nodes for admission webhooks (a plan's `webhookPorts`).
   * @default [] (no firewall rule)
   */
  readonly webhookPorts?: readonly number[];
  /**
   * Create the proxy-only subnet that regional and internal Gateway classes need (a plan's `proxyOnlySubnet`).
   * @default false
   */
  readonly proxyOnlySubnet?: boolean;
  /**
   * APIs to enable beside the cluster's own (`clusterApis`) when `cluster.enableApis` is on, e.g. what the
   * load balancers' edge uses (`edgeApis`). Every resource that uses them waits for `apis`.
   * @default []
   */
  readonly apis?: readonly string[];
}

/** What a GKE cluster's arguments are built from: the project, and the cluster and network resolved. */
export interface GkeClusterConfig {
  readonly project: string;
  readonly cluster: ClusterSettings;
  readonly network: NetworkSettings;
}

/**
 * The cluster and network of a `GkeCluster`: `settings` as given, or `cluster` and `network` resolved
 * with the defaults and checked by the rules an environment config gets (lib/config), as an environment
 * of `tier` with nothing else set, named after the component.
 */
export function gkeClusterSettings(name: string, args: GkeClusterArgs): GkeClusterConfig {
  if (args.settings) {
    const given = (["tier", "cluster", "network"] as const).filter((k) => args[k] !== undefined);
    if (given.length > 0)
      throw new Error(
        `GkeCluster ${name}: ${given.join(", ")} set beside settings, which are already resolved; pass one or the other`,
      );
    return { project: args.project, ...args.settings };
  }
  // The safe tier when none is said: deletion protection, a regional control plane, a maintenance window.
  const tier = args.tier ?? "prod";
  const input = parseInput({
    tier,
    gcp: { project: args.project, region: args.region },
    cluster: { name, ...args.cluster },
    ...(args.network ? { network: args.network } : {}),
  });
  const config = resolveConfig(input, pulumi.getStack());
  const problems = checkRules(input, config);
  if (problems.length > 0) throw new ConfigError(problems);
  return { project: args.project, cluster: config.cluster, network: config.network };
}

/** What the cluster's arguments refer to. */
export interface ClusterDependencies {
  readonly networkId: pulumi.Input<string>;
  readonly subnetId: pulumi.Input<string>;
  readonly nodeServiceAccount: pulumi.Input<string>;
  /** Absent when secrets encryption is off. */
  readonly secretsKeyId?: pulumi.Input<string>;
}

const cloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform";

/** The network tag on every node; the webhook firewall rule targets it. */
export function nodeTagFor(clusterName: string): string {
  return `${clusterName}-node`;
}

/**
 * A GKE cluster in Standard or Autopilot mode, with its network, secrets-encryption key, least-privilege
 * node service account, node pools and the Kubernetes provider for everything installed on it. On its
 * own it needs a project and a region: every other setting takes an environment config's default
 * (docs/gke.md, "On its own").
 */
export class GkeCluster extends pulumi.ComponentResource implements ClusterAccess {
  readonly clusterName: pulumi.Output<string>;
  readonly location: pulumi.Output<string>;
  readonly endpoint: pulumi.Output<string>;
  readonly kubeconfig: pulumi.Output<string>;
  readonly gatewayApiChannel: pulumi.Output<string>;
  readonly workloadIdentityPool: pulumi.Output<string>;
  readonly networkId: pulumi.Output<string>;
  readonly subnetId: pulumi.Output<string>;
  readonly provider: k8s.Provider;
  /** The enabled APIs and service agents; empty with `cluster.enableApis` off. Resources outside that use the APIs wait for them. */
  readonly apis: readonly pulumi.Resource[];

  constructor(name: string, args: GkeClusterArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:gcp:GkeCluster", name, {}, opts);
    const config = gkeClusterSettings(name, args);
    const c = config.cluster;
    if (c.mode === "existing")
      throw new Error("GkeCluster builds clusters; use ExistingCluster for mode existing");
    const region = args.region;

    // On a fresh project nothing works before its APIs: everything below waits for them.
    const services = c.enableApis
      ? new ProjectServices(
          `${name}-apis`,
          { project: config.project, services: [...clusterApis(c), ...(args.apis ?? [])] },
          { parent: this },
        )
      : undefined;
    const apis = services?.ready ?? [];
    const parent = { parent: this, dependsOn: [...apis] };
    // Service agents: created with the APIs (so their bindings wait for them), or named from the project number.
    let projectNumber: pulumi.Output<string> | undefined;
    const agent = (api: (typeof serviceAgentApis)[number]): pulumi.Output<string> => {
      const created = services?.agents.get(api);
      if (created) return created.member;
      projectNumber ??= gcp.organizations.getProjectOutput(
        { projectId: config.project },
        { parent: this },
      ).number;
      return serviceAgentMember(api, projectNumber);
    };

    const network = new Network(
      `${name}-network`,
      {
        project: config.project,
        region,
        network: config.network,
        privateNodes: c.privateNodes,
        nodeTag: nodeTagFor(c.name),
        webhookPorts: args.webhookPorts ?? [],
        proxyOnlySubnet: args.proxyOnlySubnet ?? false,
      },
      parent,
    );

    const nodeAccount = new NodeServiceAccount(
      `${name}-nodes-sa`,
      {
        project: config.project,
        accountId: nodeAccountId(c.name),
        extraRoles: c.nodeServiceAccountRoles,
        imageRepositories: c.imageRepositories,
      },
      parent,
    );

    const key = c.secretsEncryption.enabled
      ? new SecretsKey(
          `${name}-secrets`,
          {
            project: config.project,
            location: region,
            rotationDays: c.secretsEncryption.rotationDays,
            protect: c.protect,
            existingKey: c.secretsEncryption.key,
            // Backups are encrypted with the same key, by Backup for GKE's agent.
            members: {
              "gke-agent": agent("container.googleapis.com"),
              ...(c.backups ? { "backup-agent": agent("gkebackup.googleapis.com") } : {}),
            },
          },
          parent,
        )
      : undefined;

    const deps: ClusterDependencies = {
      networkId: network.networkId,
      subnetId: network.subnetId,
      nodeServiceAccount: nodeAccount.email,
      secretsKeyId: key?.keyId,
    };
    const clusterArgs =
      c.mode === "autopilot" ? autopilotClusterArgs(config, deps) : standardClusterArgs(config, deps);
    const cluster = new gcp.container.Cluster(name, clusterArgs, {
      ...parent,
      protect: c.protect,
      // GKE checks the key's IAM on create; without the binding first, creation fails.
      dependsOn: [...apis, ...(key?.bindings ?? [])],
      ignoreChanges: c.mode === "standard" ? standardIgnoredChanges : [],
    });

    const pools =
      c.mode === "standard"
        ? c.nodePools.map(
            (pool) =>
              new gcp.container.NodePool(
                `${name}-${pool.name}`,
                nodePoolArgs(config, pool, cluster.name, nodeAccount.email),
                { ...parent, ...nodePoolOptions(pool), dependsOn: [...apis, ...nodeAccount.bindings] },
              ),
          )
        : [];

    if (c.backups) {
      new gcp.gkebackup.BackupPlan(
        `${name}-backups`,
        backupPlanArgs(config, region, cluster.id, key?.keyId),
        {
          ...parent,
          dependsOn: [...apis, ...(key?.bindings ?? [])],
          // Backups outlive the cluster (restoring after a destroy is what they are for), so a destroy
          // forgets the plan and its backups expire by their retention; the plan takes Pulumi's
          // auto-name (a random suffix), so the next `pulumi up` never collides with it.
          retainOnDelete: true,
          protect: c.protect,
        },
      );
    }

    this.clusterName = cluster.name;
    this.location = cluster.location;
    // The DNS endpoint serves a publicly trusted certificate, so its kubeconfig carries no CA.
    this.endpoint = c.dnsEndpoint
      ? cluster.controlPlaneEndpointsConfig.apply((e) => e?.dnsEndpointConfig?.endpoint ?? "")
      : cluster.endpoint;
    this.kubeconfig = gkeKubeconfigOutput({
      contextName: pulumi.interpolate`gke_${config.project}_${cluster.location}_${cluster.name}`,
      endpoint: this.endpoint,
      caCertificate: c.dnsEndpoint ? undefined : cluster.masterAuth.clusterCaCertificate,
    });
    this.gatewayApiChannel = cluster.gatewayApiConfig.apply((g) => g?.channel ?? "CHANNEL_DISABLED");
    this.workloadIdentityPool = pulumi.output(`${config.project}.svc.id.goog`);
    this.networkId = network.networkId;
    this.subnetId = network.subnetId;
    this.apis = apis;
    this.provider = createKubernetesProvider(
      `${name}-k8s`,
      { kubeconfig: this.kubeconfig, clusterIdentifier: cluster.id, deleteUnreachable: c.deleteUnreachable },
      // In-cluster resources wait for nodes to schedule on, not just for the control plane.
      { parent: this, dependsOn: pools },
    );

    this.registerOutputs({
      clusterName: this.clusterName,
      location: this.location,
      endpoint: this.endpoint,
      kubeconfig: this.kubeconfig,
      gatewayApiChannel: this.gatewayApiChannel,
      workloadIdentityPool: this.workloadIdentityPool,
      networkId: this.networkId,
      subnetId: this.subnetId,
    });
  }
}

/**
 * What a Standard cluster keeps from its creation. The default pool's nodeConfig is only used for the
 * pool GKE removes at once; its later drift must not replace the cluster (safer-cluster's
 * beta-private-cluster/cluster.tf and Fabric's gke-cluster-standard/main.tf ignore it too). GKE sets the
 * datapath only at creation (a change recreates the cluster), so a cluster made with the legacy datapath
 * and Calico keeps both when the default becomes Dataplane V2.
 */
export const standardIgnoredChanges = [
  "nodeConfig",
  "datapathProvider",
  "networkPolicy",
  "addonsConfig.networkPolicyConfig",
];

/** Arguments both modes share: the security posture and the GKE features the platform relies on. */
function commonClusterArgs(config: GkeClusterConfig, deps: ClusterDependencies): gcp.container.ClusterArgs {
  const c = config.cluster;
  return {
    name: c.name,
    project: config.project,
    location: c.location,
    network: deps.networkId,
    subnetwork: deps.subnetId,
    // VPC-native: Google load balancers target pods through NEGs, so they see pod readiness and never
    // route through kube-proxy to a pod that is shutting down.
    networkingMode: "VPC_NATIVE",
    ipAllocationPolicy: {
      clusterSecondaryRangeName: podsRangeName,
      servicesSecondaryRangeName: servicesRangeName,
    },
    releaseChannel: { channel: c.releaseChannel },
    // Only where the config names a minor: otherwise the channel decides (GKE rejects a minimum outside it).
    ...(c.kubernetesVersion ? { minMasterVersion: c.kubernetesVersion } : {}),
    // GKE installs and upgrades the standard-channel Gateway API CRDs; no chart may install them.
    gatewayApiConfig: { channel: c.gatewayApi === "standard" ? "CHANNEL_STANDARD" : "CHANNEL_DISABLED" },
    privateClusterConfig: c.privateNodes
      ? {
          enablePrivateNodes: true,
          // With the IP endpoints off GKE reports the private endpoint as on; saying so avoids a permanent
          // diff (cloud-foundation-fabric modules/gke-cluster-standard/main.tf `private_cluster_config`).
          enablePrivateEndpoint: c.privateEndpoint || !c.ipEndpoints,
          masterIpv4CidrBlock: config.network.controlPlaneCidr,
          // Lets CI runners in other regions of the VPC reach a private endpoint.
          masterGlobalAccessConfig: { enabled: true },
        }
      : undefined,
    controlPlaneEndpointsConfig: {
      // The DNS endpoint: every request is authenticated and authorized by IAM, from any network, so
      // `pulumi up` from CI needs no allow-list (cloud.google.com/kubernetes-engine/docs/concepts/network-isolation).
      dnsEndpointConfig: { allowExternalTraffic: c.dnsEndpoint },
      // IP endpoints only where the config needs them (authorized networks, the private endpoint).
      ipEndpointsConfig: { enabled: c.ipEndpoints },
    },
    masterAuthorizedNetworksConfig:
      c.authorizedNetworks.length > 0
        ? { cidrBlocks: c.authorizedNetworks.map((n) => ({ cidrBlock: n.cidr, displayName: n.name })) }
        : undefined,
    databaseEncryption:
      c.secretsEncryption.enabled && deps.secretsKeyId !== undefined
        ? { state: "ENCRYPTED", keyName: deps.secretsKeyId }
        : { state: "DECRYPTED" },
    monitoringConfig: {
      enableComponents: ["SYSTEM_COMPONENTS"],
      managedPrometheus: { enabled: c.managedPrometheus },
    },
    maintenancePolicy: c.maintenance ? maintenancePolicy(c.maintenance) : undefined,
    resourceLabels: c.labels,
    deletionProtection: c.deletionProtection,
    // Costs per namespace and label in the billing export (Fabric's cost_management default).
    costManagementConfig: { enabled: c.costAllocation },
    securityPostureConfig: {
      mode: c.securityPosture === "basic" ? "BASIC" : "DISABLED",
      // Both scanning tiers are retired (cloud.google.com/kubernetes-engine/docs/deprecations/posture-management-deprecation).
      vulnerabilityMode: "VULNERABILITY_DISABLED",
    },
    binaryAuthorization: {
      evaluationMode: c.binaryAuthorization === "enforce" ? "PROJECT_SINGLETON_POLICY_ENFORCE" : "DISABLED",
    },
  };
}

/** A Standard cluster: the platform's own node pools, least-privilege nodes, hardened defaults. */
export function standardClusterArgs(
  config: GkeClusterConfig,
  deps: ClusterDependencies,
): gcp.container.ClusterArgs {
  const c = config.cluster;
  return {
    ...commonClusterArgs(config, deps),
    // Node pools are separate resources, so they can change without touching the cluster.
    removeDefaultNodePool: true,
    initialNodeCount: 1,
    // Even the short-lived default pool runs as the least-privilege account, never the Editor default.
    nodeConfig: {
      serviceAccount: deps.nodeServiceAccount,
      oauthScopes: [cloudPlatformScope],
      workloadMetadataConfig: { mode: "GKE_METADATA" },
      shieldedInstanceConfig: { enableSecureBoot: true, enableIntegrityMonitoring: true },
    },
    // Pods get Google credentials through Workload Identity, never the node's account.
    workloadIdentityConfig: { workloadPool: `${config.project}.svc.id.goog` },
    // Shielded nodes: verified boot and node identity, so a compromised node cannot impersonate another.
    enableShieldedNodes: true,
    datapathProvider: c.dataplaneV2 ? "ADVANCED_DATAPATH" : "LEGACY_DATAPATH",
    // Without Dataplane V2, Calico enforces NetworkPolicy; either way policies are never silently ignored.
    networkPolicy: c.dataplaneV2 ? undefined : { enabled: true, provider: "CALICO" },
    addonsConfig: {
      // GKE Gateway and GCE Ingress controllers both need HTTP load balancing.
      httpLoadBalancing: { disabled: false },
      dnsCacheConfig: { enabled: c.nodeLocalDns },
      gkeBackupAgentConfig: { enabled: c.backupAgent },
      networkPolicyConfig: { disabled: c.dataplaneV2 },
    },
  };
}

/** An Autopilot cluster: Google manages nodes; the platform sets the same security posture. */
export function autopilotClusterArgs(
  config: GkeClusterConfig,
  deps: ClusterDependencies,
): gcp.container.ClusterArgs {
  const c = config.cluster;
  return {
    ...commonClusterArgs(config, deps),
    enableAutopilot: true,
    // Sidecar meshes without CNI redirect traffic in an init container that needs NET_ADMIN.
    allowNetAdmin: c.autopilot.allowNetAdmin,
    // Autopilot nodes run as the least-privilege account too.
    clusterAutoscaling: {
      autoProvisioningDefaults: {
        serviceAccount: deps.nodeServiceAccount,
        oauthScopes: [cloudPlatformScope],
      },
    },
    nodePoolAutoConfig: { networkTags: { tags: [nodeTagFor(c.name)] } },
    addonsConfig: {
      httpLoadBalancing: { disabled: false },
      gkeBackupAgentConfig: { enabled: c.backupAgent },
    },
  };
}

/** How node pools change: never deleted before their replacement exists, protected in prod. */
export function nodePoolOptions(pool: Pick<NodePool, "protect">): pulumi.CustomResourceOptions {
  return {
    // The pool's size after creation is the autoscaler's; a new minNodes must not recreate the pool
    // (safer-cluster's beta-private-cluster/cluster.tf: `ignore_changes = [initial_node_count]`).
    ignoreChanges: ["initialNodeCount"],
    // Create the replacement first (its name differs, see nodePoolName): the provider would otherwise
    // delete a pool with a fixed name first, leaving workloads without nodes.
    deleteBeforeReplace: false,
    // Losing prod's nodes to a stray change is an outage: replacing or removing a pool needs protect off.
    protect: pool.protect,
  };
}

export function nodePoolArgs(
  config: GkeClusterConfig,
  pool: NodePool,
  cluster: pulumi.Input<string>,
  serviceAccount: pulumi.Input<string>,
): gcp.container.NodePoolArgs {
  const c = config.cluster;
  return {
    name: nodePoolName(pool),
    project: config.project,
    location: c.location,
    cluster,
    initialNodeCount: Math.max(pool.minNodes, 1),
    // Per zone: a regional pool runs between 3 x min and 3 x max nodes.
    autoscaling: { minNodeCount: pool.minNodes, maxNodeCount: pool.maxNodes },
    management: { autoRepair: true, autoUpgrade: true },
    // Upgrades add a node before draining one, so capacity never drops during a rollout.
    upgradeSettings: { strategy: "SURGE", maxSurge: 1, maxUnavailable: 0 },
    nodeConfig: {
      machineType: pool.machineType,
      spot: pool.spot,
      diskSizeGb: pool.diskSizeGb,
      diskType: "pd-balanced",
      // Container-Optimized OS: read-only root, minimal packages, Google-patched (GKE's hardened image).
      imageType: "COS_CONTAINERD",
      serviceAccount,
      // Access is limited by the account's IAM roles; the broad scope is what Google recommends with them.
      oauthScopes: [cloudPlatformScope],
      // The GKE metadata server hides node credentials from pods and serves Workload Identity.
      workloadMetadataConfig: { mode: "GKE_METADATA" },
      shieldedInstanceConfig: { enableSecureBoot: true, enableIntegrityMonitoring: true },
      labels: pool.labels,
      tags: [nodeTagFor(c.name)],
      resourceLabels: c.labels,
    },
  };
}

/**
 * A Backup for GKE plan for the whole cluster: every namespace, Secrets and volume data, on a schedule,
 * encrypted with the platform's key (cloud-foundation-fabric modules/gke-cluster-standard/main.tf
 * `google_gke_backup_backup_plan` has the same shape).
 */
export function backupPlanArgs(
  config: GkeClusterConfig,
  region: string,
  clusterId: pulumi.Input<string>,
  keyId: pulumi.Input<string> | undefined,
): gcp.gkebackup.BackupPlanArgs {
  const c = config.cluster;
  const b = c.backups;
  if (!b) throw new Error("backupPlanArgs needs cluster.backups");
  return {
    project: config.project,
    // Backup for GKE keeps backups in a region; the cluster's keeps them beside their KMS key.
    location: region,
    cluster: clusterId,
    backupSchedule: { cronSchedule: b.schedule },
    retentionPolicy: { backupRetainDays: b.retainDays, backupDeleteLockDays: b.deleteLockDays },
    backupConfig: {
      allNamespaces: true,
      includeSecrets: b.includeSecrets,
      includeVolumeData: b.includeVolumeData,
      encryptionKey: keyId !== undefined ? { gcpKmsEncryptionKey: keyId } : undefined,
    },
    labels: c.labels,
  };
}

/** A weekly recurring window in RFC 3339 and RRULE form, as GKE expects, and its exclusions. */
export function maintenancePolicy(
  m: Omit<Maintenance, "exclusions"> & Partial<Pick<Maintenance, "exclusions">>,
): gcp.types.input.container.ClusterMaintenancePolicy {
  const [hour, minute] = m.start.split(":").map(Number);
  // Any past date works as the anchor; the RRULE decides the days.
  const start = new Date(Date.UTC(2024, 0, 1, hour, minute));
  const end = new Date(start.getTime() + m.hours * 3600_000);
  const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, "Z");
  return {
    recurringWindow: {
      startTime: rfc3339(start),
      endTime: rfc3339(end),
      recurrence: `FREQ=WEEKLY;BYDAY=${m.days.join(",")}`,
    },
    maintenanceExclusions:
      m.exclusions && m.exclusions.length > 0
        ? m.exclusions.map((e) => ({
            exclusionName: e.name,
            startTime: e.start,
            endTime: e.end,
            exclusionOptions: { scope: e.scope },
          }))
        : undefined,
  };
}
