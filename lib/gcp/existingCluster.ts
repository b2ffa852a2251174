import * as fs from "fs";
import * as path from "path";
import * as gcp from "@pulumi/gcp";
import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as YAML from "yaml";
import { ConfigError, type PlatformConfig } from "../config";
import type { ClusterAccess } from "./cluster";
import { createKubernetesProvider, gkeKubeconfigOutput } from "./kubernetesProvider";

export interface ExistingClusterArgs {
  /** The Google Cloud project that holds the cluster (read for a cluster found by name and location). */
  readonly project: string;
  /** Which cluster: by GKE name and location, or by a kubeconfig file and context (`platform:cluster.existing`). */
  readonly existing: PlatformConfig["cluster"]["existing"];
  /**
   * GKE's Gateway API channel on that cluster: `standard` when GKE serves (and owns) the Gateway API CRDs.
   * @default "standard"
   */
  readonly gatewayApi?: PlatformConfig["cluster"]["gatewayApi"];
  /**
   * Let the Kubernetes provider drop from state the objects of the cluster when it cannot be reached
   * (deleted or recreated elsewhere; `platform:cluster.deleteUnreachable`).
   * @default false
   */
  readonly deleteUnreachable?: boolean;
}

/**
 * A cluster made elsewhere: the platform builds only the Kubernetes provider and installs onto it.
 * A GKE cluster is found by name and location (its endpoint and CA are read, no credentials stored);
 * any other cluster by a kubeconfig file, whose content is kept secret.
 */
export class ExistingCluster extends pulumi.ComponentResource implements ClusterAccess {
  readonly clusterName: pulumi.Output<string>;
  readonly location: pulumi.Output<string>;
  readonly endpoint: pulumi.Output<string>;
  readonly kubeconfig: pulumi.Output<string>;
  readonly gatewayApiChannel: pulumi.Output<string>;
  readonly provider: k8s.Provider;
  /**
   * The cluster's default pod range and its Service range, read from GKE for a cluster found by name (its
   * Service range may be GKE's own, outside every private range; additional pod ranges are not listed);
   * absent for a cluster known by kubeconfig only.
   */
  readonly clusterNetworks?: pulumi.Output<string[]>;

  constructor(name: string, args: ExistingClusterArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:gcp:ExistingCluster", name, {}, opts);
    const e = args.existing;
    if (!e)
      throw new Error("ExistingCluster needs `existing`: a GKE name and location, or a kubeconfig file");
    // GKE owns the Gateway API CRDs there only if the user says its standard channel is on.
    this.gatewayApiChannel = pulumi.output(
      (args.gatewayApi ?? "standard") === "standard" ? "CHANNEL_STANDARD" : "CHANNEL_DISABLED",
    );

    if (e.kubeconfigPath !== undefined) {
      const file = readKubeconfig(e.kubeconfigPath, e.context);
      this.clusterName = pulumi.output(file.clusterName);
      this.location = pulumi.output("unknown (from kubeconfig)");
      this.endpoint = pulumi.output(file.server);
      this.kubeconfig = pulumi.secret(file.content);
      this.provider = createKubernetesProvider(
        `${name}-k8s`,
        {
          kubeconfig: this.kubeconfig,
          context: file.context,
          clusterIdentifier: `kubeconfig/${file.context}`,
          deleteUnreachable: args.deleteUnreachable,
        },
        { parent: this },
      );
    } else {
      const found = gcp.container.getClusterOutput(
        { name: e.name ?? "", location: e.location, project: args.project },
        { parent: this },
      );
      this.clusterName = found.apply((f) => f.name ?? e.name ?? "");
      this.location = found.apply((f) => f.location ?? e.location ?? "");
      this.endpoint = found.endpoint;
      this.clusterNetworks = pulumi
        .all([found.clusterIpv4Cidr, found.servicesIpv4Cidr])
        .apply((ranges) => ranges.filter((r) => !!r));
      this.kubeconfig = gkeKubeconfigOutput({
        contextName: `gke_${args.project}_${e.location}_${e.name}`,
        endpoint: found.endpoint,
        caCertificate: found.masterAuths.apply((a) => a[0]?.clusterCaCertificate ?? ""),
      });
      this.provider = createKubernetesProvider(
        `${name}-k8s`,
        {
          kubeconfig: this.kubeconfig,
          clusterIdentifier: `projects/${args.project}/locations/${e.location}/clusters/${e.name}`,
          deleteUnreachable: args.deleteUnreachable,
        },
        { parent: this },
      );
    }
    this.registerOutputs({
      clusterName: this.clusterName,
      location: this.location,
      endpoint: this.endpoint,
      kubeconfig: this.kubeconfig,
      gatewayApiChannel: this.gatewayApiChannel,
    });
  }
}

interface KubeconfigFile {
  readonly content: string;
  readonly context: string;
  readonly clusterName: string;
  readonly server: string;
}

interface KubeconfigShape {
  "current-context"?: string;
  contexts?: { name?: string; context?: { cluster?: string } }[];
  clusters?: { name?: string; cluster?: { server?: string } }[];
}

/** Reads and checks a kubeconfig file; a missing file or context is a config error, not a crash. */
export function readKubeconfig(file: string, context?: string): KubeconfigFile {
  const at = "platform:cluster.existing.kubeconfigPath";
  const resolved = path.resolve(file);
  if (!fs.existsSync(resolved)) {
    throw new ConfigError([
      {
        path: at,
        problem: `${JSON.stringify(file)} does not exist (resolved to ${resolved})`,
        fix: "point it at a readable kubeconfig file",
      },
    ]);
  }
  const content = fs.readFileSync(resolved, "utf8");
  let doc: KubeconfigShape;
  try {
    doc = (YAML.parse(content) ?? {}) as KubeconfigShape;
  } catch (err) {
    throw new ConfigError([
      {
        path: at,
        problem: `${JSON.stringify(file)} is not YAML: ${(err as Error).message}`,
        fix: "point it at a kubeconfig file",
      },
    ]);
  }
  const contexts = (doc.contexts ?? []).map((c) => c.name).filter((n): n is string => typeof n === "string");
  const wanted = context ?? doc["current-context"];
  const found = (doc.contexts ?? []).find((c) => c.name === wanted);
  if (!wanted || !found) {
    throw new ConfigError([
      {
        path: context ? "platform:cluster.existing.context" : at,
        problem: wanted
          ? `context ${JSON.stringify(wanted)} is not in ${file}`
          : `${file} has no current-context`,
        allowed: contexts.join(", ") || "no contexts in that file",
        fix: "set platform:cluster.existing.context to one of its contexts",
      },
    ]);
  }
  const clusterName = found.context?.cluster ?? wanted;
  const server = (doc.clusters ?? []).find((c) => c.name === clusterName)?.cluster?.server ?? "";
  return { content, context: wanted, clusterName, server };
}
