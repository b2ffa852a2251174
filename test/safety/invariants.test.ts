import * as k8s from "@pulumi/kubernetes";
import { Platform } from "../../lib/platform";
import type { RenderResult } from "../../lib/render";
import { checkInvariants, invariants, type InvariantName, type ResourceView } from "../../lib/safety";
import { networkPolicyModel } from "../../lib/safety/meshInvariants";
import { viewsOf } from "../../lib/render";
import { planFor } from "../../lib/plan";
import { config, render } from "../helpers";
import { type MeshAdmission } from "../../lib/meshes";
import { istioAdmission, linkerdAdmission } from "../../lib/meshes/models";

/**
 * Each invariant, fed the bad case: a good prod render breaks in exactly one way, and the check
 * names that invariant and the resource at fault. The render suite asserts that no real render
 * breaks any of them.
 */

const shop = {
  name: "shop",
  image: "hello:2",
  port: 8080,
  expose: { host: "shop.example.com" },
};

type Mutable = { -readonly [K in keyof ResourceView]: ResourceView[K] };
type Obj = Record<string, unknown>;

/** A deep copy of the views, with `change` applied to every view `pick` selects. */
function broken(
  views: readonly ResourceView[],
  pick: (v: ResourceView) => boolean,
  change: (v: Mutable & { inputs: Obj }) => void,
): ResourceView[] {
  const copy = JSON.parse(JSON.stringify(views)) as (Mutable & { inputs: Obj })[];
  const picked = copy.filter(pick);
  if (picked.length === 0) throw new Error("the mutation picked nothing");
  picked.forEach(change);
  return copy;
}

const kind = (k: string, name?: string) => (v: ResourceView) =>
  v.inputs.kind === k && (name === undefined || (v.inputs.metadata as Obj | undefined)?.name === name);
const release = (name: string) => (v: ResourceView) =>
  v.type === "kubernetes:helm.sh/v3:Release" && v.inputs.name === name;

/** Invariants some bad case below has broken; the last test checks that every one has been. */
const brokenSoFar = new Set<InvariantName>();

function only(views: readonly ResourceView[]): { invariant: InvariantName; resource: string }[] {
  const found = checkInvariants(views).map(({ invariant, resource }) => ({ invariant, resource }));
  for (const f of found) brokenSoFar.add(f.invariant);
  return found;
}

/** A user's Jobs in a meshed namespace: one with the platform's pod metadata, and the same without it. */
function withJobs(platform: Platform): void {
  for (const [name, meta] of [
    ["migrate", platform.plan.mesh.jobPodMetadata],
    ["plain", undefined],
  ] as const) {
    new k8s.batch.v1.Job(
      name,
      {
        metadata: { name, namespace: "shop" },
        spec: {
          template: {
            metadata: meta,
            spec: { restartPolicy: "Never", containers: [{ name, image: "migrate:1" }] },
          },
        },
      },
      { provider: platform.provider, parent: platform },
    );
  }
}

describe.each(["linkerd", "istio"] as const)("%s, prod, GKE Gateway", (mesh) => {
  let result: RenderResult;
  let views: ResourceView[];
  beforeAll(async () => {
    const c = config({ tier: "prod", mesh: { kind: mesh }, apps: [shop] });
    result = await render(() => {
      const p = new Platform("p", { plan: planFor(c) });
      withJobs(p);
      return p.outputs();
    });
    views = viewsOf(result).filter((v) => (v.inputs.metadata as Obj | undefined)?.name !== "plain");
  });

  test("the render holds every invariant", () => {
    expect(only(views)).toEqual([]);
  });

  test("single-crd-owner: Gateway API CRDs from a chart or by hand while GKE owns them", () => {
    const crd: ResourceView = {
      type: "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition",
      name: "httproutes",
      inputs: {
        kind: "CustomResourceDefinition",
        metadata: { name: "httproutes.gateway.networking.k8s.io" },
        spec: { group: "gateway.networking.k8s.io" },
      },
      protect: false,
    };
    expect(only([...views, crd])).toEqual([
      { invariant: "single-crd-owner", resource: `${crd.type}::httproutes` },
    ]);
    if (mesh !== "linkerd") return;
    const bad = broken(views, release("linkerd-crds"), (v) => {
      (v.inputs.values as Obj).enableHttpRoutes = true;
    });
    expect(only(bad)).toEqual([
      { invariant: "single-crd-owner", resource: expect.stringContaining("linkerd-crds") as string },
    ]);
  });

  test("crd-releases-retained: a CRD release not retained on delete, or cert-manager not keeping its CRDs", () => {
    expect(
      only(
        broken(views, release("cert-manager"), (v) => {
          v.retainOnDelete = false;
        }),
      ),
    ).toEqual([
      { invariant: "crd-releases-retained", resource: expect.stringContaining("cert-manager") as string },
    ]);
    expect(
      only(
        broken(views, release("cert-manager"), (v) => {
          ((v.inputs.values as Obj).crds as Obj).keep = false;
        }),
      ),
    ).toEqual([
      { invariant: "crd-releases-retained", resource: expect.stringContaining("cert-manager") as string },
    ]);
  });

  test("prod-protected: a prod cluster without deletion protection, or without Pulumi protect", () => {
    const cluster = (v: ResourceView) => v.type === "gcp:container/cluster:Cluster";
    for (const change of [
      (v: Mutable & { inputs: Obj }) => void (v.inputs.deletionProtection = false),
      (v: Mutable) => void (v.protect = false),
    ]) {
      expect(only(broken(views, cluster, change))).toEqual([
        { invariant: "prod-protected", resource: expect.stringContaining("Cluster::") as string },
      ]);
    }
  });

  test("no-plain-secrets: a private key or a password in plain inputs", () => {
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIE...\n-----END RSA PRIVATE KEY-----";
    const secret = (data: Obj): ResourceView => ({
      type: "kubernetes:core/v1:Secret",
      name: "leak",
      inputs: { kind: "Secret", metadata: { name: "leak", namespace: "shop" }, stringData: data },
      protect: false,
    });
    for (const data of [{ "tls.key": pem }, { password: "hunter2" }]) {
      expect(only([...views, secret(data)])).toEqual([
        { invariant: "no-plain-secrets", resource: "kubernetes:core/v1:Secret::leak" },
      ]);
    }
    // A Pulumi secret reaches the checks as "[secret]" and passes.
    expect(only([...views, secret({ password: "[secret]" })])).toEqual([]);
  });

  test("namespace-pod-security: a namespace Helm creates, unlabelled", () => {
    expect(
      only(
        broken(views, release("cert-manager"), (v) => {
          v.inputs.createNamespace = true;
        }),
      ),
    ).toEqual([
      { invariant: "namespace-pod-security", resource: expect.stringContaining("cert-manager") as string },
    ]);
  });

  test("single-crd-owner: a second owner of a chart's CRD family", () => {
    const crd: ResourceView = {
      type: "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition",
      name: "certificates",
      inputs: {
        kind: "CustomResourceDefinition",
        metadata: { name: "certificates.cert-manager.io" },
        spec: { group: "cert-manager.io" },
      },
      protect: false,
      retainOnDelete: true,
    };
    expect(only([...views, crd])).toEqual([
      { invariant: "single-crd-owner", resource: `${crd.type}::certificates` },
    ]);
  });

  test("namespace-pod-security: a namespace without an enforced Pod Security level", () => {
    expect(
      only(
        broken(views, kind("Namespace", "shop"), (v) => {
          delete ((v.inputs.metadata as Obj).labels as Obj)["pod-security.kubernetes.io/enforce"];
        }),
      ),
    ).toEqual([{ invariant: "namespace-pod-security", resource: expect.stringContaining("shop") as string }]);
  });

  test("jobs-finish: a Job in a meshed namespace without the platform's pod metadata, once sidecars are not native", () => {
    const all = viewsOf(result);
    // With native sidecars on mesh-wide, even the plain Job finishes.
    expect(only(all)).toEqual([]);
    const notNative = (v: Mutable & { inputs: Obj }) => {
      const values = v.inputs.values as Obj;
      if (mesh === "linkerd") (values.proxy as Obj).nativeSidecar = false;
      else values.env = { ...(values.env as Obj), ENABLE_NATIVE_SIDECARS: "false" };
    };
    let bad = broken(all, release(mesh === "linkerd" ? "linkerd-control-plane" : "istiod"), notNative);
    // Linkerd reads the proxy config annotation from the namespace too.
    if (mesh === "linkerd")
      bad = broken(bad, kind("Namespace", "shop"), (v) => {
        delete ((v.inputs.metadata as Obj).annotations as Obj)[
          "config.linkerd.io/proxy-enable-native-sidecar"
        ];
      });
    // The Job with jobPodMetadata still finishes: it asked for a native sidecar itself.
    expect(only(bad)).toEqual([{ invariant: "jobs-finish", resource: "kubernetes:batch/v1:Job::plain" }]);
  });

  test("consistent-neg: a Service behind GKE Gateway without the NEG annotation for its port", () => {
    expect(
      only(
        broken(views, kind("Service", "shop"), (v) => {
          delete ((v.inputs.metadata as Obj).annotations as Obj)["cloud.google.com/neg"];
        }),
      ),
    ).toEqual([{ invariant: "consistent-neg", resource: expect.stringContaining("shop") as string }]);
  });
});

describe("certificates-renewed", () => {
  let views: ResourceView[];
  beforeAll(async () => {
    const c = config({ tier: "prod", mesh: { kind: "linkerd", dashboard: true }, apps: [shop] });
    views = viewsOf(await render(() => new Platform("p", { plan: planFor(c) }).outputs()));
  });
  const controlPlane = "kubernetes:helm.sh/v3:Release::linkerd-control-plane";

  test("a Linkerd webhook whose certificate the chart generates at template time (the chart's default)", () => {
    expect(only(views)).toEqual([]);
    const bad = broken(views, release("linkerd-control-plane"), (v) => {
      delete (v.inputs.values as Obj).proxyInjector;
    });
    expect(only(bad)).toEqual([{ invariant: "certificates-renewed", resource: controlPlane }]);
    expect(checkInvariants(bad)[0].message).toBe(
      "Secret linkerd/linkerd-proxy-injector-k8s-tls (linkerd-proxy-injector webhook's serving certificate) from release linkerd-control-plane (linkerd-control-plane 2026.8.3) has nothing that renews it (linkerd/linkerd2 edge-26.8.3 charts/linkerd-control-plane/templates/proxy-injector-rbac.yaml, destination-rbac.yaml): when it expires, whatever trusts it fails; issue it with a cert-manager Certificate (for Linkerd's webhooks: <webhook>.externalSecret and injectCaFrom)",
    );
  });

  test("a webhook told to use an external Secret that no Certificate writes", () => {
    const bad = broken(views, kind("Certificate", "tap"), (v) => {
      (v.inputs.spec as Obj).secretName = "elsewhere";
    });
    expect(only(bad)).toEqual([
      { invariant: "certificates-renewed", resource: "kubernetes:helm.sh/v3:Release::linkerd-viz" },
    ]);
    expect(checkInvariants(bad)[0].message).toContain(
      "Secret linkerd-viz/tap-k8s-tls (tap webhook's serving certificate (release linkerd-viz mounts it)) from nothing in this program writes it",
    );
  });

  test("Linkerd's identity issuer from chart values, and a TLS Secret written as data", () => {
    const fromValues = broken(views, release("linkerd-control-plane"), (v) => {
      ((v.inputs.values as Obj).identity as Obj).issuer = { scheme: "linkerd.io/tls" };
    });
    expect(only(fromValues)).toEqual([{ invariant: "certificates-renewed", resource: controlPlane }]);
    const secret: ResourceView = {
      type: "kubernetes:core/v1:Secret",
      name: "legacy-tls",
      inputs: {
        kind: "Secret",
        type: "kubernetes.io/tls",
        metadata: { name: "legacy-tls", namespace: "shop" },
        data: { "tls.crt": "[secret]", "tls.key": "[secret]" },
      },
      protect: false,
    };
    expect(only([...views, secret])).toEqual([
      { invariant: "certificates-renewed", resource: "kubernetes:core/v1:Secret::legacy-tls" },
    ]);
  });
});

describe("GCE Ingress", () => {
  let views: ResourceView[];
  beforeAll(async () => {
    const c = config({
      tier: "prod",
      mesh: { kind: "linkerd" },
      ingress: { kind: "gce-ingress" },
      apps: [shop],
    });
    views = viewsOf(await render(() => new Platform("p", { plan: planFor(c) }).outputs()));
  });

  test("consistent-neg: a Service behind GCE Ingress whose annotation lacks ingress: true (the move back from Gateway)", () => {
    expect(only(views)).toEqual([]);
    const gatewayOnly = broken(views, kind("Service", "shop"), (v) => {
      ((v.inputs.metadata as Obj).annotations as Obj)["cloud.google.com/neg"] =
        '{"exposed_ports":{"8080":{}}}';
    });
    expect(only(gatewayOnly)).toEqual([
      { invariant: "consistent-neg", resource: expect.stringContaining("shop") as string },
    ]);
  });

  test("an Ingress with no class is GKE's too", () => {
    const classless = broken(views, kind("Ingress"), (v) => {
      delete ((v.inputs.metadata as Obj).annotations as Obj)["kubernetes.io/ingress.class"];
    });
    const noNeg = broken(classless, kind("Service", "shop"), (v) => {
      delete ((v.inputs.metadata as Obj).annotations as Obj)["cloud.google.com/neg"];
    });
    expect(only(noNeg).map((x) => x.invariant)).toEqual(["consistent-neg"]);
  });
});

test("jobs-finish: the most specific setting wins", () => {
  const ns = (labels: Obj, annotations: Obj = {}): ResourceView => ({
    type: "kubernetes:core/v1:Namespace",
    name: "batch",
    inputs: {
      kind: "Namespace",
      metadata: {
        name: "batch",
        labels: { "pod-security.kubernetes.io/enforce": "baseline", ...labels },
        annotations,
      },
    },
    protect: false,
  });
  const job = (labels: Obj, annotations: Obj): ResourceView => ({
    type: "kubernetes:batch/v1:Job",
    name: "job",
    inputs: {
      kind: "Job",
      metadata: { name: "job", namespace: "batch" },
      spec: { template: { metadata: { labels, annotations } } },
    },
    protect: false,
  });
  const istiod = (native: string): ResourceView => ({
    type: "kubernetes:helm.sh/v3:Release",
    name: "istiod",
    inputs: { chart: "istiod", values: { env: { ENABLE_NATIVE_SIDECARS: native } } },
    protect: false,
  });
  const meshed = ns({ "istio-injection": "enabled" });
  // Native mesh-wide, but this pod turns it off: it hangs.
  expect(only([istiod("true"), meshed, job({}, { "sidecar.istio.io/nativeSidecar": "false" })])).toEqual([
    { invariant: "jobs-finish", resource: "kubernetes:batch/v1:Job::job" },
  ]);
  // Not meshed by its namespace, but injected by its own label: it hangs.
  expect(only([istiod("auto"), ns({}), job({ "sidecar.istio.io/inject": "true" }, {})])).toEqual([
    { invariant: "jobs-finish", resource: "kubernetes:batch/v1:Job::job" },
  ]);
  // Linkerd's namespace turns native sidecars off over the chart's default: it hangs.
  const linkerdNs = ns(
    {},
    { "linkerd.io/inject": "enabled", "config.linkerd.io/proxy-enable-native-sidecar": "false" },
  );
  expect(only([linkerdNs, job({}, {})])).toEqual([
    { invariant: "jobs-finish", resource: "kubernetes:batch/v1:Job::job" },
  ]);
  // Linkerd's chart default is native sidecars: a plain Job in a meshed namespace finishes.
  expect(only([ns({}, { "linkerd.io/inject": "enabled" }), job({}, {})])).toEqual([]);
  // Two revisions: the istiod of the namespace's revision decides, not another one.
  const revision = (rev: string, native: string): ResourceView => ({
    type: "kubernetes:helm.sh/v3:Release",
    name: `istiod-${rev}`,
    inputs: { chart: "istiod", values: { revision: rev, env: { ENABLE_NATIVE_SIDECARS: native } } },
    protect: false,
  });
  const both = [istiod("true"), revision("canary", "false")];
  expect(only([...both, ns({ "istio.io/rev": "canary" }), job({}, {})])).toEqual([
    { invariant: "jobs-finish", resource: "kubernetes:batch/v1:Job::job" },
  ]);
  expect(only([...both, meshed, job({}, {})])).toEqual([]);
});

test("the admission models the cluster tier runs agree with jobs-finish: the pod's own setting wins", () => {
  const pod = (annotations: Record<string, string>) => ({
    labels: {},
    annotations,
    namespaceLabels: { "istio-injection": "enabled" },
    namespaceAnnotations: { "linkerd.io/inject": "enabled" },
    workload: "job",
    workloadKind: "Job",
  });
  const sidecars = (admission: MeshAdmission, annotations: Record<string, string>, values: Obj) =>
    admission.proxy(pod(annotations), values).containers.map((c) => c.name);
  // istiod 1.30.3 pkg/kube/inject/inject.go: the pod's sidecar.istio.io/nativeSidecar, true or false, over the flag.
  const nativeEverywhere = { env: { ENABLE_NATIVE_SIDECARS: "true" } };
  expect(sidecars(istioAdmission, {}, nativeEverywhere)).toEqual([]);
  expect(sidecars(istioAdmission, { "sidecar.istio.io/nativeSidecar": "false" }, nativeEverywhere)).toEqual([
    "istio-proxy",
  ]);
  expect(sidecars(istioAdmission, { "sidecar.istio.io/nativeSidecar": "true" }, {})).toEqual([]);
  // linkerd-control-plane 2026.8.3 values.yaml: proxy.nativeSidecar is true unless set.
  expect(sidecars(linkerdAdmission, {}, {})).toEqual([]);
  expect(sidecars(linkerdAdmission, {}, { proxy: { nativeSidecar: false } })).toEqual(["linkerd-proxy"]);
});

test("probes-authorized: a Linkerd Server with routes, and the probe path's authorization gone", async () => {
  const c = config({
    tier: "prod",
    mesh: { kind: "linkerd" },
    apps: [
      {
        ...shop,
        expose: { ...shop.expose, healthCheckPath: "/ready" },
        mesh: { authorization: { rules: [{ from: ["ops/oncall"] }] } },
      },
    ],
  });
  const views = viewsOf(await render(() => new Platform("p", { plan: planFor(c) }).outputs()));
  expect(only(views)).toEqual([]);
  // The platform's probe exception: an AuthorizationPolicy of the probe route for the cluster's networks.
  const probeOpen = (v: ResourceView) =>
    kind("AuthorizationPolicy")(v) &&
    String((v.inputs.metadata as Obj).name).includes("-get-ready-") &&
    String((v.inputs.metadata as Obj).name).endsWith("-cluster");
  const bad = broken(views, probeOpen, (v) => {
    ((v.inputs.spec as Obj).targetRef as Obj).name = "elsewhere";
  });
  const found = only(bad);
  // Readiness and startup probes both hit /ready (no liveness probe without a livenessPath).
  expect(found.map((f) => f.invariant)).toEqual(["probes-authorized", "probes-authorized"]);
  expect([...new Set(found.map((f) => f.resource))]).toEqual([
    "kubernetes:apps/v1:Deployment::p-app-shop-shop-deployment-shop-shop",
  ]);
  expect(checkInvariants(bad)[0].message).toContain(
    "readinessProbe GET /ready reaches Server shop/shop, which has routes",
  );
  // Kubelet probes from networks the probe route's authorization does not cover: refused too.
  const widened = broken(
    views,
    (v) => v.type === "kubernetes:helm.sh/v3:Release" && v.inputs.chart === "linkerd-control-plane",
    (v) => {
      ((v.inputs.values as Obj).policyController as Obj).probeNetworks = ["192.168.0.0/16"];
    },
  );
  expect(only(widened).map((f) => f.invariant)).toEqual(["probes-authorized", "probes-authorized"]);
  expect(checkInvariants(widened)[0].message).toContain(
    "no route that matches it is authorized from the networks kubelet probes from (192.168.0.0/16, the control plane's policyController.probeNetworks)",
  );
  // Range maths, not string equality: probe networks inside the authorized network are covered.
  const probeAuthn = views.find(kind("NetworkAuthentication", "shop-cluster"));
  const granted = (((probeAuthn?.inputs.spec as Obj).networks as Obj[])[0].cidr as string).split("/");
  expect(Number(granted[1])).toBeLessThan(24);
  const narrowed = broken(
    views,
    (v) => v.type === "kubernetes:helm.sh/v3:Release" && v.inputs.chart === "linkerd-control-plane",
    (v) => {
      ((v.inputs.values as Obj).policyController as Obj).probeNetworks = [`${granted[0]}/24`];
    },
  );
  expect(only(narrowed)).toEqual([]);
  // Without routes on the Server, the controller's own probe route takes them: nothing to authorize.
  const routeless = views.filter((v) => !kind("HTTPRoute")(v));
  expect(only(routeless)).toEqual([]);
});

test("probes-authorized on Istio: a sidecar whose probes are not rewritten, under STRICT mTLS", async () => {
  // Not exposed: no load balancer's PeerAuthentication opens its port to plain text.
  const c = config({
    tier: "prod",
    mesh: { kind: "istio" },
    apps: [{ name: "shop", image: "hello:2", port: 8080 }],
  });
  const views = viewsOf(await render(() => new Platform("p", { plan: planFor(c) }).outputs()));
  expect(only(views)).toEqual([]);
  const unrewritten = broken(views, kind("Deployment", "shop"), (v) => {
    const meta = (((v.inputs.spec as Obj).template as Obj).metadata ?? {}) as Obj;
    meta.annotations = {
      ...(meta.annotations ?? {}),
      "sidecar.istio.io/rewriteAppHTTPProbers": "false",
    };
    ((v.inputs.spec as Obj).template as Obj).metadata = meta;
  });
  const found = only(unrewritten);
  expect(found.map((f) => f.invariant)).toEqual(["probes-authorized", "probes-authorized"]);
  expect(checkInvariants(unrewritten)[0].message).toContain(
    "reaches the sidecar unrewritten (sidecar.istio.io/rewriteAppHTTPProbers or sidecarInjectorWebhook.rewriteAppHTTPProbe off)",
  );
  // Go's strconv.ParseBool: "TRUE" keeps rewriting on; an unparsable value leaves the control plane's.
  for (const value of ["TRUE", "maybe"]) {
    const kept = broken(views, kind("Deployment", "shop"), (v) => {
      const meta = (((v.inputs.spec as Obj).template as Obj).metadata ?? {}) as Obj;
      meta.annotations = { "sidecar.istio.io/rewriteAppHTTPProbers": value };
      ((v.inputs.spec as Obj).template as Obj).metadata = meta;
    });
    expect(only(kept)).toEqual([]);
  }
});

test.each(["linkerd", "istio"] as const)(
  "network-policy-admits-mesh-grants on %s: the isolated namespace's NetworkPolicy loses a caller the mesh lets in",
  async (mesh) => {
    const c = config({
      tier: "prod",
      mesh: { kind: mesh },
      apps: [{ ...shop, mesh: { authorization: { rules: [{ from: ["shop", "ops/oncall"] }] } } }],
    });
    const views = viewsOf(await render(() => new Platform("p", { plan: planFor(c) }).outputs()));
    expect(only(views)).toEqual([]);
    type Rule = { from: Obj[]; ports?: Obj[] };
    const fromOps = (r: Rule) =>
      r.from.some(
        (p) =>
          (p.namespaceSelector as Obj | undefined)?.matchLabels !== undefined &&
          JSON.stringify(p.namespaceSelector).includes('"ops"'),
      );
    const isolation = kind("NetworkPolicy", "namespace-isolation");
    // The rule that lets ops in is gone: the mesh still lets oncall call shop, the network no longer.
    const dropped = broken(views, isolation, (v) => {
      const spec = v.inputs.spec as { ingress: Rule[] };
      spec.ingress = spec.ingress.filter((r) => !fromOps(r));
    });
    const found = only(dropped);
    // Linkerd: the route of every request and the probe route (which carries every rule covering it) each let ops in.
    expect(found.map((f) => f.invariant)).toEqual(
      Array(mesh === "linkerd" ? 2 : 1).fill("network-policy-admits-mesh-grants"),
    );
    // The object that lets the caller in: Linkerd's Server for shop's port, Istio's policy for shop.
    expect(found[0].resource).toMatch(
      mesh === "linkerd" ? /:Server::.*shop$/ : /:AuthorizationPolicy::.*shop$/,
    );
    expect(checkInvariants(dropped)[0].message).toContain(
      "lets workloads of namespace ops into pods of shop, but no NetworkPolicy there (namespace-isolation) admits them on port",
    );
    // The same rule on the wrong port: Linkerd's meshed calls arrive on the proxy's inbound port, Istio's on the app's.
    const wrongPort = broken(views, isolation, (v) => {
      for (const r of (v.inputs.spec as { ingress: Rule[] }).ingress)
        if (fromOps(r)) r.ports = [{ protocol: "TCP", port: 9999 }];
    });
    expect(only(wrongPort).map((f) => f.invariant)).toEqual(found.map((f) => f.invariant));
    // Google's load balancers, let in by the mesh, dropped by the network.
    const noLoadBalancers = broken(views, isolation, (v) => {
      const spec = v.inputs.spec as { ingress: Rule[] };
      spec.ingress = spec.ingress.filter((r) => !r.from.some((p) => p.ipBlock !== undefined));
    });
    const lb = checkInvariants(noLoadBalancers).map((f) => f.message);
    expect(lb.length).toBeGreaterThan(0);
    expect(
      lb.every((m) => /lets clients from (35\.191\.0\.0\/16|130\.211\.0\.0\/22) into pods of shop/.test(m)),
    ).toBe(true);
  },
);

test("network-policy-admits-mesh-grants judges a port by the number it means: Linkerd's proxy port by name or number", async () => {
  const c = config({
    tier: "prod",
    mesh: { kind: "linkerd" },
    apps: [{ ...shop, mesh: { authorization: { rules: [{ from: ["shop", "ops/oncall"] }] } } }],
  });
  const views = viewsOf(await render(() => new Platform("p", { plan: planFor(c) }).outputs()));
  type Rule = { from: Obj[]; ports?: Obj[] };
  const isolation = kind("NetworkPolicy", "namespace-isolation");
  const opsRule = (r: Rule) => JSON.stringify(r.from).includes('"ops"');
  const opsPorts = (vs: readonly ResourceView[]) =>
    (vs.find(isolation)?.inputs.spec as { ingress: Rule[] }).ingress.filter(opsRule).map((r) => r.ports);
  // The platform writes the proxy's inbound port by number.
  expect(opsPorts(views)).toEqual([
    [
      { protocol: "TCP", port: 4143 },
      { protocol: "TCP", port: 8080 },
    ],
  ]);
  // The model reads either form as 4143: the injected proxy, a native sidecar (an init container),
  // declares linkerd-proxy as 4143 (charts/partials/templates/_proxy.tpl).
  const shopPods = { namespace: "shop", podLabels: { "app.kubernetes.io/name": "shop" } };
  const model = networkPolicyModel(views);
  expect(
    [4143, "linkerd-proxy", 4191, "linkerd-admin"].map((port) => [
      port,
      model(shopPods, { namespace: "ops" }, port),
    ]),
  ).toEqual([
    [4143, true],
    ["linkerd-proxy", true],
    [4191, false],
    ["linkerd-admin", false],
  ]);
  // A policy that names the port admits the grant's 4143 the same way; a name no container declares does not.
  const byName = (name: string) =>
    broken(views, isolation, (v) => {
      for (const r of (v.inputs.spec as { ingress: Rule[] }).ingress)
        if (opsRule(r)) r.ports = [{ protocol: "TCP", port: name }];
    });
  expect(only(byName("linkerd-proxy"))).toEqual([]);
  expect(only(byName("proxy")).map((f) => f.invariant)).toEqual([
    "network-policy-admits-mesh-grants",
    "network-policy-admits-mesh-grants",
  ]);
});

test("network-policy-admits-mesh-grants reads selectors as the API server does: matchExpressions, and namespaces by their labels", async () => {
  const c = config({
    tier: "prod",
    mesh: { kind: "istio" },
    apps: [{ ...shop, mesh: { authorization: { rules: [{ from: ["shop", "ops/oncall"] }] } } }],
  });
  const views = viewsOf(await render(() => new Platform("p", { plan: planFor(c) }).outputs()));
  type Rule = { from: Obj[]; ports?: Obj[] };
  const isolation = kind("NetworkPolicy", "namespace-isolation");
  const opsRule = (r: Rule) => JSON.stringify(r.from).includes('"ops"');
  // ops let in by a label of its Namespace, not by its name: the API server admits it, so no finding.
  const shopNamespace = views.find(kind("Namespace", "shop"));
  if (!shopNamespace) throw new Error("no Namespace shop in the render");
  const ops = JSON.parse(JSON.stringify(shopNamespace)) as Mutable & { inputs: Obj };
  ops.name = "ops";
  const metadata = ops.inputs.metadata as { labels?: Record<string, string> };
  ops.inputs.metadata = {
    ...metadata,
    name: "ops",
    labels: { ...metadata.labels, "example.com/team": "oncall" },
  };
  const byTeamLabel = broken([...views, ops], isolation, (v) => {
    for (const r of (v.inputs.spec as { ingress: Rule[] }).ingress)
      if (opsRule(r))
        r.from = [
          {
            namespaceSelector: {
              matchExpressions: [{ key: "example.com/team", operator: "In", values: ["oncall"] }],
            },
          },
        ];
  });
  expect(only(byTeamLabel)).toEqual([]);
  // The same selector on a label ops does not carry: ops' calls are dropped.
  const wrongLabel = broken(views, isolation, (v) => {
    for (const r of (v.inputs.spec as { ingress: Rule[] }).ingress)
      if (opsRule(r))
        r.from = [
          {
            namespaceSelector: {
              matchExpressions: [{ key: "example.com/team", operator: "In", values: ["oncall"] }],
            },
          },
        ];
  });
  expect(only(wrongLabel).map((f) => f.invariant)).toEqual(["network-policy-admits-mesh-grants"]);
  // A policy whose podSelector's expression leaves shop's pods out does not apply to them: no finding.
  const elsewhere = broken(wrongLabel, isolation, (v) => {
    (v.inputs.spec as Obj).podSelector = {
      matchExpressions: [{ key: "app.kubernetes.io/name", operator: "NotIn", values: ["shop"] }],
    };
  });
  expect(only(elsewhere)).toEqual([]);
});

test("every invariant has a bad case above that breaks it", () => {
  expect([...brokenSoFar].sort()).toEqual(Object.keys(invariants).sort());
});
