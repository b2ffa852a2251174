import * as fs from "fs";
import { App, Chart } from "cdk8s";
import {
  joinObjectSet,
  relabel,
  scrapeTargets,
  type KubeObject,
  type ObjectSet,
  type TemplatedRelease,
} from "../../lib/cluster";
import { IstioMonitors, LinkerdMonitors } from "../../lib/meshes";
import { linkerdFacts } from "../../lib/versions";
import {
  checkQueries,
  dashboardQueries,
  dashboardsDir,
  linkerdDashboardFiles,
  renderQueries,
  selectorsOf,
} from "./queries";
import { skipReason } from "../upstream/reference";

/**
 * The dashboard consistency check on object sets made by hand from the platform's own monitor
 * constructs and a meshed workload, and on the real upstream dashboards where the reference has them.
 */

const synth = (build: (chart: Chart) => void): KubeObject[] => {
  const chart = new Chart(new App(), "test");
  build(chart);
  return chart.toJson() as KubeObject[];
};

// linkerd-control-plane templates/proxy-injector-rbac.yaml at edge-26.8.3: the injector's webhook.
const injector: TemplatedRelease = {
  name: "linkerd-control-plane",
  chart: "linkerd-control-plane",
  namespace: "linkerd",
  version: "2026.8.3",
  values: {},
  objects: [
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingWebhookConfiguration",
      metadata: { name: "linkerd-proxy-injector-webhook-config" },
      webhooks: [{ name: "linkerd-proxy-injector.linkerd.io" }],
    },
  ],
};

/** A meshed Deployment `shop` and whatever monitors `build` makes. */
function linkerdSet(monitors: KubeObject[]): ObjectSet {
  const ns: KubeObject = {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: "shop", annotations: { "linkerd.io/inject": "enabled" } },
  };
  const shop: KubeObject = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "shop", namespace: "shop" },
    spec: {
      replicas: 2,
      template: {
        metadata: { labels: { app: "shop" } },
        spec: { containers: [{ name: "shop", ports: [{ name: "http", containerPort: 8080 }] }] },
      },
    },
  };
  // The control plane's destination pod as the chart renders it (templates/destination.yaml at edge-26.8.3):
  // its controller's admin port, and the proxy the chart writes into it.
  const destination: KubeObject = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "linkerd-destination", namespace: "linkerd" },
    spec: {
      template: {
        metadata: {
          labels: {
            "linkerd.io/control-plane-component": "destination",
            "linkerd.io/control-plane-ns": "linkerd",
            "linkerd.io/proxy-deployment": "linkerd-destination",
          },
        },
        spec: {
          containers: [
            { name: "destination", ports: [{ name: "dest-admin", containerPort: 9996 }] },
            { name: "linkerd-proxy", ports: [{ name: "linkerd-admin", containerPort: 4191 }] },
          ],
        },
      },
    },
  };
  return joinObjectSet(
    { label: "test", tier: "prod", objects: [ns, shop, destination, ...monitors] },
    [injector],
    "1.36.0",
    [],
  );
}

const platformMonitors = (backend: "prometheus-operator" | "managed-prometheus") =>
  synth(
    (c) =>
      new LinkerdMonitors(c, "m", {
        namespace: "linkerd",
        backend,
        selectorLabels: backend === "prometheus-operator" ? { release: "kube-prometheus-stack" } : {},
      }),
  );

// Linkerd's deployment dashboard (grafana/dashboards/deployment.json at edge-26.8.3) asks for these.
const deploymentPanel = {
  object: "Dashboard deployment.json",
  set: "linkerd" as const,
  exprs: [
    'sum(irate(request_total{namespace=~"$namespace", deployment=~"$deployment", direction="inbound"}[$__rate_interval]))',
    'sum(irate(request_total{namespace=~"$namespace", k8s_job=~"$job", direction="inbound"}[30s]))',
  ],
};

describe("relabelling, as Prometheus does it", () => {
  test("replace with groups, labelmap, keep and drop", () => {
    const labels = { __meta_kubernetes_pod_label_linkerd_io_proxy_deployment: "shop", __a: "x;1" };
    expect(
      relabel(labels, [
        { action: "labelmap", regex: "__meta_kubernetes_pod_label_linkerd_io_proxy_(.+)" },
        { sourceLabels: ["__a"], regex: "(.*);(\\d)", targetLabel: "n", replacement: "${2}-$1" },
      ]),
    ).toMatchObject({ deployment: "shop", n: "1-x" });
    expect(relabel(labels, [{ sourceLabels: ["__a"], action: "keep", regex: "y.*" }])).toBeUndefined();
    expect(relabel(labels, [{ sourceLabels: ["__a"], action: "drop", regex: "x;1" }])).toBeUndefined();
  });

  test("RE2's syntax: named groups, a leading (?i), dot across lines, $$ a dollar", () => {
    const labels = { __a: "Shop\nv2" };
    expect(
      relabel(labels, [
        { sourceLabels: ["__a"], regex: "(?P<app>[a-z]+).(?P<v>v\\d)", targetLabel: "x", replacement: "$v" },
        { sourceLabels: ["__a"], regex: "(?i)(?P<app>[a-z]+).*", targetLabel: "y", replacement: "${app}$$" },
      ]),
    ).toEqual({ __a: "Shop\nv2", y: "Shop$" });
    // A regex Prometheus would refuse keeps nothing, so the monitor is reported as scraping nothing.
    expect(relabel(labels, [{ sourceLabels: ["__a"], regex: "(", targetLabel: "z" }])).toBeUndefined();
    expect(relabel(labels, [{ sourceLabels: ["__a"], regex: "(?=S).*", targetLabel: "z" }])).toBeUndefined();
    // POSIX classes; `$01` is a name, not group 1; a label set to "" or named "" is not written.
    expect(
      relabel({ a: "Shop", b: "" }, [
        { sourceLabels: ["a"], regex: "([[:upper:]])[[:lower:]]+", targetLabel: "first", replacement: "$1" },
        { sourceLabels: ["a"], regex: "(.*)", targetLabel: "zero", replacement: "x$01" },
        { sourceLabels: ["b"], targetLabel: "a", action: "lowercase" },
        { sourceLabels: ["a"], regex: "(.*)", targetLabel: "${9}", replacement: "y" },
      ]),
    ).toEqual({ b: "", first: "S", zero: "x" });
  });

  test("hashmod, lowercase, uppercase, keepequal and dropequal (relabel_test.go's values)", () => {
    const labels = { c: "baz", d: "Baz", p: "1234", q: "1234" };
    expect(
      relabel(labels, [
        { sourceLabels: ["c"], targetLabel: "h", action: "hashmod", modulus: 1000 },
        { sourceLabels: ["d"], targetLabel: "lo", action: "lowercase" },
        { sourceLabels: ["d"], targetLabel: "up", action: "uppercase" },
      ]),
    ).toMatchObject({ h: "976", lo: "baz", up: "BAZ" });
    expect(relabel(labels, [{ sourceLabels: ["p"], targetLabel: "q", action: "keepequal" }])).toEqual(labels);
    expect(relabel(labels, [{ sourceLabels: ["p"], targetLabel: "q", action: "dropequal" }])).toBeUndefined();
    expect(relabel(labels, [{ sourceLabels: ["c"], targetLabel: "q", action: "keepequal" }])).toBeUndefined();
  });
});

describe("queries are read as PromQL, dashboard variables and all", () => {
  test("the series selectors of a panel, with $__rate_interval and variables in label values", () => {
    expect(selectorsOf(deploymentPanel.exprs[0])).toEqual([
      {
        metric: "request_total",
        matchers: [
          { label: "namespace", op: "=~", value: "$namespace" },
          { label: "deployment", op: "=~", value: "$deployment" },
          { label: "direction", op: "=", value: "inbound" },
        ],
      },
    ]);
  });

  test("template variables: label_values needs the label on the series; a bare label list reads none", () => {
    const dashboard = {
      templating: {
        list: [
          { query: 'label_values(process_start_time_seconds{deployment!=""}, namespace)' },
          { query: { query: "label_values(component)" } },
        ],
      },
      panels: [{ targets: [{ expr: "up" }] }],
    };
    expect(dashboardQueries(dashboard)).toEqual([
      'process_start_time_seconds{deployment!="", namespace!=""}',
      "up",
    ]);
  });

  test("a query that cannot be parsed is a finding", () => {
    const set = linkerdSet(platformMonitors("prometheus-operator"));
    expect(
      checkQueries(set, [{ object: "Dashboard x", set: "linkerd", exprs: ["sum(rate(up[5m])"] }]),
    ).toEqual([expect.objectContaining({ invariant: "queries-served", object: "Dashboard x" })]);
  });
});

describe("a monitor produces the job and labels the dashboards query", () => {
  test("the platform's PodMonitors: job linkerd-proxy, and deployment and k8s_job from the pod's owner labels", () => {
    const set = linkerdSet(platformMonitors("prometheus-operator"));
    const proxy = scrapeTargets(set).filter((t) => t.monitor === "PodMonitor linkerd/linkerd-proxy");
    expect(proxy[0].labels).toMatchObject({
      job: "linkerd-proxy",
      namespace: "shop",
      deployment: "shop",
      control_plane_ns: "linkerd",
      workload_ns: "shop",
    });
    expect(checkQueries(set, [deploymentPanel])).toEqual([]);
  });

  test("the Prometheus Operator's own job name (<namespace>/<name>) leaves Linkerd's dashboards empty", () => {
    // The chart's PodMonitor as it was: no job relabelling.
    const monitors = platformMonitors("prometheus-operator").map((m) => {
      const spec = m.spec as { podMetricsEndpoints: { relabelings: { targetLabel?: string }[] }[] };
      return {
        ...m,
        spec: {
          ...spec,
          podMetricsEndpoints: spec.podMetricsEndpoints.map((e) => ({
            ...e,
            relabelings: e.relabelings.filter((r) => r.targetLabel !== "job"),
          })),
        },
      };
    });
    const findings = checkQueries(linkerdSet(monitors), [
      { object: "Dashboard health.json", set: "linkerd", exprs: ['process_open_fds{job="linkerd-proxy"}'] },
      deploymentPanel,
    ]);
    expect(findings.map((f) => f.message.split(",")[0])).toEqual([
      'process_open_fds{job="linkerd-proxy"} asks for job ="linkerd-proxy"',
      'request_total{namespace=~"$namespace"',
      'request_total{namespace=~"$namespace"',
    ]);
  });

  test("Managed Prometheus: the same job and labels, from the monitor's name and fromPod", () => {
    const set = linkerdSet(platformMonitors("managed-prometheus"));
    expect(checkQueries(set, [deploymentPanel])).toEqual([]);
    // Without namespace and the owner labels (the ClusterPodMonitoring as it was), the panels stay empty.
    const bare = platformMonitors("managed-prometheus").map((m) =>
      m.kind === "ClusterPodMonitoring"
        ? { ...m, spec: { ...(m.spec as object), targetLabels: { metadata: ["pod", "container"] } } }
        : m,
    );
    expect(
      checkQueries(linkerdSet(bare), [deploymentPanel]).map((f) => f.message.split(" which")[0]),
    ).toEqual([
      'request_total{namespace=~"$namespace",deployment=~"$deployment",direction="inbound"} filters on namespace, deployment,',
      'request_total{namespace=~"$namespace",k8s_job=~"$job",direction="inbound"} filters on namespace, k8s_job,',
    ]);
  });

  test("a metric whose source no monitor scrapes is a finding naming the source", () => {
    const istio = synth(
      (c) =>
        new IstioMonitors(c, "i", {
          namespace: "istio-system",
          backend: "prometheus-operator",
          selectorLabels: {},
        }),
    );
    const findings = checkQueries(linkerdSet(istio), [
      { object: "Dashboard x", set: "linkerd", exprs: ["sum(response_total)"] },
    ]);
    expect(findings.map((f) => f.message)).toEqual([
      "response_total{} is a metric of the Linkerd proxies, which no monitor scrapes",
    ]);
  });
});

const linked = Object.keys(linkerdFacts.grafanaDashboards).map((name) => linkerdDashboardFiles[name]);
const available = dashboardsDir !== undefined && fs.existsSync(dashboardsDir);
(available ? describe : describe.skip)(
  `Linkerd's linked dashboards (${available ? dashboardsDir : dashboardsDir ? `skipped: no upstream dashboards at ${dashboardsDir}` : skipReason})`,
  () => {
    test("every linked dashboard parses, and the platform's monitors serve every panel, on both backends", () => {
      for (const backend of ["prometheus-operator", "managed-prometheus"] as const) {
        const set = {
          ...linkerdSet(platformMonitors(backend)),
          releases: [injector],
        };
        const { queries, missing } = renderQueries(set);
        expect(missing).toBeUndefined();
        expect(queries.map((q) => q.object)).toEqual(linked.map((f) => `Dashboard linkerd-edge-26.8.3/${f}`));
        expect(queries.every((q) => q.exprs.length > 0)).toBe(true);
        // cAdvisor's series are not the platform's to serve without kube-prometheus-stack.
        expect(checkQueries(set, queries)).toEqual([]);
      }
    });
  },
);

describe("scrape targets, as Kubernetes service discovery lists them", () => {
  const app: KubeObject = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "shop", namespace: "shop" },
    spec: {
      selector: { matchLabels: { app: "shop" } },
      template: {
        metadata: { labels: { app: "shop" } },
        spec: {
          containers: [
            {
              name: "shop",
              ports: [
                { name: "http", containerPort: 8080 },
                { name: "metrics", containerPort: 9090 },
              ],
            },
          ],
        },
      },
    },
  };
  const service: KubeObject = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "shop", namespace: "shop", labels: { app: "shop" } },
    spec: { selector: { app: "shop" }, ports: [{ name: "web", port: 80, targetPort: "http" }] },
  };
  const monitor = (spec: Record<string, unknown>): KubeObject => ({
    apiVersion: "monitoring.coreos.com/v1",
    kind: "ServiceMonitor",
    metadata: { name: "shop", namespace: "shop" },
    spec: { selector: { matchLabels: { app: "shop" } }, ...spec },
  });
  const targetsOf = (m: KubeObject, objects: KubeObject[] = [app, service]) =>
    scrapeTargets(joinObjectSet({ label: "t", tier: "dev", objects: [...objects, m] }, [], "1.36.0", []), {
      monitor: m,
    }).map((t) => ({ port: t.port, labels: t.labels }));

  test("a ServiceMonitor endpoint without a port also scrapes the pods' ports the Service does not list", () => {
    const common = { namespace: "shop", service: "shop", pod: "shop-0", container: "shop", job: "shop" };
    expect(targetsOf(monitor({ endpoints: [{}] }))).toEqual([
      { port: 8080, labels: { instance: "10.0.0.1:8080", ...common } },
      { port: 9090, labels: { instance: "10.0.0.1:9090", ...common } },
    ]);
    // With a port, only the Service port's endpoint, labelled with it.
    expect(targetsOf(monitor({ endpoints: [{ port: "web" }] }))).toEqual([
      { port: 8080, labels: { instance: "10.0.0.1:8080", ...common, endpoint: "web" } },
    ]);
  });

  test("a pod no endpoint reaches is not scraped through the Service", () => {
    const nowhere = {
      ...service,
      spec: { selector: { app: "shop" }, ports: [{ name: "web", port: 80, targetPort: "nope" }] },
    };
    expect(targetsOf(monitor({ endpoints: [{}] }), [app, nowhere])).toEqual([]);
  });

  test("a relabelling Prometheus cannot compile makes the operator refuse the whole monitor", () => {
    const bad = monitor({
      endpoints: [
        { port: "web" },
        { relabelings: [{ sourceLabels: ["__address__"], regex: "(", action: "keep" }] },
      ],
    });
    expect(targetsOf(bad)).toEqual([]);
  });

  test("Managed Prometheus: labels only where targetLabels asks, every port a name's regex matches, a DaemonSet's instance is its node", () => {
    const monitoring = (
      kind: string,
      spec: Record<string, unknown>,
      owner: KubeObject = app,
    ): { port?: number; labels: Record<string, string> }[] => {
      const m: KubeObject = {
        apiVersion: "monitoring.googleapis.com/v1",
        kind,
        metadata: { name: "shop", ...(kind === "PodMonitoring" ? { namespace: "shop" } : {}) },
        spec: { selector: { matchLabels: { app: "shop" } }, ...spec },
      };
      return targetsOf(m, [owner]);
    };
    // No targetLabels: the CRD's metadata default never applies, so no pod or container label.
    expect(monitoring("PodMonitoring", { endpoints: [{ port: "metrics" }] })).toEqual([
      { port: 9090, labels: { job: "shop", instance: "shop-0:metrics", namespace: "shop" } },
    ]);
    expect(monitoring("ClusterPodMonitoring", { endpoints: [{ port: 9090 }] })).toEqual([
      { port: 9090, labels: { job: "shop", instance: "shop-0:9090", namespace: "shop" } },
    ]);
    // targetLabels without metadata: the CRD's default list.
    expect(monitoring("PodMonitoring", { endpoints: [{ port: "metrics|http" }], targetLabels: {} })).toEqual([
      {
        port: 8080,
        labels: expect.objectContaining({
          instance: "shop-0:http",
          pod: "shop-0",
          container: "shop",
        }) as Record<string, string>,
      },
      {
        port: 9090,
        labels: expect.objectContaining({
          instance: "shop-0:metrics",
          top_level_controller_type: "Deployment",
        }) as Record<string, string>,
      },
    ]);
    const agent = { ...app, kind: "DaemonSet" };
    expect(monitoring("PodMonitoring", { endpoints: [{ port: "metrics" }] }, agent)[0]?.labels.instance).toBe(
      "node-1:metrics",
    );
  });

  test("a Deployment's pod is its ReplicaSet's; the kubelets' endpoints are nodes", () => {
    const kind = monitor({
      endpoints: [
        {
          port: "web",
          relabelings: [{ sourceLabels: ["__meta_kubernetes_pod_controller_kind"], targetLabel: "owner" }],
        },
      ],
    });
    expect(targetsOf(kind)[0]?.labels.owner).toBe("ReplicaSet");
    const kubelet: KubeObject = {
      apiVersion: "monitoring.coreos.com/v1",
      kind: "ServiceMonitor",
      metadata: { name: "kubelet", namespace: "monitoring" },
      spec: {
        selector: { matchLabels: { "k8s-app": "kubelet" } },
        namespaceSelector: { matchNames: ["kube-system"] },
        endpoints: [{ port: "https-metrics" }],
      },
    };
    expect(targetsOf(kubelet, [])).toEqual([
      {
        port: undefined,
        labels: {
          instance: "10.0.0.1:10250",
          node: "node-1",
          namespace: "kube-system",
          service: "kube-prometheus-stack-kubelet",
          job: "kube-prometheus-stack-kubelet",
          endpoint: "https-metrics",
        },
      },
    ]);
  });
});
