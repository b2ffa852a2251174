import * as pulumi from "@pulumi/pulumi";
import * as k8s from "@pulumi/kubernetes";
import { ConfigError } from "../../lib/config";
import { App, Platform } from "../../lib/platform";
import { placeholder, renderProgram, type RenderResult } from "../../lib/render";
import { RELEASE, find, plan, release, render, renderPlatform, values, waitsFor } from "../helpers";

const shop = {
  name: "shop",
  image: "hello:2",
  port: 8080,
  metrics: { path: "/metrics" },
  expose: { host: "shop.example.com", healthCheckPath: "/ready" },
};

describe("overrides without forking", () => {
  test("values are deep-merged over the platform's", async () => {
    const result = await renderPlatform({
      overrides: {
        charts: {
          "linkerd-control-plane": { values: { proxy: { logLevel: "debug" }, controllerLogLevel: "debug" } },
        },
      },
    });
    expect(values(release(result, "linkerd-control-plane"))).toMatchObject({
      proxy: { nativeSidecar: true, logLevel: "debug" },
      controllerLogLevel: "debug",
      identity: { externalCA: true },
    });
  });

  test("an override for a release the environment does not install fails, listing the ones it does", () => {
    expect(
      () => new Platform("p", { plan: plan({ overrides: { charts: { traefik: { values: {} } } } }) }),
    ).toThrow(ConfigError);
    try {
      new Platform("p", { plan: plan({ overrides: { charts: { traefik: { values: {} } } } }) });
    } catch (err) {
      expect((err as ConfigError).problems[0]).toMatchObject({
        path: "platform:overrides.charts.traefik",
        allowed:
          "cert-manager, trust-manager, linkerd-crds, linkerd-cni, linkerd-control-plane, kube-prometheus-stack",
      });
    }
  });

  test("a CRD flag that ownership decides cannot be overridden silently", () => {
    const attempt = () =>
      new Platform("p", {
        plan: plan({ overrides: { charts: { "cert-manager": { values: { crds: { keep: false } } } } } }),
      });
    expect(attempt).toThrow(
      /platform:overrides.charts.cert-manager.values.crds.keep: is decided by CRD ownership[\s\S]*set platform:overrides.charts.cert-manager.overrideCrdFlags to true/,
    );
  });

  test("an istiod value the platform's probes and scrapes rest on cannot be turned off", async () => {
    const istio = (istiod: Record<string, unknown>) =>
      plan({ mesh: { kind: "istio" }, overrides: { charts: { istiod: { values: istiod } } } });
    expect(
      () =>
        new Platform("p", {
          plan: istio({
            meshConfig: { enablePrometheusMerge: false, defaultConfig: { statusPort: 15030 } },
            sidecarInjectorWebhook: { rewriteAppHTTPProbe: false },
            global: { proxy: { statusPort: 15030 } },
          }),
        }),
    ).toThrow(
      new ConfigError([
        {
          path: "platform:overrides.charts.istiod.values.meshConfig.enablePrometheusMerge",
          problem:
            "is false, but the platform's proxy monitors and meshed apps' scrapes read the metrics pilot-agent merges on port 15020",
          allowed: "true",
          fix: "remove platform:overrides.charts.istiod.values.meshConfig.enablePrometheusMerge",
        },
        {
          path: "platform:overrides.charts.istiod.values.meshConfig.defaultConfig.statusPort",
          problem:
            "is 15030, but pilot-agent serves merged metrics on the mesh's status port and the injector points prometheus.io/port at it (pkg/kube/inject/webhook.go applyPrometheusMerge); the platform's proxy monitors scrape 15020",
          allowed: "15020",
          fix: "remove platform:overrides.charts.istiod.values.meshConfig.defaultConfig.statusPort",
        },
        {
          path: "platform:overrides.charts.istiod.values.global.proxy.statusPort",
          problem:
            "is 15030, but the injector leaves this port out of inbound capture, so Prometheus's plain scrape of 15020 passes STRICT mTLS (files/injection-template.yaml excludeInboundPorts)",
          allowed: "15020",
          fix: "remove platform:overrides.charts.istiod.values.global.proxy.statusPort",
        },
        {
          path: "platform:overrides.charts.istiod.values.sidecarInjectorWebhook.rewriteAppHTTPProbe",
          problem:
            "is false, but kubelet's HTTP probes reach apps through pilot-agent, past the sidecar's mTLS and the platform's authorization policies (pkg/kube/inject/app_probe.go)",
          allowed: "true",
          fix: "remove platform:overrides.charts.istiod.values.sidecarInjectorWebhook.rewriteAppHTTPProbe",
        },
      ]).message,
    );
    // Set to what the platform relies on, or without sidecars to rewrite probes for, it is the user's.
    await expect(
      renderPlatform({
        mesh: { kind: "istio" },
        overrides: { charts: { istiod: { values: { meshConfig: { enablePrometheusMerge: true } } } } },
      }),
    ).resolves.toBeDefined();
    await expect(
      renderPlatform({
        mesh: { kind: "istio", dataplane: "ambient" },
        overrides: {
          charts: { istiod: { values: { sidecarInjectorWebhook: { rewriteAppHTTPProbe: false } } } },
        },
      }),
    ).resolves.toBeDefined();
  });

  test("with overrideCrdFlags the user's value wins, but a second owner still fails", async () => {
    const result = await renderPlatform({
      overrides: {
        charts: { "cert-manager": { values: { crds: { keep: false } }, overrideCrdFlags: true } },
      },
    });
    expect(values(release(result, "cert-manager"))).toMatchObject({ crds: { enabled: true, keep: false } });
    expect(
      () =>
        new Platform("p", {
          plan: plan({
            overrides: {
              charts: { "linkerd-crds": { values: { enableHttpRoutes: true }, overrideCrdFlags: true } },
            },
          }),
        }),
    ).toThrow(/Gateway API CRDs .* would have two owners: GKE .* and Helm release linkerd-crds/);
  });

  test("nothing is registered when an override is refused", async () => {
    let registered = -1;
    await render(() => {
      try {
        const refused = plan({
          overrides: {
            charts: { "linkerd-crds": { values: { enableHttpRoutes: true }, overrideCrdFlags: true } },
          },
        });
        new Platform("p", { plan: refused });
      } catch {
        // counted below
      }
      return undefined;
    }).then((r) => {
      registered = r.resources.filter((x) => x.custom).length;
    });
    expect(registered).toBe(0);
  });

  test("Pulumi transformations passed to the Platform apply to every resource under it", async () => {
    const protectReleases: pulumi.ResourceTransformation = ({ type, props, opts }) =>
      type === RELEASE
        ? { props, opts: pulumi.mergeOptions(opts, { ignoreChanges: ["values.podAnnotations"] }) }
        : undefined;
    const result = await renderPlatform({}, { transformations: [protectReleases] });
    expect(release(result, "linkerd-control-plane").options.ignoreChanges).toEqual(["values.podAnnotations"]);
  });
});

test("an app's objects keep their URNs from before the App component: each is aliased to its former parent", async () => {
  const aliases = new Map<string, Promise<unknown[]>>();
  const record: pulumi.ResourceTransformation = ({ type, name, opts }) => {
    if (type.startsWith("kubernetes:") && name.startsWith("platform-app-shop-shop-")) {
      aliases.set(
        `${type}::${name}`,
        Promise.all(
          (opts.aliases ?? []).map(
            (a) => new Promise((resolve) => pulumi.output(a as pulumi.Input<object>).apply(resolve)),
          ),
        ),
      );
    }
    return undefined;
  };
  await renderPlatform({ apps: [shop] }, { transformations: [record] });
  const deployment = "kubernetes:apps/v1:Deployment::platform-app-shop-shop-deployment-shop-shop";
  expect([...aliases.keys()]).toContain(deployment);
  // The Platform is directly under the stack, so each object's old URN is known as it registers: the
  // Platform's URN as the engine makes it (the stack's type is no part of it), then the object's type and name.
  // (The @pulumi/kubernetes classes add their own aliases, for the kind's older API versions.)
  const own = async (key: string) => ((await aliases.get(key)) ?? []).filter((a) => typeof a === "string");
  expect(await own(deployment)).toEqual([
    "urn:pulumi:test::test::gke-mesh-platform:platform:Platform$kubernetes:apps/v1:Deployment::platform-app-shop-shop-deployment-shop-shop",
  ]);
  // Every kind of the app's objects (typed classes and custom resources) is aliased with its registered type.
  for (const key of aliases.keys()) {
    const [type, name] = key.split("::");
    expect(await own(key)).toEqual([
      `urn:pulumi:test::test::gke-mesh-platform:platform:Platform$${type}::${name}`,
    ]);
  }
  // As the SDK makes it from the Platform's URN, the object's type and name.
  const sdkMade = await new Promise((resolve) =>
    pulumi
      .createUrn(
        "platform-app-shop-shop-deployment-shop-shop",
        "kubernetes:apps/v1:Deployment",
        "urn:pulumi:test::test::gke-mesh-platform:platform:Platform::platform",
        "test",
        "test",
      )
      .apply(resolve),
  );
  expect((await own(deployment))[0]).toBe(sdkMade);
});

test("an App under a parent whose URN is known only at deploy is aliased to that parent's URN", async () => {
  const aliases: unknown[][] = [];
  const record: pulumi.ResourceTransformation = ({ type, opts }) => {
    if (type === "kubernetes:apps/v1:Deployment") aliases.push([...(opts.aliases ?? [])]);
    return undefined;
  };
  await renderProgram({
    project: "test",
    stack: "test",
    config: {},
    program: () => {
      pulumi.runtime.registerStackTransformation(record);
      const owner = new pulumi.ComponentResource("acme:index:Owner", "owner");
      const parent = new pulumi.ComponentResource("acme:index:Group", "group", {}, { parent: owner });
      new App(
        "shop",
        {
          name: "shop",
          namespace: "shop",
          image: "shop:1",
          port: 8080,
          provider: new k8s.Provider("k8s", {}),
        },
        { parent },
      );
    },
  });
  expect(aliases).toHaveLength(1);
  const [alias] = aliases[0].filter((a) => typeof a === "object" && a !== null && "parent" in a) as {
    parent: pulumi.Output<string>;
  }[];
  expect(pulumi.Output.isInstance(alias.parent)).toBe(true);
  expect(await new Promise((resolve) => alias.parent.apply(resolve))).toBe(
    "urn:pulumi:test::test::acme:index:Owner$acme:index:Group::group",
  );
});

describe("the whole environment", () => {
  let result: RenderResult;
  beforeAll(async () => {
    result = await renderPlatform({
      mesh: { kind: "linkerd", dashboard: true },
      monitoring: { backend: "prometheus", meshDashboards: true },
      apps: [shop],
    });
  });

  test("the planned releases are exactly the ones rendered", async () => {
    for (const overrides of [
      {},
      {
        mesh: { kind: "linkerd", cni: true, dashboard: true },
        ingress: { kind: "traefik", acme: { email: "a@example.com" } },
        apps: [shop],
      },
      {
        mesh: { kind: "none" },
        monitoring: { backend: "managed-prometheus" },
        ingress: { kind: "ingress-nginx", acme: { email: "a@example.com" } },
        apps: [shop],
      },
    ]) {
      const r = await renderPlatform(overrides);
      const rendered = r.resources
        .filter((x) => x.type === RELEASE)
        .map((x) => String(x.inputs.name))
        .sort();
      expect(rendered).toEqual(Object.keys(plan(overrides).releases).sort());
    }
  });

  test("outputs a user needs: kubeconfig (secret), the Gateway address, Grafana and the mesh dashboard", () => {
    expect(result.outputs).toMatchObject({
      kubeconfig: "[secret]",
      gatewayAddress: placeholder("platform-edge-gateway-ip IP address"),
      grafanaUrl: "http://kube-prometheus-stack-grafana.monitoring.svc.cluster.local",
      dashboardUrl: "http://web.linkerd-viz.svc.cluster.local:8084",
    });
  });

  test("an in-cluster ingress exports its load balancer's address", async () => {
    const r = await renderPlatform({
      ingress: { kind: "traefik", acme: { email: "a@example.com" } },
      apps: [shop],
    });
    expect(r.outputs.ingressAddress).toBe(placeholder("traefik/traefik load balancer IP"));
    // A read, not something the program creates.
    expect(r.resources.find((x) => x.type === "kubernetes:core/v1:Service" && x.read)).toBeDefined();
  });

  test("the app: a Deployment waiting only for its namespace; its monitor only for the CRD owner", () => {
    const deployment = find(result, "Deployment", "shop");
    const namespace = find(result, "Namespace", "shop");
    expect(deployment.dependsOn).toEqual([namespace.key]);
    const monitor = find(result, "PodMonitor", "shop");
    expect(monitor.dependsOn).toEqual(expect.arrayContaining([release(result, "kube-prometheus-stack").key]));
    expect((monitor.inputs.metadata as { labels: Record<string, string> }).labels).toMatchObject({
      release: "kube-prometheus-stack",
    });
  });

  test("the app's route never waits for linkerd-viz or the dashboards", () => {
    const route = find(result, "HTTPRoute", "shop");
    expect([...waitsFor(result, route)].filter((k) => k.includes("linkerd-viz"))).toEqual([]);
  });

  test("the mesh's Grafana dashboards are loaded into the platform's Grafana", () => {
    const grafana = values(release(result, "kube-prometheus-stack")).grafana as {
      dashboards: { mesh: Record<string, unknown> };
    };
    expect(grafana.dashboards.mesh["linkerd-top-line"]).toEqual({
      gnetId: 15474,
      revision: 4,
      datasource: "Prometheus",
    });
  });
});
