import { charts, linkerdFacts } from "../../versions";
import type { SelectorSpec } from "../../manifests/selectors";
import { linkerdProbeRefusal, linkerdScrapeRefusal } from "./inboundPolicy";
import type { AdmittedPod, InjectedContainer, MeshAdmission } from "../admissionModel";
import { linkerdGrants } from "./grants";
import { linkerdProxyMonitorName } from "./monitors";

/**
 * Linkerd's proxy injector at edge-26.8.3. Its webhook (linkerd-proxy-injector.linkerd.io,
 * charts/linkerd-control-plane/templates/proxy-injector-rbac.yaml) is called for every pod outside
 * namespaces labelled `config.linkerd.io/admission-webhooks: disabled`; the injector then injects
 * where the pod's `linkerd.io/inject` annotation, or else its namespace's, is `enabled` or `ingress`
 * (controller/proxy-injector/webhook.go, pkg/inject/inject.go).
 */
const injectValue = (pod: AdmittedPod): string | undefined =>
  pod.annotations["linkerd.io/inject"] ?? pod.namespaceAnnotations["linkerd.io/inject"];

const resource = (
  values: Readonly<Record<string, unknown>>,
  kind: "cpu" | "memory",
  which: "request" | "limit",
) => {
  const proxy = (values.proxy ?? {}) as { resources?: Record<string, Record<string, string>> };
  return proxy.resources?.[kind]?.[which] ?? "";
};

/** The proxy container: its ports and resources (charts/partials/templates/_proxy.tpl). */
function proxyContainer(pod: AdmittedPod, values: Readonly<Record<string, unknown>>): InjectedContainer {
  // Per-pod overrides (config.linkerd.io/proxy-cpu-request, ...) win over the control plane's values.
  const pick = (kind: "cpu" | "memory", which: "request" | "limit") =>
    pod.annotations[`config.linkerd.io/proxy-${kind}-${which}`] ?? resource(values, kind, which);
  const only = (entries: [string, string][]) => Object.fromEntries(entries.filter(([, v]) => v !== ""));
  return {
    name: linkerdFacts.proxyContainer,
    ports: [
      { name: linkerdFacts.proxyInboundPort, containerPort: linkerdFacts.proxyInboundPortNumber },
      { name: linkerdFacts.proxyAdminPort, containerPort: linkerdFacts.proxyAdminPortNumber },
    ],
    resources: {
      requests: only([
        ["cpu", pick("cpu", "request")],
        ["memory", pick("memory", "request")],
      ]),
      limits: only([
        ["cpu", pick("cpu", "limit")],
        ["memory", pick("memory", "limit")],
      ]),
    },
  };
}

/** The owner label's suffix for each workload kind (pkg/k8s/labels.go at edge-26.8.3). */
const proxyOwnerLabel: Readonly<Record<string, string>> = {
  Deployment: "deployment",
  ReplicaSet: "replicaset",
  ReplicationController: "replicationcontroller",
  StatefulSet: "statefulset",
  DaemonSet: "daemonset",
  Job: "job",
  CronJob: "cronjob",
};

const everyAddress = new Set(["0.0.0.0/0", "::/0"]);

/**
 * Servers a chart renders whatever its values, for a component the platform turns off, which select
 * nothing and do nothing: linkerd-viz's for its own Prometheus, rendered even with `prometheus.enabled:
 * false` (viz/charts/linkerd-viz/templates/prometheus-policy.yaml at edge-26.8.3).
 */
const unconditionalServers: readonly { readonly chart: string; readonly name: string }[] = [
  { chart: charts.linkerdViz.chart, name: "prometheus-admin" },
];

export const linkerdAdmission: MeshAdmission = {
  mesh: "linkerd",
  title: "Linkerd",
  proxyConfigChart: "linkerd-control-plane",
  controlPlaneCharts: ["linkerd-control-plane"],
  scrapedCharts: ["linkerd-control-plane"],
  ownerLabels: Object.values(proxyOwnerLabel).map((kind) => `linkerd.io/proxy-${kind}`),
  // cert-manager's solver pod carries nothing for Linkerd (pkg/issuer/acme/http/pod.go at v1.21.2).
  acmeSolverDefaults: { labels: {}, annotations: {} },
  secretReaders: [
    {
      component: "linkerd-destination in its control plane's namespace",
      chart: charts.linkerdControlPlane.chart,
      podLabel: ["linkerd.io/control-plane-component", "destination"],
      // Its Role is in the control plane's namespace only (the release's).
      ownNamespaceOnly: true,
      reason:
        "the mesh's discovery and policy server, which already answers every proxy: it reads every Secret of the control plane's namespace for multicluster discovery, whatever the values (linkerd/linkerd2 edge-26.8.3 charts/linkerd-control-plane/templates/destination-rbac.yaml, Role remote-discovery)",
    },
  ],
  proxyContainer: linkerdFacts.proxyContainer,
  proxyMonitors: [`PodMonitor ${linkerdProxyMonitorName}`, `ClusterPodMonitoring ${linkerdProxyMonitorName}`],
  writtenInto: () => [],
  capturedByNodeProxy: () => false,
  // The proxy takes plain text from clients outside the mesh; only its inbound policy refuses them.
  scrapeRefusal: linkerdScrapeRefusal,
  probeRefusal: linkerdProbeRefusal,
  grants: linkerdGrants,
  openAccess: (objects) =>
    objects.flatMap((o) => {
      if (!o.apiVersion.startsWith("policy.linkerd.io/")) return [];
      if (o.kind === "NetworkAuthentication") {
        const open = ((o.spec as { networks?: { cidr: string }[] }).networks ?? []).filter((n) =>
          everyAddress.has(n.cidr),
        );
        return open.length > 0
          ? [{ object: o, message: `authorizes ${open.map((n) => n.cidr).join(", ")}: every address` }]
          : [];
      }
      // A Server's accessPolicy applies to what no AuthorizationPolicy covers (reference/authorization-policy.md).
      if (o.kind === "Server" && (o.spec as { accessPolicy?: string }).accessPolicy === "all-unauthenticated")
        return [{ object: o, message: "lets every address in (accessPolicy all-unauthenticated)" }];
      return [];
    }),
  // A Server guards the port it names on the pods it selects (reference/authorization-policy.md).
  servedPort: (o, chart) => {
    if (o.kind !== "Server" || !o.apiVersion.startsWith("policy.linkerd.io/")) return undefined;
    if (unconditionalServers.some((u) => u.chart === chart && u.name === o.metadata.name)) return undefined;
    const spec = (o.spec ?? {}) as { podSelector?: SelectorSpec; port?: string | number };
    return { podSelector: spec.podSelector, port: spec.port };
  },
  isInjectionWebhook: (name) => name === "linkerd-proxy-injector.linkerd.io",
  asksForProxy: (pod) => {
    const v = injectValue(pod);
    return v === "enabled" || v === "ingress";
  },
  injects: (pod) => {
    const v = injectValue(pod);
    return v === "enabled" || v === "ingress";
  },
  // One control plane per cluster serves every pod.
  servingControlPlanes: (_pod, controlPlanes) => controlPlanes,
  proxy(pod, values) {
    const container = proxyContainer(pod, values);
    const native =
      (pod.annotations["config.linkerd.io/proxy-enable-native-sidecar"] ??
        pod.namespaceAnnotations["config.linkerd.io/proxy-enable-native-sidecar"] ??
        String(
          (values.proxy as { nativeSidecar?: boolean } | undefined)?.nativeSidecar ??
            linkerdFacts.nativeSidecarDefault,
        )) === "true";
    // linkerd-init (iptables) without CNI, linkerd-network-validator with it (_proxy-init.tpl, _network-validator.tpl).
    const init: InjectedContainer = {
      name: values.cniEnabled === true ? "linkerd-network-validator" : "linkerd-init",
      ports: [],
      resources: container.resources,
    };
    return {
      containers: native ? [] : [container],
      initContainers: native ? [init, container] : [init],
      labels: {
        // pkg/k8s/labels.go: ControllerNSLabel, ProxyDeploymentLabel and WorkloadNamespaceLabel.
        "linkerd.io/control-plane-ns": "linkerd",
        "linkerd.io/workload-ns": pod.namespaceLabels["kubernetes.io/metadata.name"] ?? "",
        // The owner's kind and name, which the proxy monitor maps as `deployment`, `k8s_job`, ...
        // (pkg/inject/inject.go, pkg/k8s/labels.go ProxyDeploymentLabel and siblings).
        ...(proxyOwnerLabel[pod.workloadKind]
          ? { [`linkerd.io/proxy-${proxyOwnerLabel[pod.workloadKind]}`]: pod.workload }
          : {}),
      },
      annotations: { "linkerd.io/inject": "enabled" },
    };
  },
};
