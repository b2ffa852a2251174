import * as path from "path";
import { renderProject, type RenderResult, type RenderedResource } from "../../lib/render";
import { at, find, input, problems, release, renderPlatform, waitsFor } from "../helpers";
import { parseEnvironment } from "../../lib/plan";

const plan = (raw: Record<string, unknown>) => parseEnvironment(raw, "test");

/** The books example on each mesh: routes, authorization and deny-by-default as the platform deploys them. */

const books = path.resolve(__dirname, "../../examples/books");

const kind = (r: RenderedResource) => String(r.inputs.kind);
const nameOf = (r: RenderedResource) => (r.inputs.metadata as { name: string }).name;
const inBooksapp = (result: RenderResult, k: string) =>
  result.resources.filter(
    (r) =>
      kind(r) === k && (r.inputs.metadata as { namespace?: string } | undefined)?.namespace === "booksapp",
  );

describe("the books example on Linkerd", () => {
  let result: RenderResult;
  beforeAll(async () => {
    result = await renderProject(books, "linkerd");
  }, 60_000);

  test("booksapp denies by default; every app has its own service account, its mesh identity", () => {
    expect(at(find(result, "Namespace", "booksapp"), "metadata", "annotations")).toMatchObject({
      "config.linkerd.io/default-inbound-policy": "deny",
      "linkerd.io/inject": "enabled",
    });
    for (const app of ["webapp", "books", "books-v2", "authors"]) {
      expect(
        at(find(result, "Deployment", app, "booksapp"), "spec", "template", "spec", "serviceAccountName"),
      ).toBe(app);
      expect(find(result, "ServiceAccount", app, "booksapp").inputs.automountServiceAccountToken).toBe(false);
    }
  });

  test("books' canary and A/B routes and authors' read timeouts and retries", () => {
    expect(at(find(result, "HTTPRoute", "books-canary"), "spec", "rules")).toEqual([
      {
        backendRefs: [
          { name: "books", port: 7002, weight: 90 },
          { name: "books-v2", port: 7002, weight: 10 },
        ],
        timeouts: { request: "5s" },
      },
    ]);
    expect(at(find(result, "HTTPRoute", "books-alternative"), "spec", "rules")).toEqual([
      {
        matches: [{ headers: [{ type: "Exact", name: "x-request-id", value: "alternative" }] }],
        backendRefs: [{ name: "books-v2", port: 7002, weight: 1 }],
      },
    ]);
    const reads = find(result, "HTTPRoute", "authors-reads");
    expect(at(reads, "metadata", "annotations")).toEqual({
      "retry.linkerd.io/http": "5xx",
      "retry.linkerd.io/limit": "2",
    });
    expect(at(reads, "spec", "rules")).toEqual([
      expect.objectContaining({ timeouts: { request: "2s", backendRequest: "500ms" } }),
    ]);
    // authors' other requests still reach it.
    expect(at(find(result, "HTTPRoute", "authors-mesh-default"), "spec", "rules")).toEqual([
      { backendRefs: [{ name: "authors", port: 7001 }] },
    ]);
  });

  test("the exposed webapp lets Traefik in on its path and probes on /ping, nothing else", () => {
    const webappRoutes = inBooksapp(result, "HTTPRoute").filter(
      (r) =>
        (at(r, "spec", "parentRefs") as { kind: string; name: string }[])[0].kind === "Server" &&
        nameOf(r).startsWith("webapp-"),
    );
    const authns = inBooksapp(result, "MeshTLSAuthentication").filter((r) => nameOf(r).startsWith("webapp-"));
    expect(authns.map((a) => at(a, "spec", "identityRefs"))).toEqual(
      authns.map(() => [{ kind: "ServiceAccount", name: "traefik", namespace: "traefik" }]),
    );
    // The probe route carries Traefik too: its grant of every path covers /ping.
    const matches = webappRoutes.flatMap(
      (r) => (at(r, "spec", "rules") as { matches: unknown[] }[])[0].matches,
    );
    expect(matches).toHaveLength(2);
    expect(matches).toEqual(
      expect.arrayContaining([
        { path: { type: "PathPrefix", value: "/" } },
        { method: "GET", path: { type: "Exact", value: "/ping" } },
      ]),
    );
  });

  test("policies wait for the control plane, Servers for their routes and policies; workloads for none", () => {
    const server = find(result, "Server", "authors", "booksapp");
    const serverWaits = waitsFor(result, server);
    expect(serverWaits).toContain(release(result, "linkerd-control-plane").key);
    for (const k of ["HTTPRoute", "AuthorizationPolicy", "NetworkAuthentication"]) {
      for (const r of inBooksapp(result, k).filter((x) => nameOf(x).startsWith("authors-get-root"))) {
        expect(serverWaits).toContain(r.key);
      }
    }
    expect(serverWaits).toContain(find(result, "NetworkAuthentication", "authors-cluster").key);
    const policyKeys = new Set(
      [
        "Server",
        "AuthorizationPolicy",
        "MeshTLSAuthentication",
        "NetworkAuthentication",
        "HTTPRoute",
      ].flatMap((k) => inBooksapp(result, k).map((r) => r.key)),
    );
    expect(policyKeys.size).toBeGreaterThan(20);
    for (const app of ["webapp", "authors"]) {
      const deployment = find(result, "Deployment", app, "booksapp");
      expect([...waitsFor(result, deployment)].filter((k) => policyKeys.has(k))).toEqual([]);
    }
  });
});

describe("the books example on Istio", () => {
  let result: RenderResult;
  beforeAll(async () => {
    result = await renderProject(books, "istio");
  }, 60_000);

  test("booksapp allows nothing by default; authors allows reads to books and webapp, writes to webapp", () => {
    expect(find(result, "AuthorizationPolicy", "deny-by-default", "booksapp").inputs.spec).toEqual({});
    const rules = at(
      find(result, "AuthorizationPolicy", "authors", "booksapp"),
      "spec",
      "rules",
    ) as unknown[];
    expect(rules).toContainEqual({
      from: [{ source: { principals: ["cluster.local/ns/booksapp/sa/webapp"] } }],
      to: [{ operation: { methods: ["DELETE", "PUT"], paths: ["/authors", "/authors/*"] } }],
    });
    expect(rules[0]).toMatchObject({
      from: [
        {
          source: {
            principals: [
              "cluster.local/ns/booksapp/sa/books",
              "cluster.local/ns/booksapp/sa/books-v2",
              "cluster.local/ns/booksapp/sa/webapp",
            ],
          },
        },
      ],
    });
  });

  test("the webapp, behind GKE Gateway, admits Google's load balancers on its path", () => {
    const rules = at(find(result, "AuthorizationPolicy", "webapp", "booksapp"), "spec", "rules");
    expect(rules).toContainEqual({
      from: [{ source: { ipBlocks: ["35.191.0.0/16", "130.211.0.0/22"] } }],
      to: [{ operation: { paths: ["/*"] } }],
    });
  });

  test("the same mesh routes as on Linkerd, without Linkerd's retry annotations or per-try timeout", async () => {
    const linkerd = await renderProject(books, "linkerd");
    const meshRoutes = (r: RenderResult) =>
      inBooksapp(r, "HTTPRoute")
        .filter((x) => (at(x, "spec", "parentRefs") as { kind?: string }[])[0].kind === "Service")
        .map((x) => ({ name: nameOf(x), spec: x.inputs.spec }));
    // Linkerd's reads also bound each try (backendRequest); on Istio that would bound the whole request.
    const withoutPerTry = meshRoutes(linkerd).map((r) =>
      r.name === "authors-reads"
        ? {
            ...r,
            spec: {
              ...(r.spec as Record<string, unknown>),
              rules: ((r.spec as { rules: Record<string, unknown>[] }).rules ?? []).map((rule) => ({
                ...rule,
                timeouts: { request: "2s" },
              })),
            },
          }
        : r,
    );
    expect(meshRoutes(result)).toEqual(withoutPerTry);
    expect(meshRoutes(result).map((r) => r.name)).toEqual([
      "books-alternative",
      "books-canary",
      "authors-reads",
      "authors-mesh-default",
    ]);
    expect(at(find(result, "HTTPRoute", "authors-reads"), "metadata", "annotations")).toBeUndefined();
  });
});

describe("how the ingress gets in", () => {
  test("a regional Gateway's proxies come from the proxy-only subnet; GCE Ingress's from Google's ranges", async () => {
    const both = await renderPlatform({
      mesh: { kind: "linkerd" },
      ingress: { kind: "gke-gateway" },
      apps: [
        {
          name: "shop",
          image: "shop:1",
          port: 8080,
          expose: { host: "shop.example.com", via: ["gke-gateway", "gce-ingress"] },
          mesh: { authorization: { rules: [{ from: ["ops/oncall"] }] } },
        },
      ],
    });
    for (const via of ["gke-gateway", "gce-ingress"]) {
      expect(find(both, "NetworkAuthentication", `shop-${via}`).inputs.spec).toEqual({
        networks: [{ cidr: "35.191.0.0/16" }, { cidr: "130.211.0.0/22" }],
      });
    }
    const result = await renderPlatform({
      mesh: { kind: "istio" },
      ingress: { kind: "gke-gateway" },
      apps: [
        {
          name: "shop",
          image: "shop:1",
          port: 8080,
          expose: { host: "shop.example.com", via: ["gke-gateway", "gce-ingress"], path: "/shop/" },
          mesh: { authorization: { rules: [{ from: ["ops/oncall"] }] } },
        },
      ],
    });
    expect(at(find(result, "AuthorizationPolicy", "shop"), "spec", "rules")).toContainEqual({
      from: [{ source: { ipBlocks: ["35.191.0.0/16", "130.211.0.0/22"] } }],
      to: [{ operation: { paths: ["/shop", "/shop/*"] } }],
    });
    const regional = await renderPlatform({
      mesh: { kind: "linkerd" },
      ingress: {
        kind: "gke-gateway",
        gatewayClass: "gke-l7-rilb",
        staticIp: false,
        tls: { mode: "pre-shared", certificates: ["c"] },
      },
      apps: [
        {
          name: "shop",
          image: "shop:1",
          port: 8080,
          expose: { host: "shop.example.com" },
          mesh: { authorization: { rules: [{ from: ["ops/oncall"] }] } },
        },
      ],
    });
    expect(find(regional, "NetworkAuthentication", "shop-gke-gateway").inputs.spec).toEqual({
      networks: [{ cidr: "35.191.0.0/16" }, { cidr: "130.211.0.0/22" }, { cidr: "10.9.0.0/23" }],
    });
  });
});

test("with stripPrefix, the controller forwards paths without the prefix, so every path is let in", async () => {
  const result = await renderPlatform({
    mesh: { kind: "istio" },
    ingress: { kind: "traefik", acme: { email: "a@example.com" } },
    apps: [
      {
        name: "shop",
        image: "shop:1",
        port: 8080,
        expose: { host: "shop.example.com", path: "/shop", stripPrefix: true },
        mesh: { authorization: { rules: [{ from: ["ops/oncall"] }] } },
      },
    ],
  });
  expect(at(find(result, "AuthorizationPolicy", "shop"), "spec", "rules")).toContainEqual({
    from: [{ source: { principals: ["cluster.local/ns/traefik/sa/traefik"] } }],
    to: [{ operation: { paths: ["/*"] } }],
  });
});

describe("bad intents fail before anything is deployed, naming the field", () => {
  const app = (mesh: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    name: "authors",
    namespace: "booksapp",
    image: "authors:1",
    port: 7001,
    mesh,
    ...extra,
  });
  const webapp = { name: "webapp", namespace: "booksapp", image: "webapp:1", port: 7000 };
  const env = (apps: unknown[], mesh: Record<string, unknown> = { kind: "linkerd" }) => input({ mesh, apps });

  test("a route to a missing Service", () => {
    expect(
      problems(env([app({ routes: [{ name: "canary", backends: [{ app: "authors-v3" }] }] }), webapp])),
    ).toEqual([
      {
        path: "platform:apps[0].mesh.routes[0].backends[0].app",
        problem: '"authors-v3" is not a Service in namespace "booksapp" (did you mean "authors"?)',
        allowed: "apps there: authors, webapp",
        fix: 'write "authors"',
      },
    ]);
  });

  test("a route to a port the Service does not serve", () => {
    expect(
      problems(env([app({ routes: [{ name: "r", backends: [{ app: "webapp", port: 8080 }] }] }), webapp])),
    ).toEqual([
      {
        path: "platform:apps[0].mesh.routes[0].backends[0].port",
        problem: '8080 is not a port of the Service "webapp", which serves 7000',
        allowed: "7000",
        fix: "set it to 7000, or remove it (the app's port is the default)",
      },
    ]);
  });

  test("a rule that would shut out the app's own probes", () => {
    const [p] = problems(
      env(
        [
          app(
            {
              authorization: {
                rules: [{ from: ["webapp"], methods: ["GET"], paths: ["/authors/*", "/ping"] }],
              },
            },
            { expose: { host: "authors.example.com", healthCheckPath: "/ping" } },
          ),
          webapp,
        ],
        { kind: "linkerd" },
      ),
    ).filter((x) => x.path.includes("mesh"));
    expect(p).toEqual({
      path: "platform:apps[0].mesh.authorization.rules[0].paths[1]",
      problem:
        "\"/ping\" is the app's probe path: the rule asks that only its callers may GET it, but kubelet's probes come from outside the mesh, with no identity; honoured, it would refuse them and the pod would never become ready, so the platform keeps the path open to every address and cannot restrict it",
      fix: "remove /ping from the rule",
    });
  });

  test("a rule on the metrics path, which Prometheus scrapes from outside the mesh", () => {
    const [p] = problems(
      env([
        app(
          { authorization: { rules: [{ from: ["webapp"], paths: ["/metrics"] }] } },
          { metrics: { path: "/metrics" } },
        ),
        webapp,
      ]),
    );
    expect(p.path).toBe("platform:apps[0].mesh.authorization.rules[0].paths[0]");
    expect(p.problem).toContain("Prometheus's scrapes come from outside the mesh");
  });

  test("a caller that is no app of the namespace", () => {
    expect(problems(env([app({ authorization: { rules: [{ from: ["webap"] }] } }), webapp]))).toEqual([
      {
        path: "platform:apps[0].mesh.authorization.rules[0].from[0]",
        problem: '"webap" is not an app in namespace "booksapp" (did you mean "webapp"?)',
        allowed: "apps there: authors, webapp",
        fix: 'write "webapp"',
      },
    ]);
  });

  test("retries on Istio, a feature it lacks on GKE's standard channel", () => {
    expect(
      problems(env([app({ routes: [{ name: "reads", retry: { on: ["5xx"] } }] })], { kind: "istio" })),
    ).toEqual([
      {
        path: "platform:apps[0].mesh.routes[0].retry",
        problem:
          'is set, but Istio does not support retries on GKE\'s HTTPRoutes: it reads them only from the HTTPRoute "retry" field, which is in the Gateway API experimental channel, and the cluster serves the standard channel',
        fix: "remove it; Istio's default retry policy (two retries of failed connections and 503s) still applies",
      },
    ]);
  });

  test("a per-try timeout on Istio, which would become the whole request's timeout", () => {
    // pilot/pkg/config/kube/gateway/conversion.go: with no route retry, backendRequest replaces the
    // VirtualService timeout, so "2s, 500ms per try" would give up after 500ms.
    expect(
      problems(
        env([app({ routes: [{ name: "reads", timeouts: { request: "2s", backendRequest: "500ms" } }] })], {
          kind: "istio",
        }),
      ),
    ).toEqual([
      {
        path: "platform:apps[0].mesh.routes[0].timeouts.backendRequest",
        problem:
          "is set, but on Istio without a route retry (which Istio reads only from the experimental channel), Istio applies it as the whole request's timeout, replacing timeouts.request",
        fix: "remove timeouts.backendRequest and bound the request with timeouts.request",
      },
    ]);
    // On Linkerd it is the per-try timeout it says.
    expect(() =>
      plan(env([app({ routes: [{ name: "reads", timeouts: { request: "2s", backendRequest: "500ms" } }] })])),
    ).not.toThrow();
  });

  test("routes without a mesh, and in Istio's ambient mode", () => {
    const routes = { routes: [{ name: "r" }] };
    expect(problems(env([app(routes)], { kind: "none" }))[0]).toMatchObject({
      path: "platform:apps[0].mesh",
      problem:
        'is set, but mesh.kind is "none": routes and authorization are enforced by the mesh\'s proxies',
    });
    const [ambient] = problems(env([app(routes)], { kind: "istio", dataplane: "ambient" }));
    expect(ambient.path).toBe("platform:apps[0].mesh");
    expect(ambient.problem).toContain("waypoint proxies, which the platform does not deploy");
  });

  test("a deny-by-default namespace no app lives in", () => {
    expect(problems(env([app({})], { kind: "linkerd", denyByDefault: ["bookapp"] }))).toEqual([
      {
        path: "platform:mesh.denyByDefault[0]",
        problem: '"bookapp" is not a namespace of an app (did you mean "booksapp"?)',
        allowed: "app namespaces: booksapp",
        fix: 'write "booksapp"',
      },
    ]);
  });

  test("two objects of one name: routes, and names the platform's own objects take", () => {
    const clash = problems(
      env([
        app({ routes: [{ name: "v2-canary" }] }),
        { ...webapp, name: "authors-v2", mesh: { routes: [{ name: "canary" }] } },
      ]),
    );
    expect(clash).toEqual([
      {
        path: "platform:apps[1].mesh.routes[0].name",
        problem:
          "makes the HTTPRoute booksapp/authors-v2-canary, which app authors's route v2-canary makes too",
        fix: "rename the route (routes are named <app>-<route>)",
      },
    ]);
    const reserved = problems(
      env([app({}), { ...webapp, name: "deny-by-default" }], { kind: "istio", denyByDefault: ["booksapp"] }),
    );
    expect(reserved.map((p) => p.path)).toEqual(["platform:apps[1].name"]);
  });

  test("paths an HTTPRoute cannot hold, wherever they come from", () => {
    const found = problems(
      env([
        app(
          {
            routes: [{ name: "r", matches: [{ path: "/a//b" }] }],
            authorization: { rules: [{ from: ["webapp"], paths: ["/%2F/*"] }] },
          },
          { expose: { host: "a.example.com", healthCheckPath: "/healthz?full=1" } },
        ),
        webapp,
      ]),
    );
    expect(found.map((p) => [p.path, p.problem])).toEqual([
      [
        "platform:apps[0].mesh.routes[0].matches[0].path",
        '"/a//b" contains "//", which a route path may not',
      ],
      [
        "platform:apps[0].mesh.authorization.rules[0].paths[0]",
        '"/%2F/*" contains "%2F", which a route path may not',
      ],
      [
        "platform:apps[0].expose.healthCheckPath",
        "\"/healthz?full=1\" has characters a route path cannot hold (letters, digits, -._~!$&'()*+,;=:@/ and %XX escapes only; no query); the app's authorization lets this path in through a route",
      ],
    ]);
  });

  test("a fault on a route with 16 backends", () => {
    const backends = Array.from({ length: 16 }, () => ({ app: "authors" }));
    expect(
      problems(env([app({ routes: [{ name: "r", backends, fault: { percent: 5 } }] })]))[0],
    ).toMatchObject({
      path: "platform:apps[0].mesh.routes[0].backends",
      allowed: "at most 15 backends with a fault",
    });
  });

  test("timeouts, weights, names and paths", () => {
    const found = problems(
      env([
        app({
          routes: [
            { name: "r", timeouts: { request: "1s", backendRequest: "2s" } },
            { name: "r", backends: [{ app: "authors", weight: 0 }], fault: { percent: 10 } },
          ],
        }),
        { ...webapp, name: "fault-500" },
      ]),
    );
    expect(found.map((p) => p.path)).toEqual([
      "platform:apps[0].mesh.routes[0].timeouts.backendRequest",
      "platform:apps[0].mesh.routes[1].backends",
      "platform:apps[0].mesh.routes[1].fault",
      "platform:apps[0].mesh.routes[1].name",
    ]);
    const [glob] = problems(env([app({ routes: [{ name: "r", matches: [{ path: "/authors/*.json" }] }] })]));
    expect(glob).toMatchObject({
      path: "platform:apps[0].mesh.routes[0].matches[0].path",
      problem: '"/authors/*.json" is not valid',
    });
    expect(glob.allowed).toContain("a prefix ending in /* such as /authors/*");
  });
});
