import * as fs from "fs";
import * as path from "path";
import { parser } from "@prometheus-io/lezer-promql";
import { nameOf, selects, type KubeObject, type LabelSelector, type ObjectSet } from "../../lib/cluster";
import type { Container, PodTemplate } from "../../lib/cluster";
import { istioFacts, linkerdFacts } from "../../lib/versions";

/**
 * The dashboard consistency check: every dashboard the platform links (Linkerd's, by grafana.com id) or
 * that its mesh ships (Istio's addon dashboards), and every alert and recording rule in a render's object
 * set, parsed as PromQL; each series selector's metric and `job` and label matchers must be produced by
 * some monitor of the same render, with the labels the scrape adds as the Prometheus Operator or Managed
 * Prometheus would set them (their relabelings run over each pod the monitor selects). A panel or rule
 * that could never return data is a finding.
 */

/** One thing a query asks for that no monitor of the render produces. */
export interface QueryFinding {
  readonly invariant: "queries-served";
  /** The dashboard or PrometheusRule, as `Dashboard <file>` or `PrometheusRule namespace/name`. */
  readonly object: string;
  readonly message: string;
}

// ---------------------------------------------------------------- scrape targets

/** One scrape target: its final labels, the path scraped, and the pod it is on (for finding its source). */
export interface Target {
  readonly monitor: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly path: string;
  /** The scraped pod's own labels; empty for targets outside the object set (kubelet, API server). */
  readonly podLabels: Readonly<Record<string, string>>;
  /** The monitor keeps the series' own labels over the target's (honorLabels). */
  readonly honorLabels: boolean;
}

interface Relabel {
  readonly sourceLabels?: readonly string[];
  readonly separator?: string;
  readonly targetLabel?: string;
  readonly regex?: string;
  readonly replacement?: string;
  readonly action?: string;
}

/** Prometheus' relabelling (model/relabel/relabel.go): anchored regexes, `$1` and `${1}` in replacements. */
export function relabel(
  labels: Record<string, string>,
  rules: readonly Relabel[],
): Record<string, string> | undefined {
  let out = { ...labels };
  for (const r of rules) {
    const action = (r.action ?? "replace").toLowerCase();
    const re = new RegExp(`^(?:${r.regex ?? "(.*)"})$`);
    const value = (r.sourceLabels ?? []).map((l) => out[l] ?? "").join(r.separator ?? ";");
    const expand = (m: RegExpExecArray, template: string) =>
      template.replace(/\$\{?(\w+)\}?/g, (_, g: string) => m[Number(g)] ?? "");
    switch (action) {
      case "replace": {
        const m = re.exec(value);
        if (!m || !r.targetLabel) break;
        const v = expand(m, r.replacement ?? "$1");
        const target = expand(m, r.targetLabel);
        if (v === "") delete out[target];
        else out[target] = v;
        break;
      }
      case "keep":
        if (!re.test(value)) return undefined;
        break;
      case "drop":
        if (re.test(value)) return undefined;
        break;
      case "labelmap":
        for (const [k, v] of Object.entries(out)) {
          const m = re.exec(k);
          if (m) out[expand(m, r.replacement ?? "$1")] = v;
        }
        break;
      case "labeldrop":
        out = Object.fromEntries(Object.entries(out).filter(([k]) => !re.test(k)));
        break;
      case "labelkeep":
        out = Object.fromEntries(Object.entries(out).filter(([k]) => re.test(k)));
        break;
      default:
        break;
    }
  }
  return out;
}

const sanitize = (name: string) => name.replace(/[^a-zA-Z0-9_]/g, "_");

/** What Kubernetes service discovery (role pod) says of one container port of a pod. */
function podMeta(
  pod: PodTemplate,
  container: { name: string },
  port: { name?: string; containerPort: number } | undefined,
  init: boolean,
): Record<string, string> {
  const meta: Record<string, string> = {
    __address__: `10.0.0.1${port ? `:${port.containerPort}` : ""}`,
    __metrics_path__: "/metrics",
    __scheme__: "http",
    __meta_kubernetes_namespace: pod.namespace,
    __meta_kubernetes_pod_name: `${pod.owner.metadata.name}-0`,
    __meta_kubernetes_pod_ip: "10.0.0.1",
    __meta_kubernetes_pod_phase: "Running",
    __meta_kubernetes_pod_node_name: "node-1",
    __meta_kubernetes_pod_container_name: container.name,
    __meta_kubernetes_pod_container_init: String(init),
    __meta_kubernetes_pod_controller_kind: pod.owner.kind,
    __meta_kubernetes_pod_controller_name: pod.owner.metadata.name,
  };
  if (port) {
    if (port.name) meta.__meta_kubernetes_pod_container_port_name = port.name;
    meta.__meta_kubernetes_pod_container_port_number = String(port.containerPort);
  }
  for (const [k, v] of Object.entries(pod.labels)) {
    meta[`__meta_kubernetes_pod_label_${sanitize(k)}`] = v;
    meta[`__meta_kubernetes_pod_labelpresent_${sanitize(k)}`] = "true";
  }
  for (const [k, v] of Object.entries(pod.annotations)) {
    meta[`__meta_kubernetes_pod_annotation_${sanitize(k)}`] = v;
    meta[`__meta_kubernetes_pod_annotationpresent_${sanitize(k)}`] = "true";
  }
  return meta;
}

/** Every (container, port) a pod exposes to service discovery; a container without ports is one target. */
function podPorts(
  pod: PodTemplate,
): { container: Container; port?: { name?: string; containerPort: number }; init: boolean }[] {
  return [
    ...pod.containers.map((c) => ({ c, init: false })),
    ...pod.initContainers.map((c) => ({ c, init: true })),
  ].flatMap(({ c, init }) =>
    (c.ports ?? []).length > 0
      ? (c.ports ?? []).map((p) => ({ container: c, port: p, init }))
      : [{ container: c, init }],
  );
}

/** The labels a target ends with: everything not starting with `__`, and `instance` from the address. */
function finalLabels(labels: Record<string, string>): Record<string, string> {
  const out = Object.fromEntries(Object.entries(labels).filter(([k]) => !k.startsWith("__")));
  return { instance: labels.__address__ ?? "", ...out };
}

type Json = Record<string, unknown>;

/** Linkerd's owner labels (pkg/k8s/labels.go at edge-26.8.3): one per kind a meshed pod may belong to. */
const linkerdOwnerLabels = [
  "deployment",
  "replicaset",
  "replicationcontroller",
  "statefulset",
  "daemonset",
  "job",
  "cronjob",
].map((k) => `linkerd.io/proxy-${k}`);

/**
 * The render's pods, and for each meshed pod the same pod owned by every other kind of workload: the
 * labels a monitor maps from a Job's or a StatefulSet's pods are checked though the render runs none.
 */
function probePods(set: ObjectSet): PodTemplate[] {
  return set.pods.flatMap((p) => {
    const own = linkerdOwnerLabels.find((l) => p.labels[l] !== undefined);
    if (!own) return [p];
    return [
      p,
      ...linkerdOwnerLabels
        .filter((l) => l !== own)
        .map((l) => {
          const labels = Object.fromEntries(Object.entries(p.labels).filter(([k]) => k !== own));
          return { ...p, labels: { ...labels, [l]: p.owner.metadata.name } };
        }),
    ];
  });
}

/**
 * Containers of the pods the Prometheus Operator makes for a Prometheus or an Alertmanager, by the port
 * their Service targets (pkg/prometheus/statefulset.go, pkg/alertmanager/statefulset.go at v0.93.0:
 * the server's `http-web`, the config reloader's `reloader-web`).
 */
const operatorContainers: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  prometheus: { "http-web": "prometheus", "reloader-web": "config-reloader" },
  alertmanager: { "http-web": "alertmanager", "reloader-web": "config-reloader" },
};

/**
 * A PodMonitor's targets, with the relabelings the Prometheus Operator puts before the user's
 * (pkg/prometheus/promcfg.go generatePodMonitorConfig at v0.93.0): port filter, namespace, container,
 * pod, job `<namespace>/<name>` (or the pod label `jobLabel` names), endpoint; then the endpoint's own.
 */
function podMonitorTargets(set: ObjectSet, m: KubeObject): Target[] {
  const spec = (m.spec ?? {}) as {
    selector?: LabelSelector;
    namespaceSelector?: { any?: boolean; matchNames?: string[] };
    jobLabel?: string;
    podMetricsEndpoints?: (Json & {
      port?: string;
      portNumber?: number;
      path?: string;
      relabelings?: Relabel[];
      honorLabels?: boolean;
    })[];
  };
  const inScope = (ns: string) =>
    spec.namespaceSelector?.any === true ||
    (spec.namespaceSelector?.matchNames ?? [m.metadata.namespace]).includes(ns);
  const pods = probePods(set).filter((p) => inScope(p.namespace) && selects(spec.selector, p.labels));
  const out: Target[] = [];
  for (const ep of spec.podMetricsEndpoints ?? []) {
    for (const pod of pods) {
      for (const { container, port, init } of podPorts(pod)) {
        if (ep.port !== undefined && port?.name !== ep.port) continue;
        if (ep.portNumber !== undefined && port?.containerPort !== ep.portNumber) continue;
        const meta = { ...podMeta(pod, container, port, init), __metrics_path__: ep.path ?? "/metrics" };
        const jobLabel = spec.jobLabel ? pod.labels[spec.jobLabel] : undefined;
        const generated: Relabel[] = [
          { sourceLabels: ["__meta_kubernetes_namespace"], targetLabel: "namespace" },
          { sourceLabels: ["__meta_kubernetes_pod_container_name"], targetLabel: "container" },
          { sourceLabels: ["__meta_kubernetes_pod_name"], targetLabel: "pod" },
          { targetLabel: "job", replacement: `${m.metadata.namespace}/${m.metadata.name}` },
          ...(jobLabel ? [{ targetLabel: "job", replacement: jobLabel }] : []),
          ...(ep.port ? [{ targetLabel: "endpoint", replacement: ep.port }] : []),
        ];
        const labels = relabel(meta, [...generated, ...(ep.relabelings ?? [])]);
        if (!labels) continue;
        out.push({
          monitor: nameOf(m),
          labels: finalLabels(labels),
          path: labels.__metrics_path__ ?? "/metrics",
          podLabels: pod.labels,
          honorLabels: ep.honorLabels === true,
        });
      }
    }
  }
  return out;
}

/**
 * Services whose endpoints no object in the set describes: the kubelets (the operator's Service,
 * kube-prometheus-stack values.yaml prometheusOperator.kubeletService) and the API server.
 */
const externalServices: KubeObject[] = [
  {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: "kube-prometheus-stack-kubelet",
      namespace: "kube-system",
      labels: { "app.kubernetes.io/name": "kubelet", "k8s-app": "kubelet" },
    },
    spec: {
      ports: [
        { name: "https-metrics", port: 10250 },
        { name: "http-metrics", port: 10255 },
      ],
    },
  },
  {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: "kubernetes",
      namespace: "default",
      labels: { component: "apiserver", provider: "kubernetes" },
    },
    spec: { ports: [{ name: "https", port: 443 }] },
  },
];

/**
 * A ServiceMonitor's targets (promcfg.go generateServiceMonitorConfig at v0.93.0): per Service it selects
 * and endpoint port, the pods behind it (or one target where the pods are made outside the set), with
 * namespace, service, pod, container, job (the Service's name, or its `jobLabel` label), endpoint, the
 * Service labels in targetLabels, `node` for endpoints on nodes; then the endpoint's relabelings.
 */
function serviceMonitorTargets(set: ObjectSet, m: KubeObject): Target[] {
  const spec = (m.spec ?? {}) as {
    selector?: LabelSelector;
    namespaceSelector?: { any?: boolean; matchNames?: string[] };
    jobLabel?: string;
    targetLabels?: string[];
    endpoints?: { port?: string; path?: string; relabelings?: Relabel[]; honorLabels?: boolean }[];
  };
  const inScope = (ns: string) =>
    spec.namespaceSelector?.any === true ||
    (spec.namespaceSelector?.matchNames ?? [m.metadata.namespace]).includes(ns);
  const services = [...set.objects.filter((o) => o.kind === "Service"), ...externalServices].filter(
    (o) => inScope(o.metadata.namespace ?? "") && selects(spec.selector, o.metadata.labels ?? {}),
  );
  const out: Target[] = [];
  for (const svc of services) {
    const svcLabels = svc.metadata.labels ?? {};
    const selector = (svc.spec as { selector?: Record<string, string> }).selector;
    const pods =
      selector && Object.keys(selector).length > 0
        ? set.pods.filter(
            (p) => p.namespace === svc.metadata.namespace && selects({ matchLabels: selector }, p.labels),
          )
        : [];
    const onNodes = externalServices.includes(svc) && svc.metadata.name.endsWith("kubelet");
    const made = operatorContainers[selector?.["app.kubernetes.io/name"] ?? ""];
    for (const ep of spec.endpoints ?? []) {
      const ports = (
        (svc.spec as { ports?: { name?: string; targetPort?: string | number }[] }).ports ?? []
      ).filter((p) => ep.port === undefined || p.name === ep.port);
      if (ports.length === 0) continue;
      const madeContainer = made?.[ports[0].name ?? ""];
      const base: Record<string, string> = {
        __address__: "10.0.0.1:8080",
        __metrics_path__: ep.path ?? "/metrics",
        __meta_kubernetes_namespace: svc.metadata.namespace ?? "",
        __meta_kubernetes_service_name: svc.metadata.name,
        ...Object.fromEntries(
          Object.entries(svcLabels).map(([k, v]) => [`__meta_kubernetes_service_label_${sanitize(k)}`, v]),
        ),
      };
      const generated = (podName?: string, containerName?: string): Relabel[] => [
        { sourceLabels: ["__meta_kubernetes_namespace"], targetLabel: "namespace" },
        { targetLabel: "service", replacement: svc.metadata.name },
        ...(podName ? [{ targetLabel: "pod", replacement: podName }] : []),
        ...(containerName ? [{ targetLabel: "container", replacement: containerName }] : []),
        ...(onNodes ? [{ targetLabel: "node", replacement: "node-1" }] : []),
        { targetLabel: "job", replacement: svc.metadata.name },
        ...(spec.jobLabel && svcLabels[spec.jobLabel]
          ? [{ targetLabel: "job", replacement: svcLabels[spec.jobLabel] }]
          : []),
        ...(ep.port ? [{ targetLabel: "endpoint", replacement: ep.port }] : []),
        ...(spec.targetLabels ?? [])
          .filter((l) => svcLabels[l] !== undefined)
          .map((l) => ({ targetLabel: sanitize(l), replacement: svcLabels[l] })),
      ];
      const targets: { meta: Record<string, string>; rules: Relabel[]; podLabels: Record<string, string> }[] =
        pods.length > 0
          ? pods.map((p) => ({
              meta: {
                ...base,
                ...podMeta(p, p.containers[0] ?? { name: "" }, undefined, false),
                __metrics_path__: ep.path ?? "/metrics",
              },
              rules: generated(`${p.owner.metadata.name}-0`, p.containers[0]?.name),
              podLabels: { ...p.labels },
            }))
          : [{ meta: base, rules: generated(`${svc.metadata.name}-0`, madeContainer), podLabels: {} }];
      for (const t of targets) {
        const labels = relabel(t.meta, [...t.rules, ...(ep.relabelings ?? [])]);
        if (!labels) continue;
        out.push({
          monitor: nameOf(m),
          labels: finalLabels(labels),
          path: labels.__metrics_path__ ?? "/metrics",
          podLabels: t.podLabels,
          honorLabels: ep.honorLabels === true,
        });
      }
    }
  }
  return out;
}

/**
 * Managed Prometheus' targets (prometheus-engine pod_config.go at v0.17.2): job is the monitor's name;
 * a PodMonitoring adds `namespace` always, a ClusterPodMonitoring only where its metadata lists it
 * (default: container, namespace, pod, top_level_controller_*); `fromPod` copies pod labels.
 */
function managedTargets(set: ObjectSet, m: KubeObject): Target[] {
  const spec = (m.spec ?? {}) as {
    selector?: LabelSelector;
    endpoints?: { port: string | number; path?: string }[];
    targetLabels?: { metadata?: string[]; fromPod?: { from: string; to?: string }[] };
  };
  const cluster = m.kind === "ClusterPodMonitoring";
  const metadata =
    spec.targetLabels?.metadata ??
    (cluster
      ? ["container", "namespace", "pod", "top_level_controller_name", "top_level_controller_type"]
      : ["container", "pod", "top_level_controller_name", "top_level_controller_type"]);
  const pods = probePods(set).filter(
    (p) => (cluster || p.namespace === m.metadata.namespace) && selects(spec.selector, p.labels),
  );
  const out: Target[] = [];
  for (const ep of spec.endpoints ?? []) {
    for (const pod of pods) {
      const served = podPorts(pod).some(
        ({ container, port }) =>
          port?.name === ep.port ||
          port?.containerPort === ep.port ||
          (typeof ep.port === "number" && (container.listens ?? []).includes(ep.port)),
      );
      if (!served) continue;
      const labels: Record<string, string> = {
        job: m.metadata.name,
        instance: `${pod.owner.metadata.name}-0:${ep.port}`,
        ...(cluster && !metadata.includes("namespace") ? {} : { namespace: pod.namespace }),
        ...(metadata.includes("pod") ? { pod: `${pod.owner.metadata.name}-0` } : {}),
        ...(metadata.includes("container") && typeof ep.port === "string" ? { container: "c" } : {}),
        ...(metadata.includes("top_level_controller_name")
          ? { top_level_controller_name: pod.owner.metadata.name }
          : {}),
        ...(metadata.includes("top_level_controller_type")
          ? { top_level_controller_type: pod.owner.kind }
          : {}),
        ...(metadata.includes("node") ? { node: "node-1" } : {}),
      };
      for (const f of spec.targetLabels?.fromPod ?? []) {
        if (pod.labels[f.from] !== undefined) labels[sanitize(f.to ?? f.from)] = pod.labels[f.from];
      }
      out.push({
        monitor: nameOf(m),
        labels,
        path: ep.path ?? "/metrics",
        podLabels: pod.labels,
        honorLabels: false,
      });
    }
  }
  return out;
}

/** Every scrape target the render's monitors produce. */
export function scrapeTargets(set: ObjectSet): Target[] {
  return set.objects.flatMap((o) => {
    switch (o.kind) {
      case "PodMonitor":
        return podMonitorTargets(set, o);
      case "ServiceMonitor":
        return serviceMonitorTargets(set, o);
      case "PodMonitoring":
      case "ClusterPodMonitoring":
        return managedTargets(set, o);
      default:
        return [];
    }
  });
}

// ---------------------------------------------------------------- queries

/** One series selector of a query: the metric and its label matchers. */
export interface Selector {
  readonly metric: string;
  readonly matchers: readonly { readonly label: string; readonly op: string; readonly value: string }[];
}

/**
 * Grafana's variables made PromQL: `$__rate_interval` and `[$interval]` become a duration, a bare
 * variable a number; inside label values they stay, and match as "any value".
 */
function promqlOf(expr: string): string {
  let out = "";
  let quote: string | undefined;
  for (let i = 0; i < expr.length; i++) {
    const ch = expr[i];
    if (quote) {
      out += ch;
      if (ch === "\\") out += expr[++i] ?? "";
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === '"' || ch === "'" || ch === "`") {
      quote = ch;
      out += ch;
      continue;
    }
    if (ch === "$") {
      const m = /^\$(\{[^}]*\}|\w+)/.exec(expr.slice(i));
      if (m) {
        // After "[" or ":" (a range or a resolution) a duration, elsewhere a number.
        out += /[[:]\s*$/.test(out) ? "5m" : "1";
        i += m[0].length - 1;
        continue;
      }
    }
    out += ch;
  }
  return out;
}

const unquote = (s: string) => {
  try {
    return s.startsWith("`")
      ? s.slice(1, -1)
      : (JSON.parse(s.startsWith("'") ? `"${s.slice(1, -1)}"` : s) as string);
  } catch {
    return s.slice(1, -1);
  }
};

/** The series selectors of one PromQL expression (dashboard variables allowed), or a parse error. */
export function selectorsOf(expr: string): Selector[] | { error: string } {
  const text = promqlOf(expr);
  const tree = parser.parse(text);
  const selectors: Selector[] = [];
  let error: string | undefined;
  tree.iterate({
    enter: (n) => {
      if (n.type.isError)
        error ??= `cannot parse at ${n.from}: ${text.slice(Math.max(0, n.from - 20), n.from + 20)}`;
      if (n.name !== "VectorSelector") return;
      let metric = "";
      const matchers: { label: string; op: string; value: string }[] = [];
      const node = n.node;
      const id = node.getChild("Identifier");
      if (id) metric = text.slice(id.from, id.to);
      const list = node.getChild("LabelMatchers");
      for (const m of list
        ? [...list.getChildren("UnquotedLabelMatcher"), ...list.getChildren("QuotedLabelMatcher")]
        : []) {
        const name = m.getChild("LabelName") ?? m.getChild("QuotedLabelName");
        const op = m.getChild("MatchOp");
        const value = m.getChild("StringLiteral");
        if (m.name === "QuotedLabelMatcher" && !op) {
          // {"metric_name"}: the metric named in quotes.
          const q = m.getChild("QuotedLabelName");
          if (q) metric = unquote(text.slice(q.from, q.to));
          continue;
        }
        if (!name || !op || !value) continue;
        const label = unquote(text.slice(name.from, name.to).replace(/^(?!")(.*)$/, '"$1"'));
        const v = unquote(text.slice(value.from, value.to));
        if (label === "__name__" && op && text.slice(op.from, op.to) === "=") metric = v;
        else matchers.push({ label, op: text.slice(op.from, op.to), value: v });
      }
      selectors.push({ metric, matchers });
    },
  });
  return error ? { error } : selectors;
}

/** Queries a Grafana dashboard holds: panels' targets and the template variables' queries. */
export function dashboardQueries(dashboard: unknown): string[] {
  const out: string[] = [];
  const walk = (o: unknown, key?: string): void => {
    if (Array.isArray(o)) o.forEach((x) => walk(x, key));
    else if (o && typeof o === "object") {
      for (const [k, v] of Object.entries(o as Record<string, unknown>)) {
        if (k === "expr" && typeof v === "string" && v.trim()) out.push(v);
        else if (k === "query" && typeof v === "string" && key === "templating")
          out.push(...variableQuery(v));
        else if (
          k === "query" &&
          v &&
          typeof v === "object" &&
          typeof (v as { query?: unknown }).query === "string" &&
          key === "templating"
        )
          out.push(...variableQuery((v as { query: string }).query));
        else walk(v, k === "templating" || key === "templating" ? "templating" : k);
      }
    }
  };
  walk(dashboard);
  return out;
}

/** A template variable's query: `label_values(<selector>, <label>)` or `query_result(<promql>)`; `label_values(<label>)` reads no series. */
function variableQuery(q: string): string[] {
  const lv = /^\s*label_values\((.*),\s*([a-zA-Z_]\w*)\s*\)\s*$/s.exec(q);
  if (lv) {
    // The label the variable lists must exist on the series: a matcher `label!=""` says so.
    const sel = lv[1].trim();
    return [/\}\s*$/.test(sel) ? sel.replace(/\}\s*$/, `, ${lv[2]}!=""}`) : `${sel}{${lv[2]}!=""}`];
  }
  const qr = /^\s*query_result\((.*)\)\s*$/s.exec(q);
  if (qr) return [qr[1]];
  return [];
}

// ---------------------------------------------------------------- sources

/**
 * Where a metric comes from when a query names no job, and the labels the scrape (not the metric) adds
 * there, which the query may filter on. Each from the upstream's own scrape config or sample monitors.
 */
interface Source {
  readonly title: string;
  readonly metric: RegExp;
  /** The targets that serve it. */
  readonly serves: (t: Target) => boolean;
  /**
   * Labels the metric carries itself, where its targets keep them over the scrape's (honorLabels): any
   * other label a query filters on must come from the scrape.
   */
  readonly emits?: ReadonlySet<string>;
}

const sources: readonly Source[] = [
  {
    // The proxy's metrics (linkerd2-proxy); served on linkerd-admin /metrics, job linkerd-proxy
    // (viz/charts/linkerd-viz/templates/prometheus.yaml at edge-26.8.3).
    title: "the Linkerd proxies",
    metric:
      /^(request_total|response_total|response_latency_ms(_bucket|_sum|_count)?|tcp_.*|route_.*|inbound_.*|outbound_.*|control_.*)$/,
    serves: (t) => t.labels.job === "linkerd-proxy" && t.path === linkerdFacts.proxyAdminPaths.metrics,
  },
  {
    // Envoy's and the agent's merged metrics on 15020 /stats/prometheus (Istio's envoy-stats-monitor sample),
    // and ztunnel's on the same port and path.
    title: "the Istio proxies and ztunnel",
    metric:
      /^(istio_requests_total|istio_request_.*|istio_response_.*|istio_tcp_.*|envoy_.*|istio_dns_.*|istio_xds_.*|workload_manager_.*|istio_agent_.*)$/,
    serves: (t) => t.path === "/stats/prometheus",
  },
  {
    // istiod's own (pilot/pkg/...); served on http-monitoring 15014 (Istio's istio-component-monitor sample).
    title: "istiod",
    metric: /^(pilot_.*|galley_.*|citadel_.*|sidecar_injection_.*|istiod_.*|istio_build)$/,
    serves: (t) => t.podLabels.app === "istiod" || t.podLabels.app === "ztunnel",
  },
  {
    // cAdvisor's, through the kubelet (kube-prometheus-stack's kubelet ServiceMonitor, metrics_path /metrics/cadvisor).
    title: "cAdvisor on the kubelets",
    metric: /^(container|machine)_.*$/,
    serves: (t) => t.labels.metrics_path === "/metrics/cadvisor",
    // The kubelet's cAdvisor series labels (pkg/kubelet/metrics/collectors, cadvisor's container labels).
    emits: new Set([
      "container",
      "id",
      "image",
      "name",
      "namespace",
      "pod",
      "cpu",
      "device",
      "interface",
      "scope",
      "failure_type",
    ]),
  },
];

// ---------------------------------------------------------------- the check

/** Labels a query may filter on that only the scrape adds, by what the query is about. */
export type QuerySet = "linkerd" | "istio" | "rules";

const scrapeLabels: Readonly<Record<QuerySet, ReadonlySet<string>>> = {
  // viz's scrape config (templates/prometheus.yaml): namespace, pod, component, and the pod labels mapped
  // (linkerd.io/proxy-<kind> as <kind>, linkerd.io/<x> as <x>, k8s_job), and cAdvisor's node labels.
  linkerd: new Set([
    "job",
    "namespace",
    "pod",
    "component",
    "deployment",
    "daemonset",
    "statefulset",
    "replicaset",
    "replicationcontroller",
    "cronjob",
    "k8s_job",
    "control_plane_ns",
    "workload_ns",
    "kubernetes_io_hostname",
  ]),
  // Istio's sample monitors: namespace and pod (envoy-stats-monitor), app (istio-component-monitor targetLabels).
  istio: new Set(["job", "namespace", "pod", "app"]),
  // The Prometheus Operator's target labels.
  rules: new Set(["job", "namespace", "service", "endpoint", "pod", "container", "node", "metrics_path"]),
};

/**
 * Whether a matcher's value can be satisfied by a target's label. A value with a dashboard variable
 * matches any value but needs the label: the variable lists the label's values to pick from.
 */
function satisfies(m: { op: string; value: string }, value: string | undefined): boolean {
  const variable = m.value.includes("$");
  const v = value ?? "";
  switch (m.op) {
    case "=":
      return variable ? v !== "" : v === m.value;
    case "=~":
      return variable ? v !== "" : new RegExp(`^(?:${m.value})$`).test(v);
    case "!=":
      return variable || v !== m.value;
    case "!~":
      return variable || !new RegExp(`^(?:${m.value})$`).test(v);
    default:
      return true;
  }
}

/** The queries a render's dashboards and rules hold, each with where it comes from. */
export interface Queries {
  readonly object: string;
  readonly set: QuerySet;
  readonly exprs: readonly string[];
}

/**
 * Checks each query's series selectors against the render's targets: its `job` must be produced, the
 * metric's source (when no job is named) must be scraped, and every matcher on a label only the scrape
 * adds must be satisfiable by a target of that job or source. Series from monitors that keep the metric's
 * own labels (honorLabels) are judged by job only. Recording rules' outputs (`a:b:c`) are judged where
 * they are recorded. `cluster`: the render scrapes the kubelets (kube-prometheus-stack); without it cAdvisor
 * series are not the platform's to produce and are not judged.
 */
export function checkQueries(
  set: ObjectSet,
  queries: readonly Queries[],
  targets = scrapeTargets(set),
): QueryFinding[] {
  const findings: QueryFinding[] = [];
  const recorded = new Set(
    set.objects
      .filter((o) => o.kind === "PrometheusRule")
      .flatMap((o) =>
        ((o.spec as { groups?: { rules?: { record?: string }[] }[] }).groups ?? []).flatMap(
          (g) => g.rules ?? [],
        ),
      )
      .flatMap((r) => (r.record ? [r.record] : [])),
  );
  const kubelets = targets.some((t) => t.labels.metrics_path === "/metrics/cadvisor");
  for (const q of queries) {
    const seen = new Set<string>();
    for (const expr of q.exprs) {
      const parsed = selectorsOf(expr);
      if ("error" in parsed) {
        findings.push({
          invariant: "queries-served",
          object: q.object,
          message: `${parsed.error}: a query that cannot be parsed never shows data`,
        });
        continue;
      }
      for (const s of parsed) {
        if (
          s.metric.includes(":") ||
          recorded.has(s.metric) ||
          s.metric === "ALERTS" ||
          s.metric === "ALERTS_FOR_STATE"
        )
          continue;
        const problem = selectorProblem(s, q.set, targets, kubelets);
        if (!problem) continue;
        const key = `${q.object} ${problem}`;
        if (seen.has(key)) continue;
        seen.add(key);
        findings.push({ invariant: "queries-served", object: q.object, message: problem });
      }
    }
  }
  return findings;
}

function show(s: Selector): string {
  return `${s.metric}{${s.matchers.map((m) => `${m.label}${m.op}"${m.value}"`).join(",")}}`;
}

function selectorProblem(
  s: Selector,
  set: QuerySet,
  targets: readonly Target[],
  kubelets: boolean,
): string | undefined {
  const job = s.matchers.filter((m) => m.label === "job");
  const source = sources.find((src) => src.metric.test(s.metric));
  if (source?.title === "cAdvisor on the kubelets" && !kubelets && job.length === 0) return undefined;
  let candidates = targets.filter((t) => job.every((m) => satisfies(m, t.labels.job)));
  if (job.length > 0 && candidates.length === 0) {
    return `${show(s)} asks for job ${job.map((m) => `${m.op}"${m.value}"`).join(" ")}, which no monitor produces (jobs here: ${[...new Set(targets.map((t) => t.labels.job))].sort().join(", ") || "none"})`;
  }
  if (job.length === 0 && source) {
    candidates = candidates.filter(source.serves);
    if (candidates.length === 0) return `${show(s)} is a metric of ${source.title}, which no monitor scrapes`;
  }
  const labels = scrapeLabels[set];
  const emitted = job.length === 0 ? source?.emits : undefined;
  const required = s.matchers.filter(
    (m) => m.label !== "job" && labels.has(m.label) && !(emitted?.has(m.label) ?? false),
  );
  if (required.length === 0 || (!emitted && candidates.some((t) => t.honorLabels))) return undefined;
  if (candidates.some((t) => required.every((m) => satisfies(m, t.labels[m.label])))) return undefined;
  const missing = required.filter((m) => !candidates.some((t) => satisfies(m, t.labels[m.label])));
  return `${show(s)} filters on ${missing.map((m) => m.label).join(", ")}, which no monitor of its ${job.length > 0 ? "job" : "source"} sets as the query needs (monitors: ${[...new Set(candidates.map((t) => t.monitor))].sort().join(", ")})`;
}

// ---------------------------------------------------------------- what a render ships

/** Where the upstream dashboards are (PROVENANCE-dashboards.md there names their tags and commits). */
export const dashboardsDir = path.resolve(__dirname, "../../../shared/reference/upstream/dashboards");

/**
 * Linkerd's dashboards by the name the platform links them under (linkerdFacts.grafanaDashboards), as
 * files of linkerd/linkerd2 grafana/dashboards at edge-26.8.3 (the sources of those grafana.com ids).
 */
export const linkerdDashboardFiles: Readonly<Record<string, string>> = {
  "linkerd-top-line": "top-line.json",
  "linkerd-health": "health.json",
  "linkerd-kubernetes": "kubernetes.json",
  "linkerd-namespace": "namespace.json",
  "linkerd-deployment": "deployment.json",
  "linkerd-pod": "pod.json",
  "linkerd-service": "service.json",
  "linkerd-route": "route.json",
  "linkerd-authority": "authority.json",
  "linkerd-job": "job.json",
};

/** The dashboards and rules a render ships, or why the dashboards cannot be read here. */
export function renderQueries(set: ObjectSet, dir = dashboardsDir): { queries: Queries[]; missing?: string } {
  const charts = new Set(set.releases.map((r) => r.chart));
  const monitored = set.objects.some((o) =>
    ["PodMonitor", "ServiceMonitor", "PodMonitoring", "ClusterPodMonitoring"].includes(o.kind),
  );
  const queries: Queries[] = set.objects
    .filter((o) => o.kind === "PrometheusRule")
    .map((o) => ({
      object: nameOf(o),
      set: "rules" as const,
      exprs: ((o.spec as { groups?: { rules?: { expr?: string }[] }[] }).groups ?? []).flatMap((g) =>
        (g.rules ?? []).flatMap((r) => (typeof r.expr === "string" ? [r.expr] : [])),
      ),
    }));
  if (!monitored) return { queries };
  const files: { folder: string; file: string; set: QuerySet }[] = [];
  if (charts.has("linkerd-control-plane")) {
    for (const name of Object.keys(linkerdFacts.grafanaDashboards)) {
      files.push({ folder: "linkerd-edge-26.8.3", file: linkerdDashboardFiles[name], set: "linkerd" });
    }
  }
  if (charts.has("istiod")) {
    // The dashboards the Istio mesh links (istioFacts.grafanaDashboards; ztunnel's with ambient).
    for (const file of [
      ...Object.values(istioFacts.grafanaDashboards),
      ...(charts.has("ztunnel") ? Object.values(istioFacts.ambientGrafanaDashboards) : []),
    ])
      files.push({ folder: "istio-1.30.3", file, set: "istio" });
  }
  for (const f of files) {
    const file = path.join(dir, f.folder, f.file);
    if (!fs.existsSync(file))
      return {
        queries,
        missing: `no upstream dashboard at ${file} (see PROVENANCE-dashboards.md in ../shared/reference/upstream)`,
      };
    queries.push({
      object: `Dashboard ${f.folder}/${f.file}`,
      set: f.set,
      exprs: dashboardQueries(JSON.parse(fs.readFileSync(file, "utf8"))),
    });
  }
  return { queries };
}
