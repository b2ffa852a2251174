import fc from "fast-check";
import { App, Chart } from "cdk8s";
import {
  MeshRoutes,
  pathMatch,
  type AccessGrant,
  type Caller,
  type MeshRouteSpec,
} from "../../lib/manifests";

/** The node and pod ranges kubelet's probes come from (a plan's clusterSources). */
const clusterSources = ["10.0.0.0/20", "10.4.0.0/14"];
const cluster: Caller = { kind: "network", name: "cluster", cidrs: clusterSources };
import { linkerdRoutes, meshOf, type MeshPolicy } from "../../lib/meshes";

type PolicyMesh = "linkerd" | "istio";

/** The mesh's policy compiler, as the App component and Platform use it. */
function policyOf(mesh: PolicyMesh): MeshPolicy {
  const policy = meshOf({ kind: mesh }).policy;
  if (!policy) throw new Error(`${mesh} has no policy`);
  return policy;
}
import { crdSchema, referenceDir, skipReason, unknownFields } from "../upstream/reference";

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
};

function synth(build: (chart: Chart) => void): Obj[] {
  const chart = new Chart(new App(), "test");
  build(chart);
  return chart.toJson() as Obj[];
}

const get = (objects: Obj[], kind: string, name: string): Obj => {
  const o = objects.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o)
    throw new Error(`no ${kind} ${name} in ${objects.map((x) => `${x.kind}/${x.metadata.name}`).join(", ")}`);
  return o;
};

const route = (r: Partial<MeshRouteSpec> & { name: string }): MeshRouteSpec => ({
  matches: [],
  backends: [{ service: "books", port: 7002, weight: 1 }],
  ...r,
});

function routes(mesh: PolicyMesh, specs: MeshRouteSpec[]): Obj[] {
  return synth(
    (c) =>
      new MeshRoutes(c, "r", {
        retryAnnotations: (r) => policyOf(mesh).retryAnnotations(r),
        namespace: "booksapp",
        service: "books",
        port: 7002,
        routes: specs,
        restRouteName: "books-mesh-default",
      }),
  );
}

/** The books example's authorization of `authors`, plus the probe exception the platform adds. */
const authorsGrants: AccessGrant[] = [
  {
    callers: [
      { kind: "identity", namespace: "booksapp", serviceAccount: "books" },
      { kind: "identity", namespace: "booksapp", serviceAccount: "webapp" },
    ],
    methods: ["GET"],
    paths: ["/authors.json", "/authors/*"],
  },
  {
    callers: [{ kind: "identity", namespace: "booksapp", serviceAccount: "webapp" }],
    methods: ["DELETE", "PUT"],
    paths: ["/authors/*"],
  },
  { callers: [cluster], methods: ["GET"], paths: ["/ping"] },
];

function access(mesh: PolicyMesh, grants: AccessGrant[] = authorsGrants): Obj[] {
  return synth((c) =>
    policyOf(mesh).access(c, "a", {
      name: "authors",
      namespace: "booksapp",
      podSelector: { "app.kubernetes.io/name": "authors" },
      port: 7001,
      grants,
    }),
  );
}

describe("paths", () => {
  test("an exact path, a prefix of whole segments, and every path", () => {
    expect(pathMatch("/authors.json")).toEqual({ type: "Exact", value: "/authors.json" });
    expect(pathMatch("/authors/*")).toEqual({ type: "PathPrefix", value: "/authors" });
    expect(pathMatch("/*")).toEqual({ type: "PathPrefix", value: "/" });
  });
});

describe("mesh routes: HTTPRoutes whose parent is the Service, for both meshes", () => {
  test.each(["linkerd", "istio"] as const)("%s: a canary splits by weight, with timeouts", (mesh) => {
    const [canary] = routes(mesh, [
      route({
        name: "canary",
        backends: [
          { service: "books", port: 7002, weight: 90 },
          { service: "books-v2", port: 7002, weight: 10 },
        ],
        timeouts: { request: "5s", backendRequest: "1s" },
      }),
    ]);
    expect(canary).toEqual({
      apiVersion: "gateway.networking.k8s.io/v1",
      kind: "HTTPRoute",
      metadata: { name: "books-canary", namespace: "booksapp" },
      spec: {
        // group "" is the core group: the route attaches to the Service (GAMMA), not to a Gateway.
        parentRefs: [{ group: "", kind: "Service", name: "books", port: 7002 }],
        rules: [
          {
            backendRefs: [
              { name: "books", port: 7002, weight: 90 },
              { name: "books-v2", port: 7002, weight: 10 },
            ],
            timeouts: { request: "5s", backendRequest: "1s" },
          },
        ],
      },
    });
  });

  test("a header match sends x-request-id: alternative to backend B; the rest still reaches the Service", () => {
    const objects = routes("linkerd", [
      route({
        name: "alternative",
        matches: [{ headers: { "x-request-id": "alternative" }, path: "/books/*", method: "GET" }],
        backends: [{ service: "books-v2", port: 7002, weight: 1 }],
      }),
    ]);
    expect(get(objects, "HTTPRoute", "books-alternative").spec?.rules).toEqual([
      {
        matches: [
          {
            headers: [{ type: "Exact", name: "x-request-id", value: "alternative" }],
            method: "GET",
            path: { type: "PathPrefix", value: "/books" },
          },
        ],
        backendRefs: [{ name: "books-v2", port: 7002, weight: 1 }],
      },
    ]);
    // Once a route is attached, requests no route matches are refused: the platform routes the rest.
    expect(get(objects, "HTTPRoute", "books-mesh-default").spec?.rules).toEqual([
      { backendRefs: [{ name: "books", port: 7002 }] },
    ]);
  });

  test("no extra route when one route already takes every request", () => {
    const objects = routes("istio", [
      route({ name: "alternative", matches: [{ headers: { "x-request-id": "alternative" } }] }),
      route({ name: "all", matches: [{ path: "/*" }] }),
    ]);
    expect(objects.map((o) => o.metadata.name)).toEqual(["books-alternative", "books-all"]);
  });

  test("fault injection sends the percentage to the injector and keeps the backends' proportions", () => {
    const [r] = routes("istio", [
      route({
        name: "chaos",
        backends: [
          { service: "books", port: 7002, weight: 90 },
          { service: "books-v2", port: 7002, weight: 10 },
        ],
        fault: { percent: 10, status: 503 },
      }),
    ]);
    const refs = (r.spec?.rules as { backendRefs: { name: string; weight: number }[] }[])[0].backendRefs;
    const total = refs.reduce((s, b) => s + b.weight, 0);
    expect(refs.map((b) => [b.name, b.weight / total])).toEqual([
      ["books", 0.81],
      ["books-v2", 0.09],
      ["fault-503", 0.1],
    ]);
    expect(refs[2]).toMatchObject({ port: 8080 });
  });

  test("fault weights stay within the CRD's 1,000,000 with 15 heavy backends", () => {
    const [r] = routes("linkerd", [
      route({
        name: "chaos",
        backends: Array.from({ length: 15 }, (_, i) => ({ service: `b${i}`, port: 80, weight: 1000 })),
        fault: { percent: 99, status: 500 },
      }),
    ]);
    const weights = (r.spec?.rules as { backendRefs: { weight: number }[] }[])[0].backendRefs.map(
      (b) => b.weight,
    );
    expect(Math.max(...weights)).toBeLessThanOrEqual(1_000_000);
    expect(weights).toEqual([...Array.from({ length: 15 }, () => 7), 9900]);
  });

  test("Linkerd retries are annotations on the route", () => {
    const [r] = routes("linkerd", [
      route({ name: "reads", retry: { on: ["5xx", "429"], attempts: 2, timeout: "300ms" } }),
    ]);
    expect(r.metadata.annotations).toEqual({
      "retry.linkerd.io/http": "5xx,429",
      "retry.linkerd.io/limit": "2",
      "retry.linkerd.io/timeout": "300ms",
    });
  });

  test("a retry for Istio is a defect, never dropped silently", () => {
    expect(() => routes("istio", [route({ name: "reads", retry: { on: ["5xx"], attempts: 1 } })])).toThrow(
      /retries are built for Linkerd only/,
    );
  });
});

describe("Linkerd authorization: Server, HTTPRoutes, AuthorizationPolicies, MeshTLS and Network authentications", () => {
  const objects = access("linkerd");

  test("a Server on the app's port refuses whatever no route authorizes", () => {
    expect(get(objects, "Server", "authors")).toEqual({
      apiVersion: "policy.linkerd.io/v1beta3",
      kind: "Server",
      metadata: { name: "authors", namespace: "booksapp" },
      spec: {
        accessPolicy: "deny",
        podSelector: { matchLabels: { "app.kubernetes.io/name": "authors" } },
        port: 7001,
      },
    });
  });

  test("each set of callers gets one route on the Server, a MeshTLSAuthentication and a policy", () => {
    const httpRoutes = objects.filter((o) => o.kind === "HTTPRoute");
    const byMatches = Object.fromEntries(
      httpRoutes.map((r) => [
        JSON.stringify((r.spec?.rules as { matches: unknown[] }[])[0].matches),
        r.metadata.name,
      ]),
    );
    const reads =
      byMatches[
        JSON.stringify([
          { method: "GET", path: { type: "Exact", value: "/authors.json" } },
          { method: "GET", path: { type: "PathPrefix", value: "/authors" } },
        ])
      ];
    const writes =
      byMatches[
        JSON.stringify([
          { method: "DELETE", path: { type: "PathPrefix", value: "/authors" } },
          { method: "PUT", path: { type: "PathPrefix", value: "/authors" } },
        ])
      ];
    expect(reads).toBeDefined();
    expect(writes).toBeDefined();
    expect(get(objects, "HTTPRoute", reads).spec?.parentRefs).toEqual([
      { group: "policy.linkerd.io", kind: "Server", name: "authors" },
    ]);
    expect(get(objects, "MeshTLSAuthentication", reads).spec).toEqual({
      identityRefs: [
        { kind: "ServiceAccount", name: "books", namespace: "booksapp" },
        { kind: "ServiceAccount", name: "webapp", namespace: "booksapp" },
      ],
    });
    // Only webapp may change authors.
    expect(get(objects, "MeshTLSAuthentication", writes).spec).toEqual({
      identityRefs: [{ kind: "ServiceAccount", name: "webapp", namespace: "booksapp" }],
    });
    expect(get(objects, "AuthorizationPolicy", `${writes}-mesh`)).toEqual({
      apiVersion: "policy.linkerd.io/v1alpha1",
      kind: "AuthorizationPolicy",
      metadata: { name: `${writes}-mesh`, namespace: "booksapp" },
      spec: {
        targetRef: { group: "gateway.networking.k8s.io", kind: "HTTPRoute", name: writes },
        requiredAuthenticationRefs: [
          { group: "policy.linkerd.io", kind: "MeshTLSAuthentication", name: writes },
        ],
      },
    });
  });

  test("the probe exception: a route for GET on the probe path, authorized from the cluster's own networks", () => {
    const probe = objects.find(
      (o) =>
        o.kind === "HTTPRoute" &&
        JSON.stringify(o.spec?.rules) ===
          JSON.stringify([{ matches: [{ method: "GET", path: { type: "Exact", value: "/ping" } }] }]),
    );
    expect(probe).toBeDefined();
    const name = probe?.metadata.name ?? "";
    expect(get(objects, "AuthorizationPolicy", `${name}-cluster`).spec).toEqual({
      targetRef: { group: "gateway.networking.k8s.io", kind: "HTTPRoute", name },
      requiredAuthenticationRefs: [
        { group: "policy.linkerd.io", kind: "NetworkAuthentication", name: "authors-cluster" },
      ],
    });
    expect(get(objects, "NetworkAuthentication", "authors-cluster").spec).toEqual({
      networks: clusterSources.map((cidr) => ({ cidr })),
    });
  });

  test("a broader grant's callers are allowed on every narrower route it covers", () => {
    // webapp may call anything; books may GET /authors/*. A GET /authors/1 matches only the narrower
    // route (Gateway API precedence), so that route must allow webapp too.
    const webapp = { kind: "identity", namespace: "booksapp", serviceAccount: "webapp" } as const;
    const books = { kind: "identity", namespace: "booksapp", serviceAccount: "books" } as const;
    const found = linkerdRoutes([
      { callers: [webapp] },
      { callers: [books], methods: ["GET"], paths: ["/authors/*"] },
    ]);
    expect(found).toEqual([
      { pairs: [{ path: { type: "PathPrefix", value: "/" } }], callers: [webapp] },
      {
        pairs: [{ path: { type: "PathPrefix", value: "/authors" }, method: "GET" }],
        callers: [books, webapp],
      },
    ]);
  });

  test("an HTTPRoute rule holds at most 64 matches: more pairs split into more routes", () => {
    const webapp = { kind: "identity", namespace: "booksapp", serviceAccount: "webapp" } as const;
    const paths = Array.from({ length: 10 }, (_, i) => `/p${i}`);
    const found = linkerdRoutes([
      { callers: [webapp], methods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"], paths },
    ]);
    expect(found.map((r) => r.pairs.length)).toEqual([64, 6]);
  });

  test("a grant for one method on a path some grant opens for any method gets its own route", () => {
    const webapp = { kind: "identity", namespace: "booksapp", serviceAccount: "webapp" } as const;
    const ops = { kind: "identity", namespace: "ops", serviceAccount: "oncall" } as const;
    // ops may GET anything; webapp may do anything under /admin. A GET /admin/x matches the most
    // specific route, so a GET route under /admin must exist and carry both.
    const found = linkerdRoutes([
      { callers: [ops], methods: ["GET"] },
      { callers: [webapp], paths: ["/admin/*"] },
    ]);
    expect(found).toEqual([
      { pairs: [{ path: { type: "PathPrefix", value: "/admin" } }], callers: [webapp] },
      { pairs: [{ path: { type: "PathPrefix", value: "/" }, method: "GET" }], callers: [ops] },
      { pairs: [{ path: { type: "PathPrefix", value: "/admin" }, method: "GET" }], callers: [webapp, ops] },
    ]);
  });
});

describe("Istio authorization: one ALLOW AuthorizationPolicy", () => {
  test("each grant is a rule: principals from service accounts, addresses as ipBlocks, paths in Istio's forms", () => {
    const [policy] = access("istio");
    expect(policy).toEqual({
      apiVersion: "security.istio.io/v1",
      kind: "AuthorizationPolicy",
      metadata: { name: "authors", namespace: "booksapp" },
      spec: {
        action: "ALLOW",
        selector: { matchLabels: { "app.kubernetes.io/name": "authors" } },
        rules: [
          {
            from: [
              {
                source: {
                  principals: ["cluster.local/ns/booksapp/sa/books", "cluster.local/ns/booksapp/sa/webapp"],
                },
              },
            ],
            to: [{ operation: { methods: ["GET"], paths: ["/authors.json", "/authors", "/authors/*"] } }],
          },
          {
            from: [{ source: { principals: ["cluster.local/ns/booksapp/sa/webapp"] } }],
            to: [{ operation: { methods: ["DELETE", "PUT"], paths: ["/authors", "/authors/*"] } }],
          },
          {
            from: [{ source: { ipBlocks: clusterSources } }],
            to: [{ operation: { methods: ["GET"], paths: ["/ping"] } }],
          },
        ],
      },
    });
  });

  test("a grant on every request has no `to`; the path /* is Istio's prefix /*", () => {
    const [policy] = access("istio", [
      { callers: [{ kind: "identity", namespace: "web", serviceAccount: "webapp" }] },
      { callers: [cluster], paths: ["/*"] },
    ]);
    expect(policy.spec?.rules).toEqual([
      { from: [{ source: { principals: ["cluster.local/ns/web/sa/webapp"] } }] },
      { from: [{ source: { ipBlocks: clusterSources } }], to: [{ operation: { paths: ["/*"] } }] },
    ]);
  });
});

describe("deny by default", () => {
  test("Linkerd: the namespace annotation, and the proxies' admin port stays open to probes and scrapes", () => {
    expect(policyOf("linkerd").denyByDefaultAnnotations).toEqual({
      "config.linkerd.io/default-inbound-policy": "deny",
    });
    const objects = synth((c) =>
      policyOf("linkerd").denyByDefault(c, "d", { namespace: "shop", clusterSources }),
    );
    expect(get(objects, "Server", "linkerd-proxy-admin").spec).toEqual({
      accessPolicy: "deny",
      podSelector: { matchLabels: {} },
      port: "linkerd-admin",
    });
    const [admin] = objects.filter((o) => o.kind === "HTTPRoute");
    expect((admin.spec?.rules as { matches: unknown[] }[])[0].matches).toEqual([
      { method: "GET", path: { type: "Exact", value: "/live" } },
      { method: "GET", path: { type: "Exact", value: "/metrics" } },
      { method: "GET", path: { type: "Exact", value: "/ready" } },
    ]);
    // From the cluster's own addresses only, never every address.
    expect(get(objects, "NetworkAuthentication", "linkerd-proxy-admin-cluster").spec).toEqual({
      networks: clusterSources.map((cidr) => ({ cidr })),
    });
  });

  test("Istio: an ALLOW-nothing policy, an AuthorizationPolicy with an empty spec", () => {
    expect(policyOf("istio").denyByDefaultAnnotations).toEqual({});
    expect(
      synth((c) => policyOf("istio").denyByDefault(c, "d", { namespace: "shop", clusterSources })),
    ).toEqual([
      {
        apiVersion: "security.istio.io/v1",
        kind: "AuthorizationPolicy",
        metadata: { name: "deny-by-default", namespace: "shop" },
        spec: {},
      },
    ]);
  });
});

describe("the fault injector", () => {
  test.each(["linkerd", "istio"] as const)(
    "%s: answers every request with the status, as a restricted pod",
    (mesh) => {
      const objects = synth((c) => policyOf(mesh).faultInjector(c, "f", { namespace: "shop", status: 503 }));
      expect(get(objects, "ConfigMap", "fault-503").data?.["nginx.conf"]).toContain(
        "server { listen 8080; location / { return 503; } }",
      );
      const pod = (
        get(objects, "Deployment", "fault-503").spec as {
          template: { metadata: { annotations?: Record<string, string> }; spec: Record<string, unknown> };
        }
      ).template;
      expect(pod.spec.securityContext).toMatchObject({
        runAsNonRoot: true,
        seccompProfile: { type: "RuntimeDefault" },
      });
      const container = (pod.spec.containers as Record<string, unknown>[])[0];
      expect(container.image).toMatch(/nginx-unprivileged:[0-9.]+-alpine$/);
      expect(container).toMatchObject({
        // Probes on another port, so the injected status never fails them.
        readinessProbe: { httpGet: { path: "/", port: 8081 } },
        securityContext: {
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ["ALL"] },
        },
      });
      // Any meshed caller reaches it even where the namespace denies by default.
      if (mesh === "linkerd") {
        expect(pod.metadata.annotations).toEqual({
          "config.linkerd.io/default-inbound-policy": "all-authenticated",
        });
      } else {
        expect(get(objects, "AuthorizationPolicy", "fault-503").spec).toMatchObject({
          action: "ALLOW",
          rules: [{ from: [{ source: { principals: ["*"] } }] }],
        });
      }
    },
  );
});

const describeUpstream = referenceDir ? describe : describe.skip;
describeUpstream(
  `every emitted field exists in the upstream CRDs (${referenceDir ? "reference present" : skipReason})`,
  () => {
    const schemas: Record<string, () => ReturnType<typeof crdSchema>> = {
      "policy.linkerd.io/v1beta3/Server": () =>
        crdSchema("crds/linkerd-crds-2026.8.3.policy.server.yaml", "Server", "v1beta3"),
      "policy.linkerd.io/v1alpha1/AuthorizationPolicy": () =>
        crdSchema(
          "crds/linkerd-crds-2026.8.3.policy.authorization-policy.yaml",
          "AuthorizationPolicy",
          "v1alpha1",
        ),
      "policy.linkerd.io/v1alpha1/MeshTLSAuthentication": () =>
        crdSchema(
          "crds/linkerd-crds-2026.8.3.policy.meshtls-authentication.yaml",
          "MeshTLSAuthentication",
          "v1alpha1",
        ),
      "policy.linkerd.io/v1alpha1/NetworkAuthentication": () =>
        crdSchema(
          "crds/linkerd-crds-2026.8.3.policy.network-authentication.yaml",
          "NetworkAuthentication",
          "v1alpha1",
        ),
      "gateway.networking.k8s.io/v1/HTTPRoute": () =>
        crdSchema("gateway-api-v1.5.1-standard/gateway.networking.k8s.io_httproutes.yaml", "HTTPRoute", "v1"),
      "security.istio.io/v1/AuthorizationPolicy": () =>
        crdSchema("crds/istio-1.30.3.crd-all.gen.yaml", "AuthorizationPolicy", "v1"),
    };
    const everything = [
      ...access("linkerd"),
      ...access("istio"),
      ...synth((c) => policyOf("linkerd").denyByDefault(c, "d", { namespace: "shop", clusterSources })),
      ...synth((c) => policyOf("istio").faultInjector(c, "f", { namespace: "shop", status: 500 })),
      ...routes("linkerd", [
        route({
          name: "all",
          matches: [{ path: "/a/*", method: "GET", headers: { "x-a": "b" } }],
          timeouts: { request: "2s", backendRequest: "1s" },
          retry: { on: ["5xx"], attempts: 1 },
          fault: { percent: 1, status: 500 },
        }),
      ]),
    ].filter((o) => `${o.apiVersion}/${o.kind}` in schemas);

    test.each(everything.map((o) => [`${o.kind} ${o.metadata.name}`, o] as const))("%s", (_, o) => {
      expect(unknownFields(o, schemas[`${o.apiVersion}/${o.kind}`]())).toEqual([]);
    });

    test("every policy kind is checked, at the version the platform emits", () => {
      const kinds = new Set(everything.map((o) => `${o.apiVersion}/${o.kind}`));
      for (const k of Object.keys(schemas)) expect(kinds).toContain(k);
    });
  },
);

describe("Linkerd's routes allow exactly what the grants allow (property)", () => {
  const paths = ["/*", "/a/*", "/a/b/*", "/a", "/a/b", "/a/b/c", "/c"];
  const methods = ["GET", "POST"];
  const requests = ["/", "/a", "/a/b", "/a/b/c", "/a/x", "/c", "/d"].flatMap((p) =>
    ["GET", "POST", "PUT"].map((m) => ({ path: p, method: m })),
  );
  const grantArb = fc.record({
    caller: fc.constantFrom("c1", "c2", "c3"),
    paths: fc.option(fc.uniqueArray(fc.constantFrom(...paths), { minLength: 1, maxLength: 3 }), {
      nil: undefined,
    }),
    methods: fc.option(fc.uniqueArray(fc.constantFrom(...methods), { minLength: 1, maxLength: 2 }), {
      nil: undefined,
    }),
  });
  const matchesPath = (pattern: string, path: string) => {
    const m = pathMatch(pattern);
    if (m.type === "Exact") return m.value === path;
    return m.value === "/" || path === m.value || path.startsWith(`${m.value}/`);
  };
  /** Gateway API precedence: an exact path, then the longest prefix, then a method match. */
  const rank = (p: { path: { type: string; value: string }; method?: string }) =>
    (p.path.type === "Exact" ? 1_000_000 : 0) + p.path.value.length * 10 + (p.method ? 1 : 0);

  test("for every request, the one route it matches carries every caller some grant lets make it", () => {
    fc.assert(
      fc.property(fc.array(grantArb, { minLength: 1, maxLength: 5 }), (raw) => {
        const grants: AccessGrant[] = raw.map((g) => ({
          callers: [{ kind: "identity", namespace: "ns", serviceAccount: g.caller }],
          paths: g.paths,
          methods: g.methods,
        }));
        const routesFound = linkerdRoutes(grants);
        for (const req of requests) {
          const allowed = new Set(
            raw
              .filter(
                (g) =>
                  (g.paths ?? ["/*"]).some((p) => matchesPath(p, req.path)) &&
                  (!g.methods || g.methods.includes(req.method)),
              )
              .map((g) => g.caller),
          );
          const candidates = routesFound.flatMap((r) =>
            r.pairs
              .filter(
                (p) =>
                  (!p.method || p.method === req.method) &&
                  (p.path.type === "Exact"
                    ? p.path.value === req.path
                    : p.path.value === "/" ||
                      req.path === p.path.value ||
                      req.path.startsWith(`${p.path.value}/`)),
              )
              .map((p) => ({ rank: rank(p), callers: r.callers })),
          );
          const best = Math.max(-1, ...candidates.map((c) => c.rank));
          const winners = candidates.filter((c) => c.rank === best);
          // One most specific match, never a tie for creation order to break.
          expect(new Set(winners.map((w) => JSON.stringify(w.callers))).size).toBeLessThanOrEqual(1);
          const got = new Set(
            (winners[0]?.callers ?? []).map((c) =>
              c.kind === "identity" ? c.serviceAccount : c.kind === "namespace" ? `${c.namespace}/*` : c.name,
            ),
          );
          expect({ req, got: [...got].sort() }).toEqual({ req, got: [...allowed].sort() });
        }
      }),
      { numRuns: 300 },
    );
  });
});
