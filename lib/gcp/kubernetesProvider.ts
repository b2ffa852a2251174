import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as YAML from "yaml";

export interface GkeEndpoint {
  /** Context, cluster and user name inside the kubeconfig. */
  readonly contextName: string;
  /** Control plane IP or DNS name, without scheme. */
  readonly endpoint: string;
  /** Base64 PEM CA of the control plane; absent for the DNS endpoint, whose certificate is publicly trusted. */
  readonly caCertificate?: string;
}

/**
 * A kubeconfig for a GKE cluster that authenticates through `gke-gcloud-auth-plugin` (the exec
 * plugin GKE requires since 1.26): it holds no token, and credentials come from the machine running
 * `pulumi up` (`gcloud auth application-default login`, or Workload Identity in CI).
 */
export function gkeKubeconfig(e: GkeEndpoint): string {
  return YAML.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: e.contextName,
        cluster: {
          ...(e.caCertificate ? { "certificate-authority-data": e.caCertificate } : {}),
          server: `https://${e.endpoint}`,
        },
      },
    ],
    contexts: [{ name: e.contextName, context: { cluster: e.contextName, user: e.contextName } }],
    "current-context": e.contextName,
    users: [
      {
        name: e.contextName,
        user: {
          exec: {
            apiVersion: "client.authentication.k8s.io/v1beta1",
            command: "gke-gcloud-auth-plugin",
            installHint: "Install gke-gcloud-auth-plugin: gcloud components install gke-gcloud-auth-plugin",
            provideClusterInfo: true,
          },
        },
      },
    ],
  });
}

/** The kubeconfig as a Pulumi secret output: it names the cluster's endpoint and CA. */
export function gkeKubeconfigOutput(args: {
  contextName: pulumi.Input<string>;
  endpoint: pulumi.Input<string>;
  /** Absent for the DNS endpoint. */
  caCertificate?: pulumi.Input<string>;
}): pulumi.Output<string> {
  return pulumi.secret(
    pulumi
      .all([args.contextName, args.endpoint, args.caCertificate])
      .apply(([contextName, endpoint, caCertificate]) =>
        gkeKubeconfig({ contextName, endpoint, caCertificate }),
      ),
  );
}

export interface KubernetesProviderArgs {
  /** The kubeconfig; kept secret. */
  readonly kubeconfig: pulumi.Input<string>;
  /**
   * A stable identity of the cluster, e.g. its GCP resource id. The provider is replaced only when
   * this changes, so a new endpoint or CA in the kubeconfig updates the provider instead of replacing
   * every Kubernetes resource behind it.
   */
  readonly clusterIdentifier: pulumi.Input<string>;
  /** kubeconfig context. @default the kubeconfig's current-context */
  readonly context?: pulumi.Input<string>;
  /**
   * Drop from state the objects of a cluster that cannot be reached (deleted or recreated outside Pulumi).
   * @default false (or the environment's PULUMI_K8S_DELETE_UNREACHABLE)
   */
  readonly deleteUnreachable?: boolean;
}

/** The Kubernetes provider every in-cluster resource of the platform uses. */
export function createKubernetesProvider(
  name: string,
  args: KubernetesProviderArgs,
  opts?: pulumi.CustomResourceOptions,
): k8s.Provider {
  return new k8s.Provider(
    name,
    {
      kubeconfig: pulumi.secret(args.kubeconfig),
      clusterIdentifier: args.clusterIdentifier,
      context: args.context,
      // Server-side apply: field ownership is tracked by the API server, so controllers (GKE's NEG
      // controller, cert-manager's cainjector) and the platform can share objects without fighting.
      enableServerSideApply: true,
      // Unset unless on, so the provider's PULUMI_K8S_DELETE_UNREACHABLE still works for a one-off refresh.
      deleteUnreachable: args.deleteUnreachable === true ? true : undefined,
    },
    opts,
  );
}
