import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { configWarnings, type PlatformConfig } from "../config";
import { ExistingCluster, GkeCluster, type ClusterAccess } from "../gcp";

export interface PlatformArgs {
  /** The validated environment, from `loadEnvironmentConfig()` or `parseEnvironment()`. */
  readonly config: PlatformConfig;
}

/**
 * The whole platform for one environment: one config in, the stack out, built in stages that depend
 * on each other through object references (docs/architecture.md). Stage 1, the cloud: the network,
 * the GKE cluster (or an existing one) and the Kubernetes provider every later stage uses.
 */
export class Platform extends pulumi.ComponentResource {
  readonly config: PlatformConfig;
  readonly cluster: ClusterAccess;
  readonly provider: k8s.Provider;
  /** Secret. */
  readonly kubeconfig: pulumi.Output<string>;
  readonly clusterName: pulumi.Output<string>;
  readonly clusterLocation: pulumi.Output<string>;
  readonly gatewayApiChannel: pulumi.Output<string>;

  constructor(name: string, args: PlatformArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:platform:Platform", name, {}, opts);
    const config = args.config;
    this.config = config;
    for (const warning of [...configWarnings(config), ...notYetInstalled(config)]) {
      void pulumi.log.warn(warning, this);
    }

    this.cluster =
      config.cluster.mode === "existing"
        ? new ExistingCluster(`${name}-cluster`, { config }, { parent: this })
        : new GkeCluster(config.cluster.name, { config }, { parent: this });
    this.provider = this.cluster.provider;
    this.kubeconfig = this.cluster.kubeconfig;
    this.clusterName = this.cluster.clusterName;
    this.clusterLocation = this.cluster.location;
    this.gatewayApiChannel = this.cluster.gatewayApiChannel;

    this.registerOutputs({
      kubeconfig: this.kubeconfig,
      clusterName: this.clusterName,
      clusterLocation: this.clusterLocation,
      gatewayApiChannel: this.gatewayApiChannel,
    });
  }

  /** What a stack program usually exports. */
  outputs(): Record<string, pulumi.Output<string>> {
    const built: Record<string, pulumi.Output<string>> = this.cluster instanceof GkeCluster
      ? {
          networkId: this.cluster.networkId,
          subnetId: this.cluster.subnetId,
          workloadIdentityPool: this.cluster.workloadIdentityPool,
        }
      : {};
    return {
      kubeconfig: this.kubeconfig,
      clusterName: this.clusterName,
      clusterLocation: this.clusterLocation,
      endpoint: this.cluster.endpoint,
      gatewayApiChannel: this.gatewayApiChannel,
      ...built,
    };
  }
}

/**
 * Parts of the environment this release prepares the cluster for but does not install yet. Said
 * out loud at render and `pulumi up`, so a configured section is never silently without effect.
 */
export function notYetInstalled(config: PlatformConfig): string[] {
  const pending: string[] = [];
  if (config.mesh.kind !== "none") {
    pending.push(
      `platform:mesh.kind is ${config.mesh.kind}: this release prepares the cluster for it (webhook firewall ports, Autopilot NET_ADMIN) but does not install it yet`,
    );
  }
  if (config.ingress.kind !== "none") {
    pending.push(
      `platform:ingress.kind is ${config.ingress.kind}: this release prepares the cluster for it (HTTP load balancing, proxy-only subnet) but does not install it yet`,
    );
  }
  if (config.monitoring.backend !== "none" && config.monitoring.backend !== "managed-prometheus") {
    pending.push(
      `platform:monitoring.backend is ${config.monitoring.backend}: this release does not install monitoring yet`,
    );
  }
  if (config.apps.length > 0) {
    pending.push(`platform:apps lists ${config.apps.length} app(s): this release does not deploy apps yet`);
  }
  return pending;
}
