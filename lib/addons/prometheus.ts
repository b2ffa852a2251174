import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { resolvePrometheusStorage, sizingProfile, type ResourceSizing, type Sizing } from "../config";
import { crdChartsOf } from "../crds";
import {
  containerResources,
  crdChart,
  deepMerge,
  deployChart,
  newChart,
  pinnedRelease,
  standaloneCharts,
  zoneSpread,
  type CertManagerRef,
  type ChartContext,
  type MonitoringRef,
  type Values,
} from "../deploy";
import { Issuer, monitoringNamespace, PlatformNamespace } from "../manifests";
import type { GrafanaDashboard } from "../meshes";

export { monitoringNamespace };
/** The release name; its Prometheus selects PodMonitors labelled `release: kube-prometheus-stack`. */
export const prometheusReleaseName = "kube-prometheus-stack";

/** The chart's Prometheus Service: `<fullname>-prometheus`, where fullname is the release name (templates/_helpers.tpl). */
/** The labels of the Prometheus pods the operator runs (pkg/prometheus/server/operator.go at v0.93.0). */
export const prometheusPodLabels = { "app.kubernetes.io/name": "prometheus" } as const;

/**
 * The chart's Prometheus and Alertmanager pods, as its own anti-affinity and disruption budgets select them:
 * `app.kubernetes.io/instance` (Prometheus) and `alertmanager` (Alertmanager) name the custom resource,
 * `<release>-prometheus` and `<release>-alertmanager` (kube-prometheus-stack 88.5.3 templates/_helpers.tpl
 * prometheus.crname, alertmanager.crname, prometheus.pod-anti-affinity.matchExpressions;
 * templates/alertmanager/podDisruptionBudget.yaml).
 */
const prometheusPods = {
  ...prometheusPodLabels,
  "app.kubernetes.io/instance": `${prometheusReleaseName}-prometheus`,
} as const;
const alertmanagerPods = {
  "app.kubernetes.io/name": "alertmanager",
  alertmanager: `${prometheusReleaseName}-alertmanager`,
} as const;

export const prometheusUrl = `http://${prometheusReleaseName}-prometheus.${monitoringNamespace}.svc.cluster.local:9090`;

export interface PrometheusArgs {
  /**
   * CRD owners and the user's chart overrides.
   * @default the prometheus-operator-crds CRD chart owns the Prometheus Operator CRDs
   */
  readonly charts?: ChartContext;
  /** The cluster is Autopilot, which admits no node-exporter. @default false */
  readonly autopilot?: boolean;
  /** Grafana dashboards to load, by name: grafana.com ids and revisions, or URLs at a pinned tag. @default none */
  readonly dashboards?: Readonly<Record<string, GrafanaDashboard>>;
  /**
   * Requests, limits and replicas of Prometheus, Alertmanager, Grafana, the operator and the exporters
   * (docs/configuration.md, "Sizing"). @default the platform's profile
   */
  readonly sizing?: PrometheusSizing;
  /** Labels on the `monitoring` namespace, e.g. the mesh's label that keeps its webhooks away from it. @default none */
  readonly namespaceLabels?: Readonly<Record<string, string>>;
  /**
   * Labels and annotations for the Prometheus pods: what the mesh needs of a scraper (Istio ambient under
   * STRICT mTLS enrols them). @default none
   */
  readonly podMetadata?: {
    readonly labels: Readonly<Record<string, string>>;
    readonly annotations: Readonly<Record<string, string>>;
  };
  /**
   * cert-manager, which then issues the Prometheus Operator's admission webhook certificate: the chart's
   * Certificate, signed by a self-signed Issuer this component makes (cert-manager renews it), and cainjector
   * puts it into the webhook configurations; the Issuer and the release wait for cert-manager. Without it the chart's certgen Jobs make the
   * certificate (a ClusterRole that may patch every webhook configuration, a Role that creates Secrets):
   * nothing else could issue it on a cluster without cert-manager.
   * @default none: the chart's certgen Jobs
   */
  readonly certManager?: CertManagerRef;
  /** The cluster's Kubernetes provider. */
  readonly provider: k8s.Provider;
}

/** The sizing kube-prometheus-stack reads. */
export type PrometheusSizing = Pick<
  Sizing,
  "prometheus" | "alertmanager" | "grafana" | "prometheusOperator" | "kubeStateMetrics" | "nodeExporter"
>;

/** Used on its own: one replica of each and Prometheus on an emptyDir, as in dev (docs/monitoring.md, "Replicas and storage"). */
const profileSizing: PrometheusSizing = {
  prometheus: {
    ...sizingProfile.prometheus,
    replicas: 1,
    storage: resolvePrometheusStorage(undefined, false),
  },
  alertmanager: { ...sizingProfile.alertmanager, replicas: 1 },
  grafana: { ...sizingProfile.grafana, replicas: 1 },
  prometheusOperator: { ...sizingProfile.prometheusOperator, replicas: 1 },
  kubeStateMetrics: { ...sizingProfile.kubeStateMetrics, replicas: 1 },
  nodeExporter: sizingProfile.nodeExporter,
};

/**
 * Sidecars, init containers and hook Jobs that only copy files, reload a config or patch a webhook once:
 * the Prometheus Operator's own default for its config reloader (requests 10m / 50Mi: defaultReloaderCPU,
 * defaultReloaderMemory in prometheus-operator cmd/operator/main.go at v0.93.0).
 */
const helper: ResourceSizing = { cpu: "10m", memory: "50Mi", memoryLimit: "128Mi" };

/**
 * The Issuer that signs the Prometheus Operator's webhook certificate: self-signed, so the serving
 * certificate is its own CA and no CA key lies in `monitoring`, whose Secrets Grafana's Role reads
 * (kube-prometheus-stack 88.5.3 charts/grafana templates/role.yaml: configmaps and secrets). The chart's own
 * chain (with no certManager.issuerRef: a self-signed Issuer, a root CA Certificate and a CA Issuer,
 * templates/prometheus-operator/certmanager.yaml) would keep its root CA key there.
 */
export const webhookIssuerName = `${prometheusReleaseName}-admission-selfsigned`;

/**
 * The Prometheus Operator's admission webhook certificate, from cert-manager where there is one: the chart's
 * 1-year Certificate `<release>-admission` (kube-prometheus-stack 88.5.3
 * templates/prometheus-operator/certmanager.yaml, renewed by cert-manager at two thirds of its life), signed
 * by the self-signed `webhookIssuerName`; cert-manager writes a self-signed certificate as its own ca.crt
 * (pkg/controller/certificaterequests/selfsigned/selfsigned.go at v1.21), and cainjector copies that into
 * both webhook configurations, which carry cert-manager.io/inject-ca-from and no caBundle of their own
 * (templates/prometheus-operator/admission-webhooks/_prometheus-operator-webhook.tpl). Without cert-manager,
 * the certgen Jobs.
 */
export function admissionWebhookValues(certManager: boolean): Values {
  if (!certManager) {
    // The certgen Jobs (templates/prometheus-operator/admission-webhooks/job-patch/) only write a Secret and patch once.
    return { patch: { resources: containerResources(helper) } };
  }
  return {
    certManager: { enabled: true, issuerRef: { name: webhookIssuerName, kind: "Issuer" } },
    // No certgen Jobs, nor their ClusterRole that patches webhook configurations and Role that creates Secrets
    // (job-patch/*.yaml render only with patch.enabled and without certManager.enabled).
    patch: { enabled: false },
    // Without patch.enabled the chart makes both webhooks Fail (admission-webhooks/validatingWebhookConfiguration.yaml,
    // mutatingWebhookConfiguration.yaml); Ignore, what the certgen path left them at, because a Fail webhook
    // refuses every PrometheusRule while the operator cannot answer with a certificate the API server trusts:
    // at install, before the operator has endpoints (the chart's own rules: prometheus-community/helm-charts#2020);
    // when a release moves from certgen to cert-manager (#6666); for up to a minute at each yearly renewal, while
    // cainjector has the new certificate in place and the kubelet has not yet given the operator's pod the new
    // Secret; and whenever its one replica restarts. The operator still rejects an invalid rule it loads
    // (PrometheusOperatorRejectedResources, templates/prometheus/rules-1.14/prometheus-operator.yaml).
    failurePolicy: "Ignore",
  };
}

/**
 * Prometheus' TSDB volume, its retention and, with several replicas, their spread, disruption budget and
 * a Service that keeps each client on one replica.
 */
function prometheusServerValues(s: PrometheusSizing["prometheus"]): Values {
  const storage = s.storage;
  const replicated = s.replicas > 1;
  return {
    prometheusSpec: {
      replicas: s.replicas,
      resources: containerResources(s),
      // Both bounds: time for the history wanted, size (80% of the volume) so the TSDB never fills its disk.
      retention: storage.retention,
      retentionSize: storage.retentionSize,
      // The operator makes a PersistentVolumeClaim per replica from the template (its StatefulSet's
      // volumeClaimTemplates), or an emptyDir (prometheus-operator Documentation/platform/storage.md at v0.93.1);
      // the chart's fsGroup 2000 makes the disk writable for its non-root user (values.yaml prometheusSpec.securityContext).
      storageSpec: storage.persistent
        ? {
            volumeClaimTemplate: {
              spec: {
                storageClassName: storage.storageClass,
                // One node writes a replica's TSDB; a Persistent Disk attaches read-write to one node.
                accessModes: ["ReadWriteOnce"],
                resources: { requests: { storage: storage.size } },
              },
            },
          }
        : // The limit keeps the TSDB off the rest of the node's disk: above it the kubelet evicts the pod.
          { emptyDir: { sizeLimit: storage.size } },
      // Beside the chart's soft anti-affinity on the node (prometheusSpec.podAntiAffinity "soft"): one replica per zone.
      ...(replicated ? { topologySpreadConstraints: zoneSpread(prometheusPods) } : {}),
    },
    ...(replicated
      ? {
          // One replica through a drain (templates/prometheus/podDisruptionBudget.yaml; maxUnavailable stays unset).
          podDisruptionBudget: { enabled: true, minAvailable: 1 },
          // The replicas scrape at their own moments: a client (Grafana, linkerd-viz) kept on one sees one
          // consistent history rather than two alternating (templates/prometheus/service.yaml; kube-prometheus'
          // prometheus.libsonnet sets the same).
          service: { sessionAffinity: "ClientIP" },
        }
      : {}),
  };
}

/** Alertmanager's replicas and, with several, their spread and disruption budget. */
function alertmanagerValues(s: PrometheusSizing["alertmanager"]): Values {
  const replicated = s.replicas > 1;
  return {
    alertmanagerSpec: {
      replicas: s.replicas,
      resources: containerResources(s),
      ...(replicated ? { topologySpreadConstraints: zoneSpread(alertmanagerPods) } : {}),
    },
    // One peer through a drain; the other keeps the silences (templates/alertmanager/podDisruptionBudget.yaml).
    ...(replicated ? { podDisruptionBudget: { enabled: true, minAvailable: 1 } } : {}),
  };
}

/**
 * kube-prometheus-stack values for GKE: what GKE does not expose is not scraped, nor alerted on; every
 * container sized; Prometheus' volume and retention; node-exporter off on Autopilot; the mesh's dashboards
 * in Grafana when asked; the operator's webhook certificate from cert-manager where there is one.
 */
export function prometheusValues(
  args: Pick<PrometheusArgs, "autopilot" | "dashboards" | "sizing" | "podMetadata"> & {
    /** cert-manager issues the operator's webhook certificate. @default false: the chart's certgen Jobs */
    readonly certManager?: boolean;
  },
): Values {
  const s = args.sizing ?? profileSizing;
  const r = containerResources;
  return deepMerge(
    {
      // GKE runs the control plane itself: the controller manager, scheduler and etcd are not reachable
      // from the cluster, so their ServiceMonitors scrape nothing and their "down" alerts fire forever
      // (each rule group is gated on the component, templates/prometheus/rules-1.14/*.yaml at 88.5.3).
      kubeControllerManager: { enabled: false },
      kubeScheduler: { enabled: false },
      kubeEtcd: { enabled: false },
      // With Dataplane V2 (eBPF) there is no kube-proxy; without it, GKE's kube-proxy serves its metrics on
      // 127.0.0.1:10249 only (kube-proxy's --metrics-bind-address default): either way nothing answers.
      kubeProxy: { enabled: false },
      // GKE serves DNS with kube-dns (or Cloud DNS), not CoreDNS, and reports its metrics to Cloud Monitoring.
      coreDns: { enabled: false },
      // No Windows node pools: the windows rules query an exporter that is never installed.
      windowsMonitoring: { enabled: false },
      defaultRules: {
        rules: {
          windows: false,
          // Autopilot admits no node-exporter, so its rules would query nothing.
          ...(args.autopilot
            ? { nodeExporterAlerting: false, nodeExporterRecording: false, node: false, network: false }
            : {}),
        },
      },
      prometheus: prometheusServerValues(s.prometheus),
      alertmanager: alertmanagerValues(s.alertmanager),
      prometheusOperator: {
        resources: r(s.prometheusOperator),
        // The config reloader beside Prometheus and Alertmanager.
        prometheusConfigReloader: { resources: r(helper) },
        admissionWebhooks: admissionWebhookValues(args.certManager ?? false),
      },
      grafana: {
        replicas: s.grafana.replicas,
        resources: r(s.grafana),
        // A Role in its own namespace, not the ClusterRole that lets the sidecars read every Secret of the
        // cluster, the mesh's CA keys included (charts/grafana templates/clusterrole.yaml and role.yaml at 88.5.3).
        rbac: { namespaced: true },
        sidecar: {
          // The dashboard and datasource sidecars, and the init container that downloads dashboards.
          resources: r(helper),
          // ConfigMaps of the monitoring namespace only, where the chart puts its own: kube-prometheus-stack's
          // `searchNamespace: ALL` needs the cluster-wide read the Role above no longer grants.
          dashboards: { searchNamespace: monitoringNamespace, resource: "configmap" },
          datasources: { searchNamespace: monitoringNamespace, resource: "configmap" },
        },
        downloadDashboards: { resources: r(helper) },
      },
      "kube-state-metrics": {
        replicas: s.kubeStateMetrics.replicas,
        resources: r(s.kubeStateMetrics),
        // Its secrets collector lists and watches every Secret (charts/kube-state-metrics templates/role.yaml at
        // 88.5.3), the mesh's CA keys included; no rule of the chart reads kube_secret_* series.
        collectorsExclude: ["secrets"],
      },
      "prometheus-node-exporter": { resources: r(s.nodeExporter) },
    },
    // Autopilot admits no hostNetwork, hostPID or hostPath pods, which node-exporter needs; GKE reports node metrics itself.
    args.autopilot ? { nodeExporter: { enabled: false } } : {},
    args.dashboards ? { grafana: grafanaDashboards(args.dashboards) } : {},
    args.podMetadata ? { prometheus: { prometheusSpec: { podMetadata: args.podMetadata } } } : {},
  );
}

/**
 * kube-prometheus-stack: Prometheus and the Prometheus Operator, and, as their owner, the operator's CRDs
 * from their CRD chart (each its own resource, retained on delete, upgraded with the pin: Helm never
 * upgrades the copy in kube-prometheus-stack's crds/). PodMonitors the platform emits carry the label its
 * Prometheus selects. With `certManager`, the operator's webhook certificate is cert-manager's and the
 * release waits for it.
 */
export class Prometheus extends pulumi.ComponentResource {
  readonly release: k8s.helm.v3.Release;
  /** The Prometheus Operator CRDs (prometheus-operator-crds), where this component owns them. */
  readonly crds?: k8s.helm.v4.Chart;
  readonly url = prometheusUrl;
  /** Where monitors go for this Prometheus: PodMonitors labelled as it selects them, after its CRDs. */
  readonly monitoring: MonitoringRef;

  constructor(name: string, args: PrometheusArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:addons:Prometheus", name, {}, opts);
    const charts = args.charts ?? standaloneCharts({ prometheusOperator: "prometheus-operator-crds" });
    const chart = newChart("monitoring");
    // node-exporter runs with hostNetwork, hostPID and hostPath mounts, which only `privileged` admits.
    new PlatformNamespace(chart, "namespace", {
      name: monitoringNamespace,
      podSecurity: "privileged",
      labels: args.namespaceLabels,
    });
    // Retained like the Prometheus Operator CRDs this component owns.
    const ns = [
      ...deployChart(name, chart, { provider: args.provider, parent: this, retainOnDelete: true }).values(),
    ];
    // Cluster-scoped, so they wait for nothing; the release's Prometheus, Alertmanager and rules need them first.
    this.crds = crdChartsOf(charts.owners).includes("prometheus-operator-crds")
      ? crdChart({
          crdChart: "prometheus-operator-crds",
          name: `${name}-crds`,
          namespace: monitoringNamespace,
          charts,
          provider: args.provider,
          parent: this,
        })
      : undefined;
    // The operator's webhook certificate's Issuer, once cert-manager's webhook accepts it.
    const webhookIssuer = args.certManager
      ? [
          ...deployChart(`${name}-webhook-issuer`, webhookIssuerChart(), {
            provider: args.provider,
            parent: this,
            dependsOn: [...ns, args.certManager.certManager],
          }).values(),
        ]
      : [];
    this.release = pinnedRelease({
      chart: "kubePrometheusStack",
      name: prometheusReleaseName,
      namespace: monitoringNamespace,
      values: prometheusValues({ ...args, certManager: args.certManager !== undefined }),
      charts,
      provider: args.provider,
      parent: this,
      // cert-manager's webhook must answer before the chart's Certificate is accepted, signed by the Issuer.
      dependsOn: [
        ...ns,
        ...(this.crds ? [this.crds] : []),
        ...(args.certManager ? [args.certManager.certManager] : []),
        ...webhookIssuer,
      ],
    });
    this.monitoring = {
      backend: "prometheus-operator",
      // The chart's Prometheus selects monitors labelled with its release (prometheus.prometheusSpec.podMonitorSelector).
      selectorLabels: { release: prometheusReleaseName },
      // The release waits for the CRDs, so monitors that wait for it find them.
      crdOwner: this.release,
    };
    this.registerOutputs({ url: this.url });
  }
}

/** The self-signed Issuer of the operator's webhook certificate (`webhookIssuerName`). */
function webhookIssuerChart(): ReturnType<typeof newChart> {
  const chart = newChart("prometheus-webhook-issuer");
  new Issuer(chart, "webhook-issuer", {
    metadata: { name: webhookIssuerName, namespace: monitoringNamespace },
    spec: { selfSigned: {} },
  });
  return chart;
}

/** Grafana subchart values that load dashboards from grafana.com into a "mesh" folder. */
export function grafanaDashboards(dashboards: Readonly<Record<string, GrafanaDashboard>>): Values {
  return {
    dashboardProviders: {
      "dashboardproviders.yaml": {
        apiVersion: 1,
        providers: [
          {
            name: "mesh",
            orgId: 1,
            folder: "Mesh",
            type: "file",
            disableDeletion: true,
            options: { path: "/var/lib/grafana/dashboards/mesh" },
          },
        ],
      },
    },
    dashboards: {
      // kube-prometheus-stack's Grafana names its Prometheus datasource "Prometheus"; the chart writes it into
      // grafana.com dashboards (charts/grafana templates/_config.tpl). Dashboards by URL (Istio's) pick it
      // with their own `datasource` variable, so they are downloaded as they are.
      mesh: Object.fromEntries(
        Object.entries(dashboards).map(([name, d]) => [
          name,
          "url" in d ? { url: d.url } : { gnetId: d.gnetId, revision: d.revision, datasource: "Prometheus" },
        ]),
      ),
    },
  };
}

/** The chart's Grafana Service: `<release>-grafana`, port 80. */
export const grafanaUrl = `http://${prometheusReleaseName}-grafana.${monitoringNamespace}.svc.cluster.local`;
