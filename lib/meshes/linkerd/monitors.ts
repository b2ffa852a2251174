import { Construct } from "constructs";
import { linkerdFacts } from "../../versions";
import { ClusterPodMonitoring, PodMonitor, PodMonitoring, type RelabelConfig } from "../../manifests";

/** The platform's monitor of every meshed pod's proxy, for either monitoring backend. */
export const linkerdProxyMonitorName = "linkerd-proxy";

export interface LinkerdMonitorsProps {
  /** Linkerd's control-plane namespace. */
  readonly namespace: string;
  /** `prometheus-operator` emits PodMonitors; `managed-prometheus` emits PodMonitoring. */
  readonly backend: "prometheus-operator" | "managed-prometheus";
  /** Labels the Prometheus selects PodMonitors by. */
  readonly selectorLabels: Record<string, string>;
  /** Linkerd recommends 10s (2-edge/tasks/external-prometheus.md). @default 10s */
  readonly interval?: string;
  /** Extension namespaces whose control-plane components are scraped too, e.g. linkerd-viz. @default none */
  readonly extensionNamespaces?: readonly string[];
}

/**
 * Keeps the control-plane admin ports (`dest-admin`, `ident-admin`, ...) and linkerd-viz's (`admin`), never
 * the proxies' `linkerd-admin` (dropped next): viz's own scrape config (viz/charts/linkerd-viz/templates/
 * prometheus.yaml, job linkerd-controller). The chart's PodMonitor keeps `.*-admin$`, which misses viz.
 */
export const controllerPortRegex = ".*admin$";

/** The service mirror's admin port (`ctrl-admin`), as the chart's PodMonitor and viz's scrape config keep it. */
export const serviceMirrorPortRegex = ".*-admin$";

/**
 * Pod labels the proxy PodMonitor maps onto series (`linkerd.io/proxy-deployment` as `deployment`, ...),
 * which Linkerd's dashboards query: Managed Prometheus copies the same ones (targetLabels.fromPod), since
 * it has no labelmap. The injector sets them (pkg/k8s/labels.go at edge-26.8.3).
 */
export const proxyPodLabels: readonly { from: string; to: string }[] = [
  ...["deployment", "daemonset", "statefulset", "replicaset", "replicationcontroller", "cronjob"].map(
    (kind) => ({ from: `linkerd.io/proxy-${kind}`, to: kind }),
  ),
  // The proxy PodMonitor's special case: a Job's label becomes k8s_job, not job.
  { from: "linkerd.io/proxy-job", to: "k8s_job" },
  { from: "linkerd.io/control-plane-ns", to: "control_plane_ns" },
  { from: "linkerd.io/workload-ns", to: "workload_ns" },
];

/**
 * Scrape targets for the Linkerd control plane and every proxy, as the pinned chart's own PodMonitor
 * template defines them (templates/podmonitor.yaml, edge-26.8.3), or the same targets as Managed
 * Service for Prometheus objects. Not the template's multicluster service mirror: the platform does
 * not install linkerd-multicluster, and a monitor for what is not installed only misleads.
 */
export class LinkerdMonitors extends Construct {
  constructor(scope: Construct, id: string, props: LinkerdMonitorsProps) {
    super(scope, id);
    const interval = props.interval ?? "10s";
    const ns = props.namespace;
    if (props.backend === "prometheus-operator") {
      const metadata = (name: string) => ({
        name,
        namespace: ns,
        labels: { "linkerd.io/control-plane-ns": ns, ...props.selectorLabels },
      });
      // honorTimestamps false, as the chart: scrape time, so restarted pods' samples are not dropped as duplicates.
      // The job is the monitor's name, as in viz's own scrape config and Linkerd's dashboards
      // (job="linkerd-proxy", job="linkerd-controller"); the Prometheus Operator would make it
      // `<namespace>/<name>`, and user relabelings run after its own (pkg/prometheus/promcfg.go at v0.93.0).
      const endpoint = (job: string, relabelings: RelabelConfig[]) => [
        {
          interval,
          scrapeTimeout: interval,
          honorTimestamps: false,
          relabelings: [...relabelings, { action: "replace" as const, targetLabel: "job", replacement: job }],
        },
      ];
      const dropProxyAdmin: RelabelConfig = {
        sourceLabels: ["__meta_kubernetes_pod_container_port_name"],
        action: "drop",
        regex: linkerdFacts.proxyAdminPort,
      };
      const componentLabel: RelabelConfig = {
        sourceLabels: ["__meta_kubernetes_pod_container_name"],
        action: "replace",
        targetLabel: "component",
      };
      new PodMonitor(this, "controller", {
        metadata: metadata("linkerd-controller"),
        spec: {
          // The chart's default namespaceSelector: the control plane and linkerd-viz.
          namespaceSelector: { matchNames: [ns, "linkerd-viz"] },
          selector: { matchLabels: {} },
          podMetricsEndpoints: endpoint("linkerd-controller", [
            {
              sourceLabels: ["__meta_kubernetes_pod_container_port_name"],
              action: "keep",
              regex: controllerPortRegex,
            },
            dropProxyAdmin,
            componentLabel,
          ]),
        },
      });
      new PodMonitor(this, "proxy", {
        metadata: metadata(linkerdProxyMonitorName),
        spec: {
          namespaceSelector: { any: true },
          selector: { matchLabels: {} },
          podMetricsEndpoints: endpoint("linkerd-proxy", proxyRelabelings(ns)),
        },
      });
      return;
    }

    // Managed Service for Prometheus scrapes by port name (one endpoint per admin port), names the job
    // after the monitor (prometheus-engine pod_config.go at v0.17.2) and has no labelmap: the pod labels
    // the dashboards query are copied one by one (targetLabels.fromPod). PodMonitoring selects only in its
    // own namespace, and always adds `namespace`.
    for (const namespace of [ns, ...(props.extensionNamespaces ?? [])]) {
      const extension = namespace !== ns;
      new PodMonitoring(this, `controller-${namespace}`, {
        metadata: { name: "linkerd-controller", namespace },
        spec: extension
          ? {
              // linkerd-viz's components: label linkerd.io/extension, port `admin` (viz templates/*.yaml).
              selector: { matchExpressions: [{ key: "linkerd.io/extension", operator: "Exists" }] },
              endpoints: [{ port: linkerdFacts.extensionAdminPort, interval }],
              targetLabels: {
                metadata: ["pod", "container"],
                fromPod: [{ from: "component", to: "component" }],
              },
            }
          : {
              selector: {
                matchExpressions: [{ key: "linkerd.io/control-plane-component", operator: "Exists" }],
              },
              endpoints: linkerdFacts.controlPlaneAdminPorts.map((port) => ({ port, interval })),
              targetLabels: {
                metadata: ["pod", "container"],
                fromPod: [{ from: "linkerd.io/control-plane-component", to: "component" }],
              },
            },
      });
    }
    new ClusterPodMonitoring(this, "proxy", {
      metadata: { name: linkerdProxyMonitorName },
      spec: {
        // Every meshed pod carries this label; the proxy serves metrics on its admin port.
        selector: {
          matchExpressions: [{ key: "linkerd.io/control-plane-ns", operator: "In", values: [ns] }],
        },
        endpoints: [{ port: linkerdFacts.proxyAdminPort, interval }],
        targetLabels: {
          // `namespace` only where listed: a ClusterPodMonitoring adds it only then (pod_types.go ClusterTargetLabels).
          metadata: [
            "namespace",
            "pod",
            "container",
            "top_level_controller_name",
            "top_level_controller_type",
          ],
          fromPod: proxyPodLabels,
        },
      },
    });
  }
}

/** The chart's proxy relabel chain: keep `linkerd-proxy;linkerd-admin;<ns>`, then map pod labels. */
export function proxyRelabelings(namespace: string): RelabelConfig[] {
  return [
    {
      sourceLabels: [
        "__meta_kubernetes_pod_container_name",
        "__meta_kubernetes_pod_container_port_name",
        "__meta_kubernetes_pod_label_linkerd_io_control_plane_ns",
      ],
      action: "keep",
      regex: `^${linkerdFacts.proxyContainer};${linkerdFacts.proxyAdminPort};${namespace}$`,
    },
    { sourceLabels: ["__meta_kubernetes_namespace"], action: "replace", targetLabel: "namespace" },
    { sourceLabels: ["__meta_kubernetes_pod_name"], action: "replace", targetLabel: "pod" },
    {
      sourceLabels: ["__meta_kubernetes_pod_label_linkerd_io_proxy_job"],
      action: "replace",
      targetLabel: "k8s_job",
    },
    { action: "labeldrop", regex: "__meta_kubernetes_pod_label_linkerd_io_proxy_job" },
    { action: "labelmap", regex: "__meta_kubernetes_pod_label_linkerd_io_proxy_(.+)" },
    { action: "labeldrop", regex: "__meta_kubernetes_pod_label_linkerd_io_proxy_(.+)" },
    { action: "labelmap", regex: "__meta_kubernetes_pod_label_linkerd_io_(.+)" },
    { action: "labelmap", regex: "__meta_kubernetes_pod_label_(.+)", replacement: "__tmp_pod_label_$1" },
    { action: "labelmap", regex: "__tmp_pod_label_linkerd_io_(.+)", replacement: "__tmp_pod_label_$1" },
    { action: "labeldrop", regex: "__tmp_pod_label_linkerd_io_(.+)" },
    { action: "labelmap", regex: "__tmp_pod_label_(.+)" },
  ];
}
