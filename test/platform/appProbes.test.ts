import { checkInvariants } from "../../lib/safety";
import { viewsOf } from "../../lib/render";
import type { RenderedResource } from "../../lib/render";
import { find, problems, input, renderPlatform } from "../helpers";

/**
 * An app's probes and placement: readiness and startup on the readiness path (which load balancers
 * health-check too); a liveness probe only on a separate path that checks the process alone, so a
 * dependency's outage takes replicas out of the load balancer instead of restarting them all; and
 * replicated apps spread across zones and nodes.
 */

interface PodSpec {
  containers: { livenessProbe?: unknown; readinessProbe?: { httpGet?: { path: string } } }[];
  topologySpreadConstraints?: unknown[];
}
const podSpec = (r: RenderedResource) => (r.inputs.spec as { template: { spec: PodSpec } }).template.spec;
const shop = {
  name: "shop",
  image: "hello:2",
  port: 8080,
  expose: { host: "shop.example.com", healthCheckPath: "/ready" },
};

test("by default no liveness probe: only readiness and startup, on the readiness path", async () => {
  const result = await renderPlatform({ mesh: { kind: "none" }, apps: [shop] });
  const app = podSpec(find(result, "Deployment", "shop")).containers[0];
  expect(app.livenessProbe).toBeUndefined();
  expect(app.readinessProbe?.httpGet?.path).toBe("/ready");
});

test("a liveness path gets its own HTTP probe, which Linkerd's deny-by-default authorization lets kubelet reach", async () => {
  const result = await renderPlatform({
    tier: "staging",
    mesh: { kind: "linkerd", denyByDefault: ["shop"] },
    apps: [{ ...shop, livenessPath: "/livez", replicas: 2 }],
  });
  expect(podSpec(find(result, "Deployment", "shop")).containers[0].livenessProbe).toEqual({
    httpGet: { path: "/livez", port: 8080, scheme: "HTTP" },
    initialDelaySeconds: 10,
    periodSeconds: 10,
    failureThreshold: 3,
  });
  // probes-authorized: every HTTP probe of a pod behind a Server with routes matches a route kubelet may use.
  expect(checkInvariants(viewsOf(result))).toEqual([]);
});

test("the readiness path as liveness path is refused, naming why", () => {
  expect(problems(input({ apps: [{ ...shop, livenessPath: "/ready" }] }))).toEqual([
    {
      path: "platform:apps[0].livenessPath",
      problem:
        '"/ready" is also the readiness path: a slow dependency would restart every replica instead of taking them out of the load balancer',
      allowed: "a path that checks only the process, such as /livez",
      fix: "give the app a separate liveness endpoint, or remove platform:apps[0].livenessPath (no liveness probe)",
    },
  ]);
});

test("replicas spread across zones and nodes, preferred; a single replica has nothing to spread", async () => {
  const result = await renderPlatform({
    tier: "prod",
    mesh: { kind: "none" },
    apps: [
      { ...shop, replicas: 3 },
      { name: "batch", image: "hello:2", port: 8080, replicas: 1 },
    ],
  });
  expect(podSpec(find(result, "Deployment", "shop")).topologySpreadConstraints).toEqual(
    ["topology.kubernetes.io/zone", "kubernetes.io/hostname"].map((topologyKey) => ({
      maxSkew: 1,
      topologyKey,
      whenUnsatisfiable: "ScheduleAnyway",
      labelSelector: { matchLabels: { "app.kubernetes.io/name": "shop" } },
    })),
  );
  expect(podSpec(find(result, "Deployment", "batch")).topologySpreadConstraints).toBeUndefined();
});
