import * as fs from "fs";
import * as path from "path";
import { ConfigError } from "../../lib/config";
import { kubernetesObjects, readProject, stacksOf, type RenderResult } from "../../lib/render";
import { checkInvariants } from "../../lib/safety";
import { viewsOf } from "../../lib/render";
import { retiredHostOf } from "../../lib/versions";
import { config } from "../helpers";
import { clusterModeTargets, extraTargets, projectTargets } from "../matrix";
import { validateObjects, type KubeObjectLike } from "./schemas";

/**
 * Every stack, every example, each cluster mode with each mesh, and the options the combination
 * matrix leaves out: every Kubernetes object validates strictly against the published schemas, and
 * every safety invariant holds. The whole combination matrix (mesh x ingress x monitoring x tier x
 * deny by default) gets the same checks, and the cluster tier's, in `npm run test:cluster`.
 */

const root = path.resolve(__dirname, "../..");
const renders: { label: string; result: RenderResult }[] = [];

beforeAll(async () => {
  for (const target of [...projectTargets(), ...clusterModeTargets(), ...extraTargets()])
    if (!target.refusedBecause) renders.push({ label: target.label, result: await target.render() });
}, 240_000);

test("every stack and example, each buildable cluster mode with each mesh, and every option are rendered", () => {
  expect(renders.length).toBe(
    clusterModeTargets().filter((t) => !t.refusedBecause).length +
      extraTargets().length +
      stacksOf(readProject(root)).length +
      fs
        .readdirSync(path.join(root, "examples"))
        .reduce((n, name) => n + stacksOf(readProject(path.join(root, "examples", name))).length, 0),
  );
});

test("every Kubernetes object validates strictly against the published schemas", async () => {
  const objects = renders.flatMap((r) => kubernetesObjects(r.result).map((o) => o.inputs as KubeObjectLike));
  const problems = await validateObjects(objects);
  expect(Object.fromEntries(problems)).toEqual({});
  // The matrix reaches every kind the platform emits.
  expect([...new Set(objects.map((o) => String(o.kind)))].sort()).toEqual(
    expect.arrayContaining([
      "AuthorizationPolicy",
      "Bundle",
      "Certificate",
      "ConfigMap",
      "ClusterIssuer",
      "Deployment",
      "Gateway",
      "HTTPRoute",
      "Ingress",
      "IngressRoute",
      "Issuer",
      "MeshTLSAuthentication",
      "Namespace",
      "NetworkAuthentication",
      "PeerAuthentication",
      "PodDisruptionBudget",
      "PodMonitor",
      "Server",
      "Service",
      "ServiceAccount",
      "ServiceMonitor",
    ]),
  );
}, 120_000);

test("every safety invariant holds on every render", () => {
  const violations = renders.flatMap((r) =>
    checkInvariants(viewsOf(r.result)).map((v) => `${r.label}: ${v.message}`),
  );
  expect(violations).toEqual([]);
});

test("no render exports a secret in the clear, and the kubeconfig is always a secret", () => {
  for (const r of renders) {
    expect({ label: r.label, kubeconfig: r.result.outputs.kubeconfig }).toEqual({
      label: r.label,
      kubeconfig: "[secret]",
    });
    expect(JSON.stringify(r.result.outputs)).not.toMatch(/PRIVATE KEY|token/i);
  }
});

test("combinations the platform cannot build fail with a config error naming a field, never a crash", () => {
  for (const bad of [
    { cluster: { mode: "autopilot" }, mesh: { kind: "istio", dataplane: "ambient" } },
    { cluster: { mode: "autopilot" }, mesh: { kind: "linkerd", cni: true } },
    { cluster: { gatewayApi: "disabled" }, ingress: { kind: "gke-gateway" } },
  ]) {
    expect(() => config(bad)).toThrow(ConfigError);
  }
});

test("nothing a render installs or runs comes from a host its project has retired", () => {
  const strings = (v: unknown): string[] =>
    typeof v === "string"
      ? [v]
      : Array.isArray(v)
        ? v.flatMap(strings)
        : v && typeof v === "object"
          ? Object.values(v).flatMap(strings)
          : [];
  const found = renders.flatMap((r) =>
    r.result.resources.flatMap((res) =>
      strings(res.inputs)
        .filter((s) => retiredHostOf(s) !== undefined)
        .map((s) => `${r.label} ${res.key}: ${s}`),
    ),
  );
  expect(found).toEqual([]);
});
