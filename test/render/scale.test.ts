import { execFileSync } from "child_process";
import * as path from "path";
import {
  criticalPath,
  kubernetesObjects,
  viewsOf,
  type RenderResult,
  type RenderedResource,
} from "../../lib/render";
import { checkInvariants } from "../../lib/safety";
import { floorResources, floorTurn, nodeFlags, renderBench, renderFloor } from "../../scripts/bench";
import { validateObjects, type KubeObjectLike } from "../validation/schemas";

/**
 * The generated environments `npm run bench` measures: 10, 100 and 1,000 apps, each meshed, exposed
 * and monitored. What must hold at any size, checked without timing anything: the largest renders and
 * validates, and the deployment graph's longest chain does not grow with the number of apps.
 */

const results = new Map<number, RenderResult>();
// Generous: on CI's two cores the three renders take about 80 s; a timeout is a safety net, not a check.
beforeAll(async () => {
  for (const n of [10, 100, 1000]) results.set(n, await renderBench(n));
}, 300_000);

const get = (n: number) => results.get(n) as RenderResult;

test("1,000 apps render, and every object validates strictly against the published schemas", async () => {
  const result = get(1000);
  const objects = kubernetesObjects(result).map((o) => o.inputs as KubeObjectLike);
  expect(objects.filter((o) => o.kind === "Deployment")).toHaveLength(1000);
  const problems = await validateObjects(objects);
  expect(Object.fromEntries(problems)).toEqual({});
  expect(checkInvariants(viewsOf(result))).toEqual([]);
}, 300_000);

test("the critical path does not grow with the number of apps, and is 15 steps", () => {
  const paths = [10, 100, 1000].map((n) => criticalPath(get(n).order));
  // The APIs, KMS's ring, key and a service agent's grant, the cluster, its pool and provider, cert-manager's
  // namespace and release, the trust anchor, identity issuer and control plane, then an app's namespace,
  // its route and the Server that waits for it (issue 31's goal).
  expect(paths[1].map((k) => k.split("::")[1])).toEqual([
    // Every GCP resource waits for every API the environment enables: the first on the path is any of them.
    expect.stringMatching(/^gke-bench-apis-[a-z]+$/),
    "gke-bench-secrets-ring",
    "gke-bench-secrets-key",
    expect.stringMatching(/^gke-bench-secrets-(gke|backup)-agent$/),
    "gke-bench",
    "gke-bench-default",
    "gke-bench-k8s",
    "platform-cert-manager-namespace-cert-manager",
    "cert-manager",
    "platform-linkerd-anchor-certificate-cert-manager-linkerd-trust-anchor",
    "platform-linkerd-identity-certificate-linkerd-linkerd-identity-issuer",
    "linkerd-control-plane",
    expect.stringMatching(/^platform-apps-namespace-app-\d+$/),
    expect.stringMatching(/^platform-mesh-policy-app-\d+-app-\d+-httproute-/),
    expect.stringMatching(/^platform-mesh-policy-app-\d+-app-\d+-servers-server-/),
  ]);
  expect(paths.map((p) => p.length)).toEqual([paths[0].length, paths[0].length, paths[0].length]);
});

test("an app waits only for the add-ons it uses: the mesh's injector, and the monitors' CRD owner", () => {
  const result = get(10);
  const byKey = new Map(result.resources.map((r) => [r.key, r]));
  const waitsFor = (r: RenderedResource, seen = new Set<string>()): Set<string> => {
    for (const d of r.dependencies) {
      if (seen.has(d)) continue;
      seen.add(d);
      waitsFor(byKey.get(d) as RenderedResource, seen);
    }
    return seen;
  };
  const releases = (r: RenderedResource) =>
    [...waitsFor(r)]
      .map((k) => byKey.get(k) as RenderedResource)
      .filter((d) => d.type === "kubernetes:helm.sh/v3:Release")
      .map((d) => String(d.inputs.name))
      .sort();
  const ofApp = (kind: string) =>
    result.resources.find(
      (r) => r.inputs.kind === kind && (r.inputs.metadata as { namespace?: string }).namespace === "app-3",
    ) as RenderedResource;
  // Linkerd's control plane waits for cert-manager and trust-manager (its identity), linkerd-crds for its
  // CRDs, and linkerd-cni, which redirects meshed pods' traffic on Standard.
  const mesh = ["cert-manager", "linkerd-cni", "linkerd-control-plane", "linkerd-crds", "trust-manager"];
  expect(releases(ofApp("Deployment"))).toEqual(mesh);
  expect(releases(ofApp("HTTPRoute"))).toEqual(mesh);
  expect(releases(ofApp("PodMonitor"))).toEqual([...mesh, "kube-prometheus-stack"].sort());
});

test("1,000 apps render in a process whose heap is capped at 768 MB (`npm run bench`'s flags)", () => {
  // Each app's objects are registered on a turn of their own (lib/deploy/turns.ts); built in one
  // synchronous pass, the same render exceeds a 1.5 GB heap and V8 aborts the process.
  expect(nodeFlags).toContain("--max-old-space-size=768");
  const out = execFileSync(
    process.execPath,
    [
      ...nodeFlags,
      "--import",
      "tsx",
      "-e",
      'require("./scripts/bench.ts").renderBench(1000).then((r) => console.log(r.resources.filter((x) => x.inputs.kind === "Deployment").length))',
    ],
    { cwd: path.resolve(__dirname, "../.."), encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
  );
  expect(out.trim().split("\n").pop()).toBe("1000");
}, 300_000);

test("the bench's same-graph floor registers the platform's graph: every resource, its parent and dependsOn", async () => {
  const platform = get(10);
  const resources = floorResources(platform);
  const floor = await renderFloor(resources, "graph", floorTurn(resources, 10, "graph"));
  // Providers are the floor's one Kubernetes provider; everything else is the platform's, as it gave it.
  const graph = (r: RenderResult) =>
    r.resources
      .filter((x) => !x.type.startsWith("pulumi:providers:"))
      .map((x) => ({ key: x.key, custom: x.custom, parent: x.parent, dependsOn: [...x.dependsOn].sort() }));
  expect(graph(floor)).toEqual(graph(platform));
  expect(graph(platform).filter((x) => x.dependsOn.length > 0).length).toBeGreaterThan(200);
});
