import * as fs from "fs";
import * as path from "path";
import { parser } from "@prometheus-io/lezer-promql";
import { nameOf, scrapeTargets, type ObjectSet, type Target } from "../../lib/cluster";
import { istioFacts, linkerdFacts } from "../../lib/versions";
import { skipReason, upstreamDir } from "../upstream/reference";

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
  targets = scrapeTargets(set, { everyOwnerKind: true }),
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

/**
 * Where the upstream dashboards are, in the reference (test/upstream/reference.ts; PROVENANCE-dashboards.md
 * there names their tags and commits); undefined where there is no reference.
 */
export const dashboardsDir: string | undefined = upstreamDir && path.join(upstreamDir, "dashboards");

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
export function renderQueries(
  set: ObjectSet,
  dir: string | undefined = dashboardsDir,
): { queries: Queries[]; missing?: string } {
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
  if (files.length > 0 && !dir) return { queries, missing: `no upstream dashboards: ${skipReason}` };
  for (const f of files) {
    const file = path.join(dir ?? "", f.folder, f.file);
    if (!fs.existsSync(file))
      return {
        queries,
        missing: `no upstream dashboard at ${file} (see PROVENANCE-dashboards.md in the reference's upstream/)`,
      };
    queries.push({
      object: `Dashboard ${f.folder}/${f.file}`,
      set: f.set,
      exprs: dashboardQueries(JSON.parse(fs.readFileSync(file, "utf8"))),
    });
  }
  return { queries };
}
