import { ConfigError } from "../../lib/config";
import { resolvePlan } from "../../lib/plan";
import { input, plan, problems } from "../helpers";

/** The message a bad environment produces; fails the test if it is accepted. */
function refused(raw: Record<string, unknown>): ConfigError {
  try {
    resolvePlan(raw, "test", "Pulumi.test.yaml");
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error("expected a ConfigError");
}

describe("one ConfigError for every problem, whatever its source", () => {
  test("schema: an unknown mesh kind, with the nearest value", () => {
    expect(problems(input({ mesh: { kind: "linkred" } }))).toEqual([
      expect.objectContaining({ path: "platform:mesh.kind", fix: 'set platform:mesh.kind to "linkerd"' }),
    ]);
  });

  test("rules, the mesh's own rules, CRD ownership, chart overrides and their values keys come out together", () => {
    const err = refused(
      input({
        cluster: { autopilot: { allowNetAdmin: true } },
        mesh: { kind: "linkerd", dataplane: "ambient" },
        crds: { gatewayApi: "pre-installed" },
        overrides: {
          charts: {
            traefik: { values: {} },
            "linkerd-control-plane": { values: { proxy: { logLevle: "debug" } } },
          },
        },
      }),
    );
    const paths = err.problems.map((p) => p.path);
    expect(paths).toEqual([
      // a cross-field rule
      "platform:cluster.autopilot",
      // a key of another mesh
      "platform:mesh.dataplane",
      // CRD ownership
      "platform:crds.gatewayApi",
      // an override naming no release
      "platform:overrides.charts.traefik",
      // an override key the pinned chart lacks
      "platform:overrides.charts.linkerd-control-plane.values.proxy.logLevle",
    ]);
    expect(err.message).toMatch(/^Invalid environment config in Pulumi.test.yaml \(5 problems\):/);
    expect(err.message).toContain(
      'platform:mesh.dataplane: is set, but mesh.kind is "linkerd"; it configures Istio\n    fix: remove platform:mesh.dataplane, or set platform:mesh.kind to "istio"',
    );
    expect(err.message).toContain(
      "would have two owners: GKE (platform:cluster.gatewayApi is standard) and a pre-installed copy",
    );
    expect(err.message).toContain("fix: did you mean proxy.logLevel?");
  });

  test("every problem of a chart override, not only the first", () => {
    const paths = problems(
      input({
        overrides: {
          charts: {
            "cert-manager": { values: { crds: { keep: false, enabled: false }, replicaCuont: 2 } },
          },
        },
      }),
    ).map((p) => p.path);
    expect(paths).toEqual([
      "platform:overrides.charts.cert-manager.values.replicaCuont",
      "platform:overrides.charts.cert-manager.values.crds.keep",
      "platform:overrides.charts.cert-manager.values.crds.enabled",
    ]);
  });
});

describe("each fact is derived once, in the plan", () => {
  test("releases, CRD owners and the mesh for Istio with a canary revision", () => {
    const p = plan({
      tier: "prod",
      mesh: {
        kind: "istio",
        istio: {
          revisions: [
            { name: "stable", version: "1.30.3" },
            { name: "canary", version: "1.30.3" },
          ],
          defaultRevision: "stable",
        },
      },
    });
    expect(p.mesh.kind).toBe("istio");
    expect(Object.keys(p.releases)).toEqual([
      "cert-manager",
      "trust-manager",
      "cert-manager-istio-csr",
      "istio-base",
      "istio-cni",
      "istiod-stable",
      "istiod-canary",
      "kube-prometheus-stack",
    ]);
    expect(p.crdOwners.istio).toEqual({
      kind: "chart",
      chart: "istioBase",
      reason: "platform:mesh.kind is istio",
    });
    // trust-manager distributes the roots istio-csr pins.
    expect(p.certManager).toEqual({ trustManager: true });
    expect(p.crdOwners.trustManager).toEqual({
      kind: "chart",
      chart: "trustManager",
      reason: "distributes Istio's pinned roots",
    });
    expect(p.webhookPorts).toEqual([15017]);
  });

  test("an app's exposure, probe path, guard and grants", () => {
    const p = plan({
      mesh: { kind: "linkerd", denyByDefault: ["shop"] },
      ingress: {
        kind: "gke-gateway",
        gatewayClass: "gke-l7-rilb",
        staticIp: false,
        tls: { mode: "pre-shared", certificates: ["c"] },
      },
      apps: [
        {
          name: "shop",
          image: "hello:2",
          port: 8080,
          metrics: { path: "/metrics" },
          expose: { host: "shop.example.com", healthCheckPath: "/ready" },
        },
      ],
    });
    const [app] = p.apps;
    expect(app.probePath).toBe("/ready");
    expect(app.fromGoogleLoadBalancer).toBe(true);
    expect(app.guarded).toBe(true);
    expect(app.exposure).toMatchObject({
      name: "shop",
      namespace: "shop",
      host: "shop.example.com",
      via: ["gke-gateway"],
    });
    // The regional class proxies from the proxy-only subnet, so its range is let in with Google's.
    expect(app.grants[app.grants.length - 1]).toEqual({
      callers: [
        { kind: "network", name: "gke-gateway", cidrs: ["35.191.0.0/16", "130.211.0.0/22", "10.9.0.0/23"] },
      ],
      methods: undefined,
      paths: ["/*"],
    });
    expect(p.proxyOnlySubnet).toBe(true);
    expect(p.namespaces).toEqual([
      {
        name: "shop",
        labels: { "gke-mesh-platform/gateway-access": "true" },
        annotations: {
          "linkerd.io/inject": "enabled",
          "config.linkerd.io/proxy-await": "enabled",
          "config.linkerd.io/proxy-enable-native-sidecar": "true",
          "config.linkerd.io/default-inbound-policy": "deny",
        },
      },
    ]);
  });
});
