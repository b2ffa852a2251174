import {
  criticalPath,
  kubernetesObjects,
  viewsOf,
  type RenderResult,
  type RenderedResource,
} from "../../lib/render";
import { checkInvariants } from "../../lib/safety";
import { renderBench } from "../../scripts/bench";
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

test("the critical path does not grow with the number of apps", () => {
  const paths = [10, 100, 1000].map((n) => criticalPath(get(n).order));
  // Cluster, cert-manager, the mesh's identity and control plane, then one app's namespace and objects.
  expect(paths[0].length).toBeGreaterThanOrEqual(10);
  expect(paths[0].some((k) => k.endsWith("::linkerd-control-plane"))).toBe(true);
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
