import * as gcp from "@pulumi/gcp";
import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import {
  ConfigError,
  checkRules,
  parseInput,
  resolveConfig,
  type EnvironmentInput,
  type Tier,
} from "../config";
import { createKubernetesProvider, gkeKubeconfigOutput } from "./kubernetesProvider";
import {
  autopilotClusterArgs,
  backupPlanArgs,
  nodePoolArgs,
  nodePoolOptions,
  nodeTagFor,
  standardClusterArgs,
  standardIgnoredChanges,
  type ClusterDependencies,
  type ClusterSettings,
  type GkeClusterConfig,
  type NetworkSettings,
} from "./clusterArgs";
import { Network } from "./network";
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
  /** The enabled APIs by name (`compute.googleapis.com`); empty with `cluster.enableApis` off. */
  private readonly services: ReadonlyMap<string, pulumi.Resource>;

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
    // The network, node account and secrets key wait for the APIs they call only: a service agent is
    // waited for by the grants that name it (through its `member`) and by the cluster, so the key ring
    // is made beside GKE's agent instead of after it (one step less before the cluster).
    const parent = { parent: this, dependsOn: [...(services?.services.values() ?? [])] };
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
    this.services = services?.services ?? new Map();
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

  /**
   * What a resource that calls only `names` waits for: those APIs, enabled (none with `cluster.enableApis`
   * off). Fewer than `apis`: no service agent, no API it does not call.
   */
  apisFor(names: readonly string[]): pulumi.Resource[] {
    return names.flatMap((n) => {
      const service = this.services.get(n);
      return service ? [service] : [];
    });
  }
}
