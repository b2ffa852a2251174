import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { ChartContext } from "./helmRelease";
import { PlatformNamespace, type MeshSettings } from "../manifests";
import { deployChart, newChart } from "./cdk8sBridge";
import { pinnedRelease } from "./helmRelease";

export interface CertManagerArgs {
  readonly charts: ChartContext;
  readonly mesh: MeshSettings;
  /** Autopilot denies Leases in kube-system. */
  readonly autopilot: boolean;
  /** Install trust-manager too (Linkerd's trust anchor distribution). */
  readonly trustManager: boolean;
  /** The Google service account cert-manager impersonates for DNS-01 in Cloud DNS (Workload Identity). */
  readonly dns01ServiceAccount?: pulumi.Output<string>;
  readonly provider: k8s.Provider;
}

/** cert-manager's namespace, also trust-manager's trust namespace (the only one it reads Secrets from). */
export const certManagerNamespace = "cert-manager";

/**
 * cert-manager (which owns its CRDs, kept on uninstall) and, for Linkerd, trust-manager. Everything
 * that issues mesh identity waits for `certManager` (its webhook must answer before any Certificate
 * is accepted) and Bundles wait for `trustManager`.
 */
export class CertManager extends pulumi.ComponentResource {
  readonly namespace = certManagerNamespace;
  readonly certManager: k8s.helm.v3.Release;
  readonly trustManager?: k8s.helm.v3.Release;

  constructor(name: string, args: CertManagerArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:addons:CertManager", name, {}, opts);
    const chart = newChart("cert-manager");
    // Not meshed: Linkerd's injector skips this namespace by name anyway (proxyInjector.namespaceSelector).
    new PlatformNamespace(chart, "namespace", { name: certManagerNamespace, mesh: args.mesh });
    // Retained like the releases inside it: deleting the namespace would delete them, and leave their
    // failurePolicy Fail webhooks pointing at nothing.
    const objects = deployChart(name, chart, { provider: args.provider, parent: this, retainOnDelete: true });
    const ns = [...objects.values()];

    this.certManager = pinnedRelease({
      chart: "certManager",
      name: "cert-manager",
      namespace: certManagerNamespace,
      values: {
        // GKE Autopilot denies Leases in kube-system, the chart's default (cert-manager/cert-manager#6716).
        ...(args.autopilot ? { global: { leaderElection: { namespace: certManagerNamespace } } } : {}),
        // Workload Identity: the controller's Kubernetes service account acts as this Google one, no key file.
        ...(args.dns01ServiceAccount
          ? {
              serviceAccount: { annotations: { "iam.gke.io/gcp-service-account": args.dns01ServiceAccount } },
            }
          : {}),
      },
      charts: args.charts,
      provider: args.provider,
      parent: this,
      dependsOn: ns,
    });

    if (args.trustManager) {
      this.trustManager = pinnedRelease({
        chart: "trustManager",
        name: "trust-manager",
        namespace: certManagerNamespace,
        values: {
          app: {
            // The namespace trust-manager reads Bundle sources from; it must exist first (values.yaml).
            trust: { namespace: certManagerNamespace },
            // GKE's firewall lets a private control plane reach nodes only on 443 and 10250; the chart's 6443
            // would time out and, with failurePolicy Fail, reject every Bundle. cert-manager uses 10250 too.
            webhook: { port: 10250 },
          },
        },
        charts: args.charts,
        provider: args.provider,
        parent: this,
        // Its webhook certificate comes from a cert-manager Issuer (app.webhook.tls.helmCert.enabled: false).
        dependsOn: [...ns, this.certManager],
      });
    }
    this.registerOutputs({});
  }
}
