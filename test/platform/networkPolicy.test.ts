import { App, Chart } from "cdk8s";
import { NamespaceNetworkPolicy, type Caller } from "../../lib/manifests";
import { namespaceNetworkPolicies } from "../../lib/platform/networkPolicy";
import { checkInvariants } from "../../lib/safety";
import { viewsOf } from "../../lib/render";
import { meshOfPlan, type Plan } from "../../lib/plan";
import { at, find, plan, problems, renderPlatform } from "../helpers";
import type { RenderResult, RenderedResource } from "../../lib/render";

/**
 * Namespace isolation (docs/mesh-policy.md, "Namespace isolation"): the NetworkPolicy of each isolated
 * app namespace, exactly, for each mesh and each way in; the mesh objects that close the namespace; the
 * config's errors; and the two layers agreeing on who gets in.
 */

const shop = {
  name: "shop",
  image: "hello:2",
  port: 8080,
  metrics: { path: "/metrics" },
  expose: { host: "shop.example.com" },
};

/** The NetworkPolicy a plan gives a namespace, as the cluster receives it. */
function networkPolicyOf(p: Plan, namespace: string): Record<string, unknown> {
  const isolation = namespaceNetworkPolicies(p).find((n) => n.namespace === namespace);
  if (!isolation) throw new Error(`${namespace} is not isolated`);
  const chart = new Chart(new App(), "test");
  new NamespaceNetworkPolicy(chart, "isolation", isolation);
  const [object] = chart.toJson() as Record<string, unknown>[];
  return object;
}

const tcp = (...ports: (number | string)[]) => ports.map((port) => ({ protocol: "TCP", port }));
const sameNamespace = { from: [{ podSelector: {} }] };
const pods = (namespace: string | undefined, labels?: Record<string, string>) => ({
  namespaceSelector: namespace ? { matchLabels: { "kubernetes.io/metadata.name": namespace } } : {},
  podSelector: labels ? { matchLabels: labels } : {},
});
const prometheus = pods("monitoring", { "app.kubernetes.io/name": "prometheus" });
const googleLoadBalancers = [{ ipBlock: { cidr: "35.191.0.0/16" } }, { ipBlock: { cidr: "130.211.0.0/22" } }];

describe("the NetworkPolicy of an isolated namespace", () => {
  test("Linkerd, GKE Gateway, the platform's Prometheus, linkerd-viz (prod's shape)", () => {
    const p = plan({ tier: "prod", mesh: { kind: "linkerd", dashboard: true }, apps: [shop] });
    expect(networkPolicyOf(p, "shop")).toEqual({
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: { name: "namespace-isolation", namespace: "shop" },
      spec: {
        podSelector: {},
        policyTypes: ["Ingress"],
        ingress: [
          sameNamespace,
          // Google's front ends and health checks reach the NEG's pods directly.
          { from: googleLoadBalancers, ports: tcp(8080) },
          // The app's metrics on its port, the proxy's on its admin port.
          { from: [prometheus], ports: tcp(4191, 8080) },
          // linkerd-viz's tap server, on the proxy's tap port.
          {
            from: [pods("linkerd-viz", { "linkerd.io/extension": "viz", component: "tap" })],
            ports: tcp(4190),
          },
        ],
      },
    });
  });

  test("Linkerd, Traefik with ACME HTTP-01, Managed Prometheus, a caller elsewhere and a fault", () => {
    const p = plan({
      tier: "staging",
      mesh: { kind: "linkerd" },
      ingress: { kind: "traefik", acme: { email: "ops@example.com" } },
      monitoring: { backend: "managed-prometheus" },
      apps: [
        {
          ...shop,
          port: 9090,
          mesh: {
            routes: [{ name: "chaos", fault: { percent: 5, status: 503 } }],
            authorization: { rules: [{ from: ["ops/oncall", "billing/invoicer"] }] },
          },
        },
      ],
    });
    expect(at2(networkPolicyOf(p, "shop"), "spec", "ingress")).toEqual([
      sameNamespace,
      // Traefik's meshed calls arrive on the proxy's inbound port, the challenge on the solver's, and
      // calls its routes send to the fault injector on the injector's.
      {
        from: [pods("traefik", { "app.kubernetes.io/name": "traefik" })],
        ports: tcp(4143, 8080, 8089, 9090),
      },
      {
        from: [pods("gmp-system", { "app.kubernetes.io/name": "collector" })],
        ports: tcp(4191, 9090),
      },
      { from: [pods("billing")], ports: tcp(4143, 8080, 9090) },
      { from: [pods("ops")], ports: tcp(4143, 8080, 9090) },
    ]);
  });

  test("Istio's sidecars, ingress-nginx: calls on the app's port, scrapes of the merged metrics", () => {
    const p = plan({
      tier: "prod",
      mesh: { kind: "istio" },
      // DNS-01: no solver pod answers in the namespace.
      ingress: { kind: "ingress-nginx", acme: { email: "ops@example.com", solver: "dns01" } },
      apps: [shop, { name: "cart", namespace: "shop", image: "cart:1", port: 7000 }],
    });
    expect(at2(networkPolicyOf(p, "shop"), "spec", "ingress")).toEqual([
      sameNamespace,
      {
        from: [
          pods("ingress-nginx", {
            "app.kubernetes.io/name": "ingress-nginx",
            "app.kubernetes.io/component": "controller",
          }),
        ],
        ports: tcp(8080),
      },
      { from: [prometheus], ports: tcp(15020) },
    ]);
  });

  test("Istio ambient, a regional Gateway: HBONE, the proxy-only subnet, the probes' SNAT address", () => {
    const p = plan({
      tier: "prod",
      mesh: { kind: "istio", dataplane: "ambient" },
      ingress: regionalGateway("gke-l7-rilb"),
      apps: [shop],
    });
    expect(at2(networkPolicyOf(p, "shop"), "spec", "ingress")).toEqual([
      sameNamespace,
      { from: [...googleLoadBalancers, { ipBlock: { cidr: "10.9.0.0/23" } }], ports: tcp(8080) },
      // Prometheus joins the ambient mesh under STRICT mTLS: its scrapes arrive over HBONE.
      { from: [prometheus], ports: tcp(8080, 15008) },
      { from: [{ ipBlock: { cidr: "169.254.7.127/32" } }], ports: tcp(8080) },
    ]);
  });

  test("no mesh, GCE Ingress, a Prometheus the platform does not run: its scrapes from its namespace, or any", () => {
    const policy = (monitoring: Record<string, unknown>) =>
      at2(
        networkPolicyOf(
          plan({
            tier: "staging",
            mesh: { kind: "none" },
            ingress: { kind: "gce-ingress" },
            monitoring,
            apps: [shop],
          }),
          "shop",
        ),
        "spec",
        "ingress",
      );
    const existing = { backend: "existing-prometheus" };
    // Its Service's cluster URL, or the key, places it; an outside URL does not, and every pod gets in.
    for (const placed of [
      { ...existing, prometheusUrl: "http://prometheus.obs.svc:9090" },
      { ...existing, prometheusUrl: "https://prometheus.example.com", scraperNamespace: "obs" },
    ])
      expect(policy(placed)).toEqual([
        sameNamespace,
        { from: googleLoadBalancers, ports: tcp(8080) },
        { from: [pods("obs")], ports: tcp(8080) },
      ]);
    expect(policy({ ...existing, prometheusUrl: "https://prometheus.example.com" })).toEqual([
      sameNamespace,
      { from: googleLoadBalancers, ports: tcp(8080) },
      { from: [pods(undefined)], ports: tcp(8080) },
    ]);
  });

  test("dev is open unless isolation is on; an exception is left open", () => {
    const apps = [shop, { ...shop, name: "legacy", expose: undefined }];
    expect(namespaceNetworkPolicies(plan({ apps }))).toEqual([]);
    expect(
      namespaceNetworkPolicies(plan({ apps, isolation: { enabled: true } })).map((n) => n.namespace),
    ).toEqual(["legacy", "shop"]);
    expect(
      namespaceNetworkPolicies(plan({ tier: "prod", apps, isolation: { except: ["legacy"] } })).map(
        (n) => n.namespace,
      ),
    ).toEqual(["shop"]);
    expect(namespaceNetworkPolicies(plan({ tier: "prod", apps, isolation: { enabled: false } }))).toEqual([]);
  });
});

test("peers from one source become one rule: their ports merged, numbers first; one without ports opens all", () => {
  const chart = new Chart(new App(), "test");
  new NamespaceNetworkPolicy(chart, "isolation", {
    namespace: "shop",
    peers: [
      { from: { kind: "pods", namespace: "ops" }, ports: ["linkerd-proxy", 9090] },
      { from: { kind: "pods", namespace: "ops" }, ports: [8080, 9090] },
      { from: { kind: "pods", namespace: "billing" }, ports: [8080] },
      { from: { kind: "pods", namespace: "billing" } },
    ],
  });
  const [object] = chart.toJson() as Record<string, unknown>[];
  expect(at2(object, "spec", "ingress")).toEqual([
    { from: [pods("ops")], ports: tcp(8080, 9090, "linkerd-proxy") },
    { from: [pods("billing")] },
  ]);
});

/** Reads a nested field of a plain object. */
function at2(o: unknown, ...path: string[]): unknown {
  return path.reduce<unknown>((cur, p) => (cur as Record<string, unknown> | undefined)?.[p], o);
}

const inShop = (result: RenderResult, kind: string): RenderedResource[] =>
  result.resources.filter(
    (r) => r.inputs.kind === kind && (r.inputs.metadata as { namespace?: string }).namespace === "shop",
  );

describe("the mesh's side of an isolated namespace", () => {
  test("Linkerd behind Traefik: the namespace denies by default; an app without rules takes its own namespace's workloads", async () => {
    const result = await renderPlatform({
      tier: "staging",
      mesh: { kind: "linkerd" },
      ingress: { kind: "traefik", acme },
      apps: [
        shop,
        {
          name: "cart",
          namespace: "shop",
          image: "cart:1",
          port: 7000,
          mesh: { authorization: { rules: [{ from: ["ops/oncall"] }] } },
        },
      ],
    });
    expect(at(find(result, "Namespace", "shop"), "metadata", "annotations")).toMatchObject({
      "config.linkerd.io/default-inbound-policy": "deny",
    });
    // shop has no rules: every workload of shop may call it; cart has rules: only what they name.
    const refs = (prefix: string) =>
      inShop(result, "MeshTLSAuthentication")
        .filter((r) => String((r.inputs.metadata as { name: string }).name).startsWith(prefix))
        .map((r) => at(r, "spec", "identityRefs"));
    // Both of shop's routes (every request, and the probe's GET /) take shop's workloads and Traefik.
    expect(refs("shop-")).toEqual([
      [
        { kind: "Namespace", name: "shop" },
        { kind: "ServiceAccount", name: "traefik", namespace: "traefik" },
      ],
      [
        { kind: "Namespace", name: "shop" },
        { kind: "ServiceAccount", name: "traefik", namespace: "traefik" },
      ],
    ]);
    expect(new Set(refs("cart-").map((x) => JSON.stringify(x)))).toEqual(
      new Set([JSON.stringify([{ kind: "ServiceAccount", name: "oncall", namespace: "ops" }])]),
    );
    expect(at(find(result, "Server", "linkerd-proxy-admin", "shop"), "spec")).toEqual({
      podSelector: { matchLabels: {} },
      port: "linkerd-admin",
      accessPolicy: "deny",
    });
    expect(checkInvariants(viewsOf(result))).toEqual([]);
  });

  test("Istio: an allow-nothing policy, and each app's ALLOW policy with its own namespace", async () => {
    const result = await renderPlatform({ tier: "prod", mesh: { kind: "istio" }, apps: [shop] });
    expect(at(find(result, "AuthorizationPolicy", "deny-by-default", "shop"), "spec")).toEqual({});
    expect(at(find(result, "AuthorizationPolicy", "shop", "shop"), "spec")).toEqual({
      selector: { matchLabels: { "app.kubernetes.io/name": "shop" } },
      action: "ALLOW",
      rules: [
        { from: [{ source: { namespaces: ["shop"] } }] },
        {
          from: [{ source: { ipBlocks: ["35.191.0.0/16", "130.211.0.0/22"] } }],
          to: [{ operation: { methods: ["GET"], paths: ["/"] } }],
        },
        {
          from: [{ source: { ipBlocks: ["35.191.0.0/16", "130.211.0.0/22"] } }],
          to: [{ operation: { paths: ["/*"] } }],
        },
      ],
    });
    expect(checkInvariants(viewsOf(result))).toEqual([]);
  });

  test("Istio ambient and no mesh: the NetworkPolicy alone, no mesh policy", async () => {
    for (const mesh of [{ kind: "istio", dataplane: "ambient" }, { kind: "none" }]) {
      const result = await renderPlatform({ tier: "prod", mesh, apps: [shop] });
      expect(inShop(result, "NetworkPolicy")).toHaveLength(1);
      // Istio's STRICT mTLS still takes plain traffic from Google's load balancers only (a DENY policy).
      expect(inShop(result, "AuthorizationPolicy").filter((r) => at(r, "spec", "action") !== "DENY")).toEqual(
        [],
      );
      expect(inShop(result, "Server")).toEqual([]);
    }
  });
});

describe("the config of isolation", () => {
  const apps = [shop, { ...shop, name: "books", namespace: "booksapp", expose: undefined }];

  test("an exception no app lives in, with the nearest name", () => {
    expect(problems({ ...base("prod"), apps, isolation: { except: ["bookapp"] } })).toEqual([
      {
        path: "platform:isolation.except[0]",
        problem: '"bookapp" is not a namespace of an app (did you mean "booksapp"?)',
        allowed: "app namespaces: booksapp, shop",
        fix: 'write "booksapp"',
      },
    ]);
  });

  test("an exception where nothing is isolated", () => {
    expect(problems({ ...base("dev"), apps, isolation: { except: ["booksapp"] } })).toEqual([
      {
        path: "platform:isolation.except[0]",
        problem:
          "is set, but isolation is off (isolation.enabled is false, the dev tier's default), so no namespace is isolated and the exception would have no effect",
        fix: "remove platform:isolation.except, or set platform:isolation.enabled to true",
      },
    ]);
  });

  test("an exception the mesh denies by default", () => {
    expect(
      problems({
        ...base("prod"),
        mesh: { kind: "linkerd", denyByDefault: ["booksapp"] },
        apps,
        isolation: { except: ["booksapp"] },
      }),
    ).toEqual([
      {
        path: "platform:isolation.except[0]",
        problem:
          '"booksapp" would be left open to every namespace, but mesh.denyByDefault names it, so the mesh refuses every call to it that no rule allows',
        allowed: "app namespaces not in mesh.denyByDefault: shop",
        fix: 'remove "booksapp" from platform:isolation.except (its NetworkPolicy then agrees with the mesh), or from platform:mesh.denyByDefault',
      },
    ]);
  });

  test("an app named like the objects that close an isolated namespace", () => {
    expect(
      problems({ ...base("prod"), apps: [{ ...shop, name: "linkerd-proxy-admin", namespace: "shop" }] }),
    ).toEqual([
      {
        path: "platform:apps[0].name",
        problem:
          '"linkerd-proxy-admin" is the name of a policy object the platform creates in a namespace that denies by default or is isolated',
        allowed: "any name but deny-by-default, linkerd-proxy-admin",
        fix: "rename the app",
      },
    ]);
  });

  test("the schema: a key it does not know, an empty list", () => {
    expect(problems({ ...base("prod"), apps, isolation: { enabld: true } })[0]).toMatchObject({
      path: "platform:isolation.enabld",
    });
    expect(problems({ ...base("prod"), apps, isolation: { except: [] } })[0]).toMatchObject({
      path: "platform:isolation.except",
    });
  });
});

const acme = { email: "ops@example.com" };

/** A regional or internal Gateway class, with the regional certificates those need. */
function regionalGateway(gatewayClass: string): Record<string, unknown> {
  return {
    kind: "gke-gateway",
    gatewayClass,
    staticIp: false,
    tls: { mode: "pre-shared", certificates: ["shop"] },
  };
}

function base(tier: string): Record<string, unknown> {
  return { tier, gcp: { project: "acme-test", region: "europe-west1" } };
}

/**
 * The two layers agree: every caller an isolated app's mesh grants admit from elsewhere (another
 * namespace's identity, a load balancer's range) is let in by the namespace's NetworkPolicy on the port
 * its calls arrive on, and every source the NetworkPolicy lets in from elsewhere is a grant of the mesh,
 * or traffic that never meets the mesh's authorization (the proxy's own ports, linkerd-viz's tap, the
 * monitoring's scrapes, which the mesh grants the cluster's addresses).
 */
describe("the mesh's grants and the NetworkPolicy agree", () => {
  const variants: Record<string, Record<string, unknown>> = {
    "linkerd, gke-gateway": { mesh: { kind: "linkerd", dashboard: true } },
    "linkerd, traefik": { mesh: { kind: "linkerd" }, ingress: { kind: "traefik", acme } },
    "istio, ingress-nginx": { mesh: { kind: "istio" }, ingress: { kind: "ingress-nginx", acme } },
    "istio, regional gke-gateway": {
      mesh: { kind: "istio" },
      ingress: regionalGateway("gke-l7-regional-external-managed"),
    },
  };
  const apps = [
    {
      ...shop,
      mesh: {
        authorization: {
          rules: [{ from: ["cart", "ops/oncall"] }, { from: ["billing/invoicer"], methods: ["GET"] }],
        },
      },
    },
    { name: "cart", namespace: "shop", image: "cart:1", port: 7000 },
  ];

  test.each(Object.entries(variants))("%s", async (_, variant) => {
    const p = plan({ tier: "prod", apps, ...variant });
    const [isolation] = namespaceNetworkPolicies(p);
    const peers = isolation.peers;
    const mesh = meshOfPlan(p);
    const meshed = mesh.policy?.network(mesh.config).meshedCallPorts ?? [];
    const admits = (source: (s: (typeof peers)[number]["from"]) => boolean, port: number | string) =>
      peers.some((x) => source(x.from) && (x.ports === undefined || x.ports.includes(port)));
    const elsewhere = (c: Caller) =>
      (c.kind === "identity" && c.namespace !== "shop") || (c.kind === "network" && c.name !== "cluster");
    for (const a of p.apps) {
      for (const c of a.grants.flatMap((g) => g.callers).filter(elsewhere)) {
        if (c.kind === "identity") {
          // Meshed calls arrive on the mesh's port where it has one (Linkerd), else on the app's.
          for (const port of meshed.length > 0 ? meshed : [a.app.port])
            expect({
              c,
              port,
              admitted: admits((s) => s.kind === "pods" && s.namespace === c.namespace, port),
            }).toEqual({
              c,
              port,
              admitted: true,
            });
        } else if (c.kind === "network") {
          for (const cidr of c.cidrs)
            expect({
              cidr,
              admitted: admits((s) => s.kind === "addresses" && s.cidrs.includes(cidr), a.app.port),
            }).toEqual({
              cidr,
              admitted: true,
            });
        }
      }
    }
    // The reverse: each source from elsewhere is a grant, or never meets the mesh's authorization.
    const granted = new Set(
      p.apps.flatMap((a) =>
        a.grants
          .flatMap((g) => g.callers)
          .flatMap((c) => (c.kind === "identity" ? [c.namespace] : c.kind === "network" ? c.cidrs : [])),
      ),
    );
    const bypassing = new Set(["monitoring", "linkerd-viz"]);
    for (const peer of peers) {
      const s = peer.from;
      if (s.kind === "same-namespace") continue;
      const known =
        s.kind === "addresses"
          ? s.cidrs.every((cidr) => granted.has(cidr))
          : granted.has(s.namespace ?? "") || bypassing.has(s.namespace ?? "");
      expect({ peer, known }).toEqual({ peer, known: true });
    }
    // And the render holds every invariant, the two layers' among them.
    const result = await renderPlatform({ tier: "prod", apps, ...variant });
    expect(checkInvariants(viewsOf(result))).toEqual([]);
  });
});
