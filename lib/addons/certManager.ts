import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { sizingProfile, type Sizing } from "../config";
import {
  containerResources,
  deepMerge,
  deployChart,
  jetstackWorkload,
  newChart,
  pinnedRelease,
  single,
  standaloneCharts,
  type CertManagerRef,
  type ChartContext,
  type MonitoringRef,
  type Values,
} from "../deploy";
import {
  CertManagerMonitors,
  CertificateAlerts,
  PlatformNamespace,
  certManagerAlertRules,
  certManagerNamespace,
} from "../manifests";

export interface CertManagerArgs {
  /** CRD owners and the user's chart overrides. @default cert-manager's and trust-manager's charts own their CRDs */
  readonly charts?: ChartContext;
  /** The cluster is Autopilot, which denies Leases in kube-system. @default false */
  readonly autopilot?: boolean;
  /** Install trust-manager too (Linkerd's trust anchor distribution). @default false */
  readonly trustManager?: boolean;
  /**
   * The Google service account cert-manager impersonates for DNS-01 in Cloud DNS (Workload Identity).
   * @default none: cert-manager's service account is not annotated, so no DNS-01 in Cloud DNS
   */
  readonly dns01ServiceAccount?: pulumi.Input<string>;
  /**
   * Replicas, requests and limits of cert-manager's controller, webhook and CA injector and of
   * trust-manager (docs/configuration.md, "Sizing").
   * @default the platform's profile with one replica each
   */
  readonly sizing?: CertManagerSizing;
  /**
   * Labels on the cert-manager namespace, e.g. the mesh's label that keeps its webhooks away from it.
   * @default none
   */
  readonly namespaceLabels?: Readonly<Record<string, string>>;
  /** The cluster's Kubernetes provider. */
  readonly provider: k8s.Provider;
  /**
   * Where cert-manager's and trust-manager's metrics go, with the certificate alerts (renewal overdue,
   * expiring unrenewed, not Ready, metrics missing, trust-manager failing). @default no monitors, no alerts
   */
  readonly monitoring?: MonitoringRef;
}

/** The sizing cert-manager and trust-manager read. */
export type CertManagerSizing = Pick<
  Sizing,
  "certManager" | "certManagerWebhook" | "certManagerCainjector" | "trustManager"
>;

const standaloneSizing: CertManagerSizing = {
  certManager: single(sizingProfile.certManager),
  certManagerWebhook: single(sizingProfile.certManagerWebhook),
  certManagerCainjector: single(sizingProfile.certManagerCainjector),
  trustManager: single(sizingProfile.trustManager),
};

/** The chart's pod labels (templates/*-deployment.yaml at v1.21.2): what its PDBs and our spread select. */
const certManagerPod = (component: string, name: string) => ({
  "app.kubernetes.io/name": name,
  "app.kubernetes.io/instance": "cert-manager",
  "app.kubernetes.io/component": component,
});

/** cert-manager values: Autopilot's lease namespace, Workload Identity for DNS-01, and its sizing. */
export function certManagerValues(
  args: Pick<CertManagerArgs, "autopilot" | "dns01ServiceAccount" | "sizing">,
): Values {
  const s = args.sizing ?? standaloneSizing;
  return deepMerge(
    {
      // Not in the edit and admin roles: with them, anyone who may edit a namespace could ask the mesh's
      // ClusterIssuers (Linkerd's identity issuer, Istio's root) for a CA certificate, which cert-manager's
      // default approver signs, and so impersonate any workload (templates/rbac.yaml aggregate-to-edit at
      // v1.21.2). The platform's own Certificates are written with its deployer's rights.
      global: {
        rbac: { aggregateClusterRoles: false },
        // GKE Autopilot denies Leases in kube-system, the chart's default (cert-manager/cert-manager#6716).
        ...(args.autopilot ? { leaderElection: { namespace: certManagerNamespace } } : {}),
      },
      // Workload Identity: the controller's Kubernetes service account acts as this Google one, no key file.
      ...(args.dns01ServiceAccount
        ? { serviceAccount: { annotations: { "iam.gke.io/gcp-service-account": args.dns01ServiceAccount } } }
        : {}),
    },
    // cert-manager best-practice.md "High Availability" and "PodDisruptionBudget": controller 2, webhook 3,
    // cainjector 2 replicas, each kept by a disruption budget; "Scalability": the chart sets no resources.
    jetstackWorkload(s.certManager, certManagerPod("controller", "cert-manager")),
    { webhook: jetstackWorkload(s.certManagerWebhook, certManagerPod("webhook", "webhook")) },
    { cainjector: jetstackWorkload(s.certManagerCainjector, certManagerPod("cainjector", "cainjector")) },
    // The post-install check (one cmctl call): the webhook's requests fit it.
    { startupapicheck: { resources: containerResources(s.certManagerWebhook) } },
  );
}

/** trust-manager values: its trust namespace, GKE's webhook port, and its sizing. */
export function trustManagerValues(args: Pick<CertManagerArgs, "sizing">): Values {
  const s = args.sizing ?? standaloneSizing;
  return deepMerge(
    {
      app: {
        // The namespace trust-manager reads Bundle sources from; it must exist first (values.yaml).
        trust: { namespace: certManagerNamespace },
        // GKE's firewall lets a private control plane reach nodes only on 443 and 10250; the chart's 6443
        // would time out and, with failurePolicy Fail, reject every Bundle. cert-manager uses 10250 too.
        webhook: { port: 10250 },
      },
    },
    // Its pods and PDB carry `app: trust-manager` (templates/deployment.yaml, poddisruptionbudget.yaml at v0.24.0).
    jetstackWorkload(s.trustManager, { app: "trust-manager" }),
    // Off: the platform's Bundles name only their own roots (never useDefaultCAs), so the public CA package
    // (an init container copying it into the pod, values.yaml defaultPackage) would only put roots, compromised
    // ones included at some versions, in the cluster for nothing; without it there are none, at any version.
    { defaultPackage: { enabled: false } },
  );
}

/** cert-manager's namespace is also trust-manager's trust namespace (the only one it reads Secrets from). */
export { certManagerNamespace };

/**
 * cert-manager (which owns its CRDs, kept on uninstall) and, for Linkerd, trust-manager. Everything
 * that issues mesh identity waits for `certManager` (its webhook must answer before any Certificate
 * is accepted) and Bundles wait for `trustManager`.
 */
export class CertManager extends pulumi.ComponentResource implements CertManagerRef {
  readonly namespace = certManagerNamespace;
  readonly certManager: k8s.helm.v3.Release;
  readonly trustManager?: k8s.helm.v3.Release;
  private readonly alertsName: string;
  private readonly namespaceObjects: readonly pulumi.Resource[];
  private readonly provider: k8s.Provider;
  private readonly withTrustManager: boolean;

  constructor(name: string, args: CertManagerArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:addons:CertManager", name, {}, opts);
    const charts =
      args.charts ?? standaloneCharts({ certManager: "certManager", trustManager: "trustManager" });
    const chart = newChart("cert-manager");
    // Not meshed: Linkerd's injector skips this namespace by name anyway (proxyInjector.namespaceSelector).
    new PlatformNamespace(chart, "namespace", { name: certManagerNamespace, labels: args.namespaceLabels });
    // Retained like the releases inside it: deleting the namespace would delete them, and leave their
    // failurePolicy Fail webhooks pointing at nothing.
    const objects = deployChart(name, chart, { provider: args.provider, parent: this, retainOnDelete: true });
    const ns = [...objects.values()];

    this.certManager = pinnedRelease({
      chart: "certManager",
      name: "cert-manager",
      namespace: certManagerNamespace,
      values: certManagerValues(args),
      charts,
      provider: args.provider,
      parent: this,
      dependsOn: ns,
    });

    if (args.trustManager) {
      this.trustManager = pinnedRelease({
        chart: "trustManager",
        name: "trust-manager",
        namespace: certManagerNamespace,
        values: trustManagerValues(args),
        charts,
        provider: args.provider,
        parent: this,
        // Its webhook certificate comes from a cert-manager Issuer (app.webhook.tls.helmCert.enabled: false).
        dependsOn: [...ns, this.certManager],
      });
    }
    this.alertsName = `${name}-alerts`;
    this.namespaceObjects = ns;
    this.provider = args.provider;
    this.withTrustManager = args.trustManager ?? false;
    if (args.monitoring) this.monitorWith(args.monitoring);
    this.registerOutputs({});
  }

  /**
   * cert-manager's and trust-manager's monitors and certificate alerts, once: what `monitoring` in the Args
   * does, for a Prometheus made after this component (the platform's waits for cert-manager, which issues
   * its webhook certificate). The objects, names and parent are the same either way.
   */
  monitorWith(monitoring: MonitoringRef): void {
    const alerts = newChart("cert-manager-alerts");
    new CertManagerMonitors(alerts, "monitors", {
      ...monitoring,
      namespace: certManagerNamespace,
      trustManager: this.withTrustManager,
    });
    new CertificateAlerts(alerts, "alerts", {
      ...monitoring,
      name: "certificates",
      namespace: certManagerNamespace,
      rules: certManagerAlertRules({ trustManager: this.withTrustManager }),
    });
    // Monitors and rules wait only for their CRDs' owner and the namespace, never for cert-manager itself.
    deployChart(this.alertsName, alerts, {
      provider: this.provider,
      parent: this,
      dependsOn: [...this.namespaceObjects, ...(monitoring.crdOwner ? [monitoring.crdOwner] : [])],
    });
  }
}
