import * as http from "http";
import * as YAML from "yaml";
import type { KubeObject } from "../../lib/cluster";
import {
  ReadOnlyApiServer,
  accepts,
  baselineDraft,
  compareWithBaseline,
  digest,
  findingsList,
  graphChunks,
  graphUnitObject,
  graphUnitsOf,
  labelSelectorMatches,
  parseBaseline,
  servedCluster,
  type AnalyzerFinding,
  type BaselineEntry,
} from "./analyzers";

/**
 * The analyzers' run (test/cluster/analyzers.ts, `npm run test:analyzers`) without the analyzers: how
 * findings are held to the baseline, and the read-only API server `istioctl analyze` reads renders from.
 */

const finding = (over: Partial<AnalyzerFinding> = {}): AnalyzerFinding => ({
  analyzer: "kube-score",
  check: "container-resources",
  detail: "app: CPU limit is not set",
  kind: "Deployment",
  namespace: "shop",
  name: "shop",
  from: "platform",
  renders: ["stacks/prod @ 1.36.0"],
  ...over,
});

const entry = (over: Partial<BaselineEntry> = {}): BaselineEntry => ({
  analyzer: "kube-score",
  check: "container-resources",
  detail: "*: CPU limit is not set",
  kind: "Deployment",
  namespace: "*",
  name: "*",
  from: "platform",
  reason: "CPU limits left off on purpose: throttling hurts latency, requests reserve CPU",
  ...over,
});

test("a finding the baseline does not accept fails the run, and an entry that matches nothing is stale", () => {
  const accepted = finding();
  const memory = finding({ detail: "app: Memory limit is not set" });
  const stale = entry({ analyzer: "checkov", check: "CKV_K8S_11", detail: undefined, reason: "gone" });
  const { unexpected, stale: unmatched } = compareWithBaseline([accepted, memory], [entry(), stale]);
  // The CPU entry says nothing about memory limits: that finding is new.
  expect(unexpected).toEqual([memory]);
  expect(unmatched).toEqual([stale]);
  expect(compareWithBaseline([accepted], [entry()])).toEqual({ unexpected: [], stale: [] });
});

test("every field of an entry is a glob over the finding's, and a detail left out matches any", () => {
  expect(accepts(entry({ name: "shop-*" }), finding({ name: "shop-api" }))).toBe(true);
  expect(accepts(entry({ name: "shop-*" }), finding({ name: "cart" }))).toBe(false);
  expect(accepts(entry({ from: "kube-prometheus-stack" }), finding())).toBe(false);
  expect(accepts(entry({ detail: undefined }), finding({ detail: "anything" }))).toBe(true);
  expect(accepts(entry({ from: "cni|platform" }), finding())).toBe(true);
  expect(accepts(entry({ from: "cni|linkerd2-cni" }), finding())).toBe(false);
  // Regex characters in a pattern are literal.
  expect(accepts(entry({ name: "a.b" }), finding({ name: "axb" }))).toBe(false);
});

test("the baseline file is refused with every problem: unknown fields, missing ones, a TODO reason", () => {
  const text = YAML.stringify([
    { ...entry(), color: "red" },
    { ...entry(), reason: "TODO (in 3 renders)" },
    { analyzer: "trivy", check: "x" },
  ]);
  expect(() => parseBaseline(text, "baseline.yaml")).toThrow(
    [
      "baseline.yaml: entry 1: unknown field color",
      "baseline.yaml: entry 2: reason is TODO: a human must review the finding and say why it is accepted",
      "baseline.yaml: entry 3: kind must be a non-empty string",
    ].join("\n"),
  );
  expect(parseBaseline(YAML.stringify([entry()]))).toEqual([entry()]);
});

test("a draft lists each new finding once with a TODO reason, which the baseline then refuses", () => {
  const draft = baselineDraft([finding(), finding({ renders: ["a", "b"] }), finding({ name: "cart" })]);
  const entries = YAML.parse(draft) as BaselineEntry[];
  expect(entries.map((e) => e.name)).toEqual(["cart", "shop"]);
  expect(entries.every((e) => e.reason.startsWith("TODO"))).toBe(true);
  expect(() => parseBaseline(draft)).toThrow(/reason is TODO/);
});

test("the findings list names, for each finding, the reason of the entry that accepts it", () => {
  const list = YAML.parse(findingsList([finding(), finding({ name: "cart", detail: "x" })], [entry()])) as {
    name: string;
    renders: string;
    acceptedBecause: string | null;
  }[];
  expect(list.map((f) => [f.name, f.acceptedBecause])).toEqual([
    ["cart", null],
    ["shop", entry().reason],
  ]);
  expect(list[1].renders).toBe("1 renders, e.g. stacks/prod @ 1.36.0");
});

describe("checkov's graph units", () => {
  const object = (kind: string, name: string, namespace?: string, rest: Record<string, unknown> = {}) =>
    ({
      apiVersion: "v1",
      kind,
      metadata: { name, ...(namespace ? { namespace } : {}) },
      ...rest,
    }) as KubeObject;
  const deployment = (name: string, namespace: string) =>
    object("Deployment", name, namespace, {
      spec: { template: { metadata: { labels: { app: name } }, spec: { containers: [] } } },
    });
  const policy = (name: string, namespace: string, podSelector: Record<string, unknown> = {}) =>
    object("NetworkPolicy", name, namespace, { spec: { podSelector, policyTypes: ["Ingress"] } });
  const binding = (kind: string, name: string, roleKind: string, namespace?: string) =>
    object(kind, name, namespace, { roleRef: { kind: roleKind, name: "reader" } });

  test("a workload goes with its own namespace's NetworkPolicies; a binding with its roleRef's role", () => {
    const own = [
      deployment("shop", "shop"),
      policy("isolation", "shop"),
      policy("isolation", "cart"),
      deployment("cert-manager", "cert-manager"),
      binding("RoleBinding", "read", "Role", "shop"),
      object("Role", "reader", "shop"),
      object("Role", "reader", "cart"),
      binding("ClusterRoleBinding", "read-all", "ClusterRole"),
      object("ClusterRole", "reader"),
    ].map((o, id) => ({ id, object: o }));
    expect(graphUnitsOf(own)).toEqual([[0, 1], [3], [4, 5], [7, 8]]);
  });

  test("every policy, its podSelector empty too, is kept to its unit's pods by the unit label", () => {
    const label = "analyzers.gke-mesh-platform/unit";
    const spec = (o: KubeObject) => o.spec as Record<string, Record<string, unknown>>;
    expect(spec(graphUnitObject(policy("isolation", "shop"), "u3")).podSelector).toEqual({
      matchLabels: { [label]: "u3" },
    });
    expect(
      spec(graphUnitObject(policy("web", "shop", { matchLabels: { app: "web" } }), "u3")).podSelector,
    ).toEqual({ matchLabels: { app: "web", [label]: "u3" } });
    const pod = spec(graphUnitObject(deployment("shop", "shop"), "u3")).template as {
      metadata: { labels: Record<string, string> };
    };
    expect(pod.metadata.labels).toEqual({ app: "shop", [label]: "u3" });
    expect(graphUnitObject(object("Role", "reader", "shop"), "u3").metadata.name).toBe("reader--u3");
  });

  test("units go into folders of at most the given files, none split", () => {
    expect(graphChunks([2, 2, 3, 1, 5, 1], 4)).toEqual([[0, 1], [2, 3], [4], [5]]);
    expect(graphChunks([], 4)).toEqual([]);
  });
});

test("an object's digest is that of its canonical JSON: key order does not count, content does", () => {
  expect(digest({ a: 1, b: { c: [1, 2] } })).toBe(digest({ b: { c: [1, 2] }, a: 1 }));
  expect(digest({ a: 1, b: { c: [2, 1] } })).not.toBe(digest({ a: 1, b: { c: [1, 2] } }));
  expect(digest({ a: 1, b: undefined })).toBe(digest({ a: 1 }));
});

test("label selectors as the API server reads them", () => {
  const labels = { app: "shop", "istio.io/rev": "stable" };
  expect(labelSelectorMatches("", labels)).toBe(true);
  expect(labelSelectorMatches("app=shop,istio.io/rev", labels)).toBe(true);
  expect(labelSelectorMatches("app!=shop", labels)).toBe(false);
  expect(labelSelectorMatches("!istio.io/rev", labels)).toBe(false);
  expect(labelSelectorMatches("istio.io/rev in (stable,canary),app notin (cart)", labels)).toBe(true);
  expect(labelSelectorMatches("istio.io/rev notin (stable)", labels)).toBe(false);
});

function get(url: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || "null") }));
      })
      .on("error", reject);
  });
}

test("the read-only API server serves discovery, get and list with selectors, each cluster under its prefix", async () => {
  const server = new ReadOnlyApiServer();
  await server.start();
  try {
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "gateways.networking.istio.io" },
      spec: {
        group: "networking.istio.io",
        scope: "Namespaced",
        names: { kind: "Gateway", plural: "gateways" },
        versions: [{ name: "v1", served: true }],
      },
    };
    const url = server.serve(
      "c0",
      servedCluster(
        [
          crd,
          { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } },
          { apiVersion: "v1", kind: "Secret", metadata: { name: "a", namespace: "shop" }, type: "Opaque" },
          {
            apiVersion: "v1",
            kind: "Secret",
            metadata: { name: "h", namespace: "shop" },
            type: "helm.sh/release.v1",
          },
          {
            apiVersion: "networking.istio.io/v1",
            kind: "Gateway",
            metadata: { name: "g", namespace: "shop" },
          },
          // The Gateway API's Gateway shares the kind, in another group.
          {
            apiVersion: "gateway.networking.k8s.io/v1",
            kind: "Gateway",
            metadata: { name: "k", namespace: "shop" },
          },
        ],
        "1.36.0",
      ),
    );
    expect((await get(`${url}/version`)).body).toMatchObject({ major: "1", minor: "36" });
    const groups = (await get(`${url}/apis`)).body as { groups: { name: string }[] };
    expect(groups.groups.map((g) => g.name)).toContain("networking.istio.io");
    const ns = (await get(`${url}/api/v1/namespaces/shop`)).body as {
      metadata: { labels: Record<string, string> };
    };
    expect(ns.metadata.labels).toEqual({ "kubernetes.io/metadata.name": "shop" });
    const secrets = (await get(`${url}/api/v1/secrets?fieldSelector=type!%3Dhelm.sh/release.v1`)).body as {
      kind: string;
      items: { metadata: { name: string } }[];
    };
    expect(secrets.kind).toBe("SecretList");
    expect(secrets.items.map((s) => s.metadata.name)).toEqual(["a"]);
    const gateways = (await get(`${url}/apis/networking.istio.io/v1/namespaces/shop/gateways`)).body as {
      items: { metadata: { name: string } }[];
    };
    expect(gateways.items.map((g) => g.metadata.name)).toEqual(["g"]);
    expect((await get(`${url}/api/v1/namespaces/shop/secrets/nope`)).status).toBe(404);
    // Another prefix is another cluster: this one is not served.
    expect((await get(url.replace("/c0", "/c1") + "/version")).status).toBe(404);
  } finally {
    server.stop();
  }
});
