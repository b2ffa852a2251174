import { validateObject, validateObjects } from "./schemas";

/** The validator itself, fed the mistakes it exists to catch. */

const podMonitor = (relabeling: Record<string, unknown>) => ({
  apiVersion: "monitoring.coreos.com/v1",
  kind: "PodMonitor",
  metadata: { name: "app", namespace: "shop" },
  spec: { selector: {}, podMetricsEndpoints: [{ port: "metrics", relabelings: [relabeling] }] },
});

test("a misspelled field fails: source_labels in a PodMonitor, which the API server would prune", async () => {
  expect(await validateObject(podMonitor({ sourceLabels: ["__meta_kubernetes_pod_name"] }))).toEqual([]);
  expect(await validateObject(podMonitor({ source_labels: ["__meta_kubernetes_pod_name"] }))).toEqual([
    "unknown field spec.podMetricsEndpoints[0].relabelings[0].source_labels (the API server would prune it)",
  ]);
});

test("misspelled fields fail in core and Gateway API objects too", async () => {
  expect(
    await validateObject({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "app" },
      spec: {
        replica: 2,
        selector: { matchLabels: { app: "a" } },
        template: { metadata: { labels: { app: "a" } }, spec: { containers: [{ name: "a", image: "a:1" }] } },
      },
    }),
  ).toEqual(["unknown field spec.replica (the API server would prune it)"]);
  expect(
    await validateObject({
      apiVersion: "gateway.networking.k8s.io/v1",
      kind: "HTTPRoute",
      metadata: { name: "app" },
      spec: { parentRef: [{ name: "gw" }] },
    }),
  ).toEqual(["unknown field spec.parentRef (the API server would prune it)"]);
});

test("a value of the wrong type fails the published validator", async () => {
  const problems = await validateObject({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "app" },
    spec: { ports: [{ port: "eighty" }] },
  });
  expect(problems).toHaveLength(1);
  expect(problems[0]).toMatch(/port/);
});

test("a kind with no published schema and no typed builder fails", async () => {
  expect(
    await validateObject({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" } }),
  ).toEqual(["no published schema for example.com/v1 Widget, and no typed builder"]);
});

test("problems are reported by object", async () => {
  const found = await validateObjects([podMonitor({ source_labels: ["x"] })]);
  expect([...found.keys()]).toEqual(["PodMonitor shop/app"]);
});
