import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { sizingProfile, type ResourceSizing, type Sizing } from "../config";
import { crdChartsOf } from "../crds";
import {
  containerResources,
  crdChart,
  deepMerge,
  deployChart,
  newChart,
  pinnedRelease,
  standaloneCharts,
  type ChartContext,
  type MonitoringRef,
  type Values,
} from "../deploy";
import { PlatformNamespace } from "../manifests";
import type { GrafanaDashboard } from "../meshes";

export const monitoringNamespace = "monitoring";
/** The release name; its Prometheus selects PodMonitors labelled `release: kube-prometheus-stack`. */
export const prometheusReleaseName = "kube-prometheus-stack";

/** The chart's Prometheus Service: `<fullname>-prometheus`, where fullname is the release name (templates/_helpers.tpl). */
/** The labels of the Prometheus pods the operator runs (pkg/prometheus/server/operator.go at v0.93.0). */
export const prometheusPodLabels = { "app.kubernetes.io/name": "prometheus" } as const;

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
  /** The cluster's Kubernetes provider. */
  readonly provider: k8s.Provider;
}

/** The sizing kube-prometheus-stack reads. */
export type PrometheusSizing = Pick<
  Sizing,
  "prometheus" | "alertmanager" | "grafana" | "prometheusOperator" | "kubeStateMetrics" | "nodeExporter"
>;

const profileSizing: PrometheusSizing = {
  prometheus: { ...sizingProfile.prometheus, replicas: 1 },
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
 * kube-prometheus-stack values for GKE: what GKE does not expose is not scraped, nor alerted on; every
 * container sized; node-exporter off on Autopilot; the mesh's dashboards in Grafana when asked.
 */
export function prometheusValues(
  args: Pick<PrometheusArgs, "autopilot" | "dashboards" | "sizing" | "podMetadata">,
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
      prometheus: {
        prometheusSpec: {
          replicas: s.prometheus.replicas,
          resources: r(s.prometheus),
        },
      },
      alertmanager: {
        alertmanagerSpec: { replicas: s.alertmanager.replicas, resources: r(s.alertmanager) },
      },
      prometheusOperator: {
        resources: r(s.prometheusOperator),
        // The config reloader beside Prometheus and Alertmanager, and the webhook certificate Jobs.
        prometheusConfigReloader: { resources: r(helper) },
        admissionWebhooks: { patch: { resources: r(helper) } },
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
 * Prometheus selects.
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
    this.release = pinnedRelease({
      chart: "kubePrometheusStack",
      name: prometheusReleaseName,
      namespace: monitoringNamespace,
      values: prometheusValues(args),
      charts,
      provider: args.provider,
      parent: this,
      dependsOn: [...ns, ...(this.crds ? [this.crds] : [])],
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
