import * as fs from "fs";
import * as path from "path";
import { ConfigError } from "../../lib/config";
import { Platform } from "../../lib/platform";
import { kubernetesObjects, readProject, renderProject, stacksOf, type RenderResult } from "../../lib/render";
import { checkInvariants, viewsOf } from "../../lib/safety";
import { config, render } from "../helpers";
import { validateObjects, type KubeObjectLike } from "./schemas";

/**
 * Every stack, every example and a generated matrix of mesh x ingress x cluster mode x monitoring
 * backend: every Kubernetes object validates strictly against the published schemas, and every
 * safety invariant holds.
 */

const root = path.resolve(__dirname, "../..");
const shop = {
  name: "shop",
  image: "hello:2",
  port: 8080,
  metrics: { path: "/metrics" },
  expose: { host: "shop.example.com" },
};

const meshes = ["linkerd", "istio", "none"] as const;
const ingresses = ["gke-gateway", "traefik", "ingress-nginx", "gce-ingress"] as const;
const modes = ["standard", "autopilot", "existing"] as const;
const backends = ["prometheus", "managed-prometheus", "existing-prometheus", "none"] as const;

function matrixConfig(mesh: string, ingress: string, mode: string, backend: string): Record<string, unknown> {
  return {
    tier: "prod",
    cluster:
      mode === "existing" ? { mode, existing: { name: "shared", location: "europe-west1" } } : { mode },
    mesh: { kind: mesh },
    ingress: {
      kind: ingress,
      ...(ingress === "traefik" || ingress === "ingress-nginx" ? { acme: { email: "a@example.com" } } : {}),
    },
    monitoring: { backend },
    apps: [backend === "none" ? { ...shop, metrics: undefined } : shop],
  };
}

/** Mesh policy with what the books example leaves out: a fault, a regional Google load balancer, PATCH. */
function meshPolicyConfig(mesh: string): Record<string, unknown> {
  return {
    tier: "prod",
    mesh: { kind: mesh, denyByDefault: ["shop"] },
    ingress: {
      kind: "gke-gateway",
      gatewayClass: "gke-l7-rilb",
      staticIp: false,
      tls: { mode: "pre-shared", certificates: ["shop"] },
    },
    apps: [
      {
        ...shop,
        expose: { host: "shop.example.com", healthCheckPath: "/ready" },
        mesh: {
          routes: [{ name: "chaos", fault: { percent: 5, status: 503 }, timeouts: { request: "10s" } }],
          authorization: {
            rules: [{ from: ["cart", "ops/oncall"], methods: ["PATCH"], paths: ["/orders/*"] }],
          },
        },
      },
      { name: "cart", namespace: "shop", image: "cart:1", port: 9090 },
    ],
  };
}

/** Options the matrix does not vary: Istio's ambient data plane and revisions, Linkerd's CNI and dashboard, mesh policy. */
const extras: Record<string, Record<string, unknown>> = {
  "linkerd mesh policy": meshPolicyConfig("linkerd"),
  "istio mesh policy": meshPolicyConfig("istio"),
  "istio ambient": { tier: "prod", mesh: { kind: "istio", dataplane: "ambient" }, apps: [shop] },
  "istio canary revisions": {
    mesh: {
      kind: "istio",
      istio: { revisions: [{ name: "stable", version: "1.30.3" }], defaultRevision: "stable" },
    },
    apps: [shop],
  },
  "linkerd cni + dashboard": {
    tier: "prod",
    mesh: { kind: "linkerd", cni: true, dashboard: true },
    apps: [shop],
  },
};

const renders: { label: string; result: RenderResult }[] = [];

beforeAll(async () => {
  for (const stack of stacksOf(readProject(root)))
    renders.push({ label: `stacks/${stack}`, result: await renderProject(root, stack) });
  for (const name of fs.readdirSync(path.join(root, "examples")).sort()) {
    const dir = path.join(root, "examples", name);
    for (const stack of stacksOf(readProject(dir)))
      renders.push({ label: `examples/${name}`, result: await renderProject(dir, stack) });
  }
  for (const mesh of meshes) {
    for (const ingress of ingresses) {
      for (const mode of modes) {
        for (const backend of backends) {
          const c = config(matrixConfig(mesh, ingress, mode, backend));
          renders.push({
            label: `${mesh} x ${ingress} x ${mode} x ${backend}`,
            result: await render(() => new Platform("p", { config: c }).outputs()),
          });
        }
      }
    }
  }
  for (const [label, input] of Object.entries(extras)) {
    const c = config(input);
    renders.push({ label, result: await render(() => new Platform("p", { config: c }).outputs()) });
  }
}, 240_000);

test("the matrix covers every combination, plus every stack and example", () => {
  expect(renders.length).toBe(
    3 * 4 * 3 * 4 +
      Object.keys(extras).length +
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
