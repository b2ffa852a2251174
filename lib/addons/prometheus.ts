import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import {
  deployChart,
  newChart,
  pinnedRelease,
  standaloneCharts,
  type ChartContext,
  type MonitoringRef,
  type Values,
} from "../deploy";
import { PlatformNamespace } from "../manifests";

export const monitoringNamespace = "monitoring";
/** The release name; its Prometheus selects PodMonitors labelled `release: kube-prometheus-stack`. */
export const prometheusReleaseName = "kube-prometheus-stack";

/** The chart's Prometheus Service: `<fullname>-prometheus`, where fullname is the release name (templates/_helpers.tpl). */
/** The labels of the Prometheus pods the operator runs (pkg/prometheus/server/operator.go at v0.93.0). */
export const prometheusPodLabels = { "app.kubernetes.io/name": "prometheus" } as const;

export const prometheusUrl = `http://${prometheusReleaseName}-prometheus.${monitoringNamespace}.svc.cluster.local:9090`;

export interface PrometheusArgs {
  /** CRD owners and the user's chart overrides. @default kube-prometheus-stack owns the Prometheus Operator CRDs */
  readonly charts?: ChartContext;
  /** The cluster is Autopilot, which admits no node-exporter. @default false */
  readonly autopilot?: boolean;
  /** Grafana dashboards to load from grafana.com, by name. @default none */
  readonly dashboards?: Readonly<Record<string, { gnetId: number; revision: number }>>;
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

/**
 * kube-prometheus-stack: Prometheus, the Prometheus Operator and, as their owner, its CRDs (kept on
 * delete). PodMonitors the platform emits carry the label its Prometheus selects.
 */
export class Prometheus extends pulumi.ComponentResource {
  readonly release: k8s.helm.v3.Release;
  readonly url = prometheusUrl;
  /** Where monitors go for this Prometheus: PodMonitors labelled as it selects them, after its CRDs. */
  readonly monitoring: MonitoringRef;

  constructor(name: string, args: PrometheusArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:addons:Prometheus", name, {}, opts);
    const charts = args.charts ?? standaloneCharts({ prometheusOperator: "kubePrometheusStack" });
    const chart = newChart("monitoring");
    // node-exporter runs with hostNetwork, hostPID and hostPath mounts, which only `privileged` admits.
    new PlatformNamespace(chart, "namespace", {
      name: monitoringNamespace,
      podSecurity: "privileged",
    });
    // Retained like the release that owns the Prometheus Operator CRDs.
    const ns = [
      ...deployChart(name, chart, { provider: args.provider, parent: this, retainOnDelete: true }).values(),
    ];
    this.release = pinnedRelease({
      chart: "kubePrometheusStack",
      name: prometheusReleaseName,
      namespace: monitoringNamespace,
      values: {
        // Autopilot admits no hostNetwork, hostPID or hostPath pods, which node-exporter needs; GKE reports node metrics itself.
        ...(args.autopilot ? { nodeExporter: { enabled: false } } : {}),
        ...(args.dashboards ? { grafana: grafanaDashboards(args.dashboards) } : {}),
        ...(args.podMetadata ? { prometheus: { prometheusSpec: { podMetadata: args.podMetadata } } } : {}),
      },
      charts,
      provider: args.provider,
      parent: this,
      dependsOn: ns,
    });
    this.monitoring = {
      backend: "prometheus-operator",
      // The chart's Prometheus selects monitors labelled with its release (prometheus.prometheusSpec.podMonitorSelector).
      selectorLabels: { release: prometheusReleaseName },
      crdOwner: this.release,
    };
    this.registerOutputs({ url: this.url });
  }
}

/** Grafana subchart values that load dashboards from grafana.com into a "mesh" folder. */
export function grafanaDashboards(
  dashboards: Readonly<Record<string, { gnetId: number; revision: number }>>,
): Values {
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
      // kube-prometheus-stack's Grafana names its Prometheus datasource "Prometheus".
      mesh: Object.fromEntries(
        Object.entries(dashboards).map(([name, d]) => [
          name,
          { gnetId: d.gnetId, revision: d.revision, datasource: "Prometheus" },
        ]),
      ),
    },
  };
}

/** The chart's Grafana Service: `<release>-grafana`, port 80. */
export const grafanaUrl = `http://${prometheusReleaseName}-grafana.${monitoringNamespace}.svc.cluster.local`;
