import * as fs from "fs";
import * as path from "path";
import type { Tier } from "../lib/config";
import { Platform } from "../lib/platform";
import { resolvePlan } from "../lib/plan";
import {
  readProject,
  readStackConfig,
  renderProgram,
  renderProject,
  stacksOf,
  type RenderResult,
} from "../lib/render";

/**
 * What the validation tests and the cluster tier render: every stack, every stack of every example,
 * and a generated matrix of mesh x ingress x cluster mode x monitoring backend, plus the options the
 * matrix does not vary.
 */

const shop = {
  name: "shop",
  image: "hello:2",
  port: 8080,
  metrics: { path: "/metrics" },
  expose: { host: "shop.example.com" },
};

export const meshes = ["linkerd", "istio", "none"] as const;
export const ingresses = ["gke-gateway", "traefik", "ingress-nginx", "gce-ingress"] as const;
export const modes = ["standard", "autopilot", "existing"] as const;
export const backends = ["prometheus", "managed-prometheus", "existing-prometheus", "none"] as const;

export function matrixConfig(
  mesh: string,
  ingress: string,
  mode: string,
  backend: string,
): Record<string, unknown> {
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

/** Options the matrix does not vary: Istio's ambient data plane and revisions, Linkerd's CNI, dashboard and tracing, mesh policy. */
export const extras: Record<string, Record<string, unknown>> = {
  "linkerd mesh policy": meshPolicyConfig("linkerd"),
  "istio mesh policy": meshPolicyConfig("istio"),
  "istio ambient": { tier: "prod", mesh: { kind: "istio", dataplane: "ambient" }, apps: [shop] },
  "istio ambient + managed prometheus": {
    tier: "prod",
    mesh: { kind: "istio", dataplane: "ambient" },
    monitoring: { backend: "managed-prometheus" },
    apps: [shop],
  },
  "istio canary revisions": {
    mesh: {
      kind: "istio",
      istio: { revisions: [{ name: "stable", version: "1.30.3" }], defaultRevision: "stable" },
    },
    apps: [shop],
  },
  "linkerd tracing": {
    tier: "prod",
    mesh: {
      kind: "linkerd",
      tracing: {
        collectorEndpoint: "collector.tracing.svc.cluster.local:4317",
        serviceAccount: "collector",
        namespace: "tracing",
      },
    },
    apps: [shop],
  },
  "linkerd cni + dashboard": {
    tier: "prod",
    mesh: { kind: "linkerd", cni: true, dashboard: true },
    apps: [shop],
  },
};

/** One render target: a label, its tier, and how to render it. */
export interface RenderTarget {
  readonly label: string;
  readonly tier: Tier;
  render(): Promise<RenderResult>;
}

const root = path.resolve(__dirname, "..");

/** The smallest valid environment plus `overrides`, as the tests build them. */
function environment(overrides: Record<string, unknown>): Record<string, unknown> {
  return { tier: "dev", gcp: { project: "acme-test", region: "europe-west1" }, ...overrides };
}

function configTarget(label: string, overrides: Record<string, unknown>): RenderTarget {
  const plan = resolvePlan(environment(overrides), "test");
  return {
    label,
    tier: plan.config.tier,
    render: () =>
      renderProgram({
        project: "test",
        stack: "test",
        config: {},
        program: () => new Platform("p", { plan }).outputs(),
      }),
  };
}

function projectTarget(label: string, dir: string, stack: string): RenderTarget {
  const tier = readStackConfig(readProject(dir), stack).config["platform:tier"];
  return { label, tier: (tier ?? "dev") as Tier, render: () => renderProject(dir, stack) };
}

/** Every stack and every stack of every example. */
export function projectTargets(): RenderTarget[] {
  const examples = path.join(root, "examples");
  return [
    ...stacksOf(readProject(root)).map((stack) => projectTarget(`stacks/${stack}`, root, stack)),
    ...fs
      .readdirSync(examples)
      .sort()
      .flatMap((name) =>
        stacksOf(readProject(path.join(examples, name))).map((stack) =>
          projectTarget(`examples/${name} (${stack})`, path.join(examples, name), stack),
        ),
      ),
  ];
}

/** Every combination of the matrix, and the extras. */
export function matrixTargets(): RenderTarget[] {
  const out: RenderTarget[] = [];
  for (const mesh of meshes)
    for (const ingress of ingresses)
      for (const mode of modes)
        for (const backend of backends)
          out.push(
            configTarget(
              `${mesh} x ${ingress} x ${mode} x ${backend}`,
              matrixConfig(mesh, ingress, mode, backend),
            ),
          );
  for (const [label, overrides] of Object.entries(extras)) out.push(configTarget(label, overrides));
  return out;
}
