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
 * the combination matrix (every mesh variant x ingress x monitoring backend x tier x deny by default),
 * each cluster mode with each mesh, two teams with every mesh variant (ingress and monitoring rotated),
 * and the options the matrix does not vary.
 */

const shop = {
  name: "shop",
  image: "hello:2",
  port: 8080,
  metrics: { path: "/metrics" },
  expose: { host: "shop.example.com" },
};

export const backends = ["prometheus", "managed-prometheus", "existing-prometheus", "none"] as const;

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
  // Under STRICT, Managed Prometheus cannot scrape ambient apps (refused); its monitors of the mesh itself work.
  "istio ambient + managed prometheus": {
    tier: "prod",
    mesh: { kind: "istio", dataplane: "ambient" },
    monitoring: { backend: "managed-prometheus" },
    apps: [{ ...shop, metrics: undefined }],
  },
  "istio canary revisions": {
    mesh: {
      kind: "istio",
      istio: { revisions: [{ name: "stable", version: "1.30.3" }], defaultRevision: "stable" },
    },
    apps: [shop],
  },
  // A canary's first step: the new istiod beside the unrevisioned one, which still serves every namespace.
  "istio canary, new revision added": {
    tier: "prod",
    mesh: {
      kind: "istio",
      istio: {
        revisions: [
          { name: "default", version: "1.30.3" },
          { name: "1-30-3", version: "1.30.3" },
        ],
        defaultRevision: "default",
      },
    },
    ingress: { kind: "traefik", acme: { email: "a@example.com" } },
    apps: [shop],
  },
  "ambient canary, new revision added": {
    tier: "prod",
    mesh: {
      kind: "istio",
      dataplane: "ambient",
      istio: {
        revisions: [
          { name: "default", version: "1.30.3" },
          { name: "1-30-3", version: "1.30.3" },
        ],
        defaultRevision: "default",
      },
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
  /** Why the platform must refuse it (`render` then throws a ConfigError matching this). */
  readonly refusedBecause?: RegExp;
}

/**
 * The meshes the platform supports, each way it can run: sidecars with or without their CNI, Istio's
 * revisions (a canary's two istiods, the unrevisioned one kept while namespaces move) and ambient.
 */
export const meshVariants: Readonly<Record<string, Record<string, unknown>>> = {
  none: { kind: "none" },
  linkerd: { kind: "linkerd" },
  "linkerd+cni": { kind: "linkerd", cni: true },
  istio: { kind: "istio" },
  "istio+cni": { kind: "istio", cni: true },
  "istio revisions": {
    kind: "istio",
    istio: {
      revisions: [
        { name: "default", version: "1.30.3" },
        { name: "1-30-3", version: "1.30.3" },
      ],
      defaultRevision: "1-30-3",
    },
  },
  "istio revisions+cni": {
    kind: "istio",
    cni: true,
    istio: { revisions: [{ name: "stable", version: "1.30.3" }] },
  },
  ambient: { kind: "istio", dataplane: "ambient" },
  "ambient revisions": {
    kind: "istio",
    dataplane: "ambient",
    istio: { revisions: [{ name: "stable", version: "1.30.3" }] },
  },
};

/** Every way into the cluster: GKE Gateway in each class, the in-cluster controllers with each ACME solver, GCE Ingress. */
export const ingressVariants: Readonly<Record<string, Record<string, unknown>>> = {
  "gke-gateway": { kind: "gke-gateway" },
  "gke-gateway regional": {
    kind: "gke-gateway",
    gatewayClass: "gke-l7-regional-external-managed",
    staticIp: false,
    tls: { mode: "pre-shared", certificates: ["shop"] },
  },
  "gke-gateway internal": {
    kind: "gke-gateway",
    gatewayClass: "gke-l7-rilb",
    staticIp: false,
    tls: { mode: "pre-shared", certificates: ["shop"] },
  },
  "traefik http01": { kind: "traefik", acme: { email: "a@example.com" } },
  "traefik dns01": { kind: "traefik", acme: { email: "a@example.com", solver: "dns01" } },
  "ingress-nginx http01": { kind: "ingress-nginx", acme: { email: "a@example.com" } },
  "ingress-nginx dns01": { kind: "ingress-nginx", acme: { email: "a@example.com", solver: "dns01" } },
  "gce-ingress": { kind: "gce-ingress" },
};

export const tiers: readonly Tier[] = ["dev", "staging", "prod"];

/** One combination of the matrix, as `combinations` makes them. */
export interface Combination {
  readonly label: string;
  readonly mesh: string;
  readonly ingress: string;
  readonly backend: string;
  readonly tier: Tier;
  readonly deny: boolean;
  /** The environment, as users write it. */
  readonly input: Record<string, unknown>;
  /**
   * Why the platform cannot build it, where it cannot: the config must refuse it, naming the reason.
   * Every other combination must render.
   */
  readonly refusedBecause?: RegExp;
}

/**
 * Every supported combination of mesh x ingress x monitoring backend x tier x deny by default (ACME's
 * solver is part of the in-cluster ingresses): an exposed app with metrics and a caller that
 * authorizes by identity, in a namespace that denies by default or not.
 */
export function combinations(): Combination[] {
  const out: Combination[] = [];
  for (const [mesh, meshInput] of Object.entries(meshVariants))
    for (const [ingress, ingressInput] of Object.entries(ingressVariants))
      for (const backend of backends)
        for (const tier of tiers)
          for (const deny of [false, true]) {
            const ambient = meshInput.dataplane === "ambient";
            const strict = tier !== "dev";
            const refusedBecause =
              deny && mesh === "none"
                ? /platform:mesh\.denyByDefault\[0\]: is set, but mesh\.kind is "none"/
                : deny && ambient
                  ? /waypoint proxies, which the platform does not deploy/
                  : ambient && strict && backend === "managed-prometheus"
                    ? /ztunnel refuses the plain-text scrapes Managed Prometheus's collectors/
                    : undefined;
            out.push({
              label: `${mesh} x ${ingress} x ${backend} x ${tier}${deny ? " x deny" : ""}`,
              mesh,
              ingress,
              backend,
              tier,
              deny,
              refusedBecause,
              input: {
                tier,
                mesh: { ...meshInput, ...(deny ? { denyByDefault: ["shop"] } : {}) },
                ingress: ingressInput,
                monitoring: {
                  backend,
                  ...(backend === "existing-prometheus"
                    ? { prometheusUrl: "http://prometheus.observability.svc:9090" }
                    : {}),
                },
                apps: [
                  { ...shop, metrics: backend === "none" ? undefined : shop.metrics },
                  // Calls shop with its mesh identity; in a deny-by-default namespace, allowed by a rule.
                  { name: "cart", namespace: "shop", image: "cart:1", port: 9090 },
                ].map((a) =>
                  deny && a.name === "shop"
                    ? { ...a, mesh: { authorization: { rules: [{ from: ["cart"] }] } } }
                    : a,
                ),
              },
            });
          }
  return out;
}

/**
 * Two teams, as `teamCombinations` renders them: payments in two namespaces (checkout exposed with
 * metrics in `payments`, ledger in `payments-jobs`), search in one (its `search` app exposed) letting
 * payments in. So every direction exists: a team's own namespaces (payments-jobs -> payments), a team
 * let in (payments -> search) and one refused (search -> payments).
 */
export function teamsInput(
  meshInput: Record<string, unknown>,
  ingressInput: Record<string, unknown>,
  backend: string,
): Record<string, unknown> {
  const metrics = backend === "none" ? undefined : { path: "/metrics" };
  return {
    tier: "prod",
    // The teams' Google groups match their members only through Google Groups for RBAC.
    cluster: { googleGroups: { securityGroup: "gke-security-groups@example.com" } },
    mesh: meshInput,
    ingress: ingressInput,
    monitoring: {
      backend,
      ...(backend === "existing-prometheus"
        ? { prometheusUrl: "http://prometheus.observability.svc:9090" }
        : {}),
    },
    teams: [
      {
        name: "payments",
        namespaces: ["payments", "payments-jobs"],
        access: {
          view: ["auditors@example.com"],
          edit: ["payments-devs@example.com", "user:alex@example.com"],
        },
      },
      { name: "search", access: { admin: ["search-leads@example.com"] }, allowFrom: ["payments"] },
    ],
    apps: [
      {
        name: "checkout",
        team: "payments",
        image: "checkout:1",
        port: 8080,
        metrics,
        expose: { host: "shop.example.com", path: "/checkout" },
      },
      { name: "ledger", team: "payments", namespace: "payments-jobs", image: "ledger:1", port: 9090 },
      {
        name: "search",
        team: "search",
        image: "search:1",
        port: 9000,
        metrics,
        expose: { host: "shop.example.com", path: "/search" },
      },
    ],
  };
}

/** In-cluster ingress controllers and Google's load balancers, each family rotated over the mesh variants. */
const inClusterIngresses = ["traefik http01", "ingress-nginx dns01", "traefik dns01", "ingress-nginx http01"];
const googleIngresses = ["gke-gateway", "gke-gateway regional", "gke-gateway internal", "gce-ingress"];

/**
 * The teams dimension: every mesh variant, each with one in-cluster ingress controller and one of
 * Google's load balancers, the ingress variant and the monitoring backend rotated over the variants
 * (18 renders, where the full cross would be 288). What decides a team's isolation is the mesh's
 * authorization and the NetworkPolicy's sources, and those differ by mesh variant (each is crossed), by
 * ingress family (a controller's pods by namespace, or a load balancer's address ranges: each variant
 * meets both) and by backend (where the scraper runs and the port it scrapes: Linkerd's and Istio's
 * sidecar variants meet all four, ambient's all it can build, no mesh two); the other dimensions
 * (tier, deny by default) are the combinations' own, and a team's namespaces are isolated whatever they
 * say. The one pair the platform refuses, ambient under STRICT with Managed Prometheus scraping apps,
 * moves to the next backend.
 */
export function teamCombinations(): Combination[] {
  const out: Combination[] = [];
  for (const [i, [mesh, meshInput]] of Object.entries(meshVariants).entries())
    for (const [j, ingress] of [inClusterIngresses[i % 4], googleIngresses[i % 4]].entries()) {
      const b = (2 * i + j) % backends.length;
      let backend: string = backends[b];
      if (meshInput.dataplane === "ambient" && backend === "managed-prometheus")
        backend = backends[(b + 1) % backends.length];
      out.push({
        label: `teams x ${mesh} x ${ingress} x ${backend}`,
        mesh,
        ingress,
        backend,
        tier: "prod",
        deny: false,
        input: teamsInput(meshInput, ingressVariants[ingress], backend),
      });
    }
  return out;
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

/** A target the config refuses: the plan is resolved (and throws) only when it is rendered. */
function lazyConfigTarget(label: string, tier: Tier, overrides: Record<string, unknown>): RenderTarget {
  return {
    label,
    tier,
    render: () => {
      const plan = resolvePlan(environment(overrides), "test");
      return renderProgram({
        project: "test",
        stack: "test",
        config: {},
        program: () => new Platform("p", { plan }).outputs(),
      });
    },
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

/** Every combination of `combinations()`, as render targets. */
export function combinationTargets(): RenderTarget[] {
  return combinations().map((c) => {
    const target = c.refusedBecause
      ? lazyConfigTarget(c.label, c.tier, c.input)
      : configTarget(c.label, c.input);
    return { ...target, refusedBecause: c.refusedBecause };
  });
}

/** The teams dimension (`teamCombinations`), as render targets. */
export function teamTargets(): RenderTarget[] {
  return teamCombinations().map((c) => configTarget(c.label, c.input));
}

/** The cluster modes the combinations leave out: Autopilot and a cluster made elsewhere, with each mesh. */
export function clusterModeTargets(): RenderTarget[] {
  const modes: Record<string, Record<string, unknown>> = {
    autopilot: { mode: "autopilot" },
    existing: { mode: "existing", existing: { name: "shared", location: "europe-west1" } },
  };
  const out: RenderTarget[] = [];
  for (const [mode, cluster] of Object.entries(modes))
    for (const [mesh, meshInput] of Object.entries(meshVariants)) {
      const input = {
        tier: "prod",
        cluster,
        mesh: meshInput,
        ingress: { kind: "gke-gateway" },
        apps: [shop],
      };
      // Autopilot admits neither istio-cni nor ztunnel, nor linkerd-cni.
      const refusedBecause =
        mode === "autopilot" && meshInput.dataplane === "ambient"
          ? /"ambient" needs istio-cni and the privileged ztunnel DaemonSet, which Autopilot does not admit/
          : mode === "autopilot" && meshInput.cni === true
            ? /platform:mesh\.cni/
            : undefined;
      const label = `${mode} x ${mesh}`;
      out.push(
        refusedBecause
          ? { ...lazyConfigTarget(label, "prod", input), refusedBecause }
          : configTarget(label, input),
      );
    }
  return out;
}

/** The options the combinations do not vary (mesh policy, tracing, the dashboard), as render targets. */
export function extraTargets(): RenderTarget[] {
  return Object.entries(extras).map(([label, overrides]) => configTarget(label, overrides));
}
