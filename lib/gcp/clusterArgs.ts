/** The arguments of a GKE cluster and its node pools and backup plan, built from resolved settings: the platform's security posture and GKE features in Standard and Autopilot mode. */
import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { nodePoolName, type Maintenance, type NodePool, type PlatformConfig } from "../config";
import { podsRangeName, servicesRangeName } from "./network";

/** A cluster section with every default applied (`platform:cluster`, resolved). */
export type ClusterSettings = PlatformConfig["cluster"];

/** A network section with every default applied (`platform:network`, resolved). */
export type NetworkSettings = PlatformConfig["network"];

/** What a GKE cluster's arguments are built from: the project, and the cluster and network resolved. */
export interface GkeClusterConfig {
  readonly project: string;
  readonly cluster: ClusterSettings;
  readonly network: NetworkSettings;
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
    // Google Groups for RBAC, so the teams' Group subjects match their Google groups' members. GKE
    // changes it in place (google-beta services/container/resource_container_cluster.go at v7.45.0:
    // not ForceNew, an UpdateCluster of DesiredAuthenticatorGroupsConfig); the field is Computed, so
    // leaving it unset keeps whatever the cluster has rather than turning it off.
    ...(c.googleGroups.securityGroup !== undefined
      ? { authenticatorGroupsConfig: { securityGroup: c.googleGroups.securityGroup } }
      : {}),
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
