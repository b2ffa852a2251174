import {
  checkClusterInvariants,
  joinObjectSet,
  selects,
  type ClusterFinding,
  type ClusterInvariant,
  type KubeObject,
  type TemplatedRelease,
} from "../../lib/cluster";
import type { Tier } from "../../lib/config";

/**
 * Each cluster invariant on small object sets made by hand: the bad case it exists for, and the good
 * case beside it. The objects mirror what the pinned charts render (the comments name the template).
 */

type Json = Record<string, unknown>;

function object(
  apiVersion: string,
  kind: string,
  name: string,
  namespace?: string,
  rest: Json = {},
): KubeObject {
  const { metadata, ...body } = rest as { metadata?: Json };
  return { apiVersion, kind, metadata: { name, ...(namespace ? { namespace } : {}), ...metadata }, ...body };
}

const namespace = (
  name: string,
  labels: Record<string, string> = {},
  annotations: Record<string, string> = {},
) => object("v1", "Namespace", name, undefined, { metadata: { labels, annotations } });

interface ContainerSpec {
  name: string;
  ports?: { name?: string; containerPort: number }[];
  resources?: Json;
}

function deployment(
  name: string,
  ns: string,
  opts: {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    replicas?: number;
    containers?: ContainerSpec[];
    serviceAccountName?: string;
    volumes?: Json[];
  } = {},
): KubeObject {
  const labels = opts.labels ?? { app: name };
  return object("apps/v1", "Deployment", name, ns, {
    spec: {
      replicas: opts.replicas ?? 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels, annotations: opts.annotations ?? {} },
        spec: {
          ...(opts.serviceAccountName ? { serviceAccountName: opts.serviceAccountName } : {}),
          containers: opts.containers ?? [{ name, ports: [{ name: "http", containerPort: 8080 }] }],
          volumes: opts.volumes ?? [],
        },
      },
    },
  });
}

const sized = { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "256Mi" } };

function release(
  name: string,
  chart: string,
  ns: string,
  objects: KubeObject[],
  values: Json = {},
): TemplatedRelease {
  return { name, chart, namespace: ns, version: "1.0.0", values, objects };
}

// linkerd-control-plane templates/proxy-injector-rbac.yaml at edge-26.8.3: the injector's webhook, called
// outside namespaces that disable it, its CA injected by cert-manager.
const linkerdInjector = object(
  "admissionregistration.k8s.io/v1",
  "MutatingWebhookConfiguration",
  "linkerd-proxy-injector-webhook-config",
  undefined,
  {
    metadata: { annotations: { "cert-manager.io/inject-ca-from": "linkerd/linkerd-proxy-injector" } },
    webhooks: [
      {
        name: "linkerd-proxy-injector.linkerd.io",
        namespaceSelector: {
          matchExpressions: [
            { key: "config.linkerd.io/admission-webhooks", operator: "NotIn", values: ["disabled"] },
          ],
        },
      },
    ],
  },
);

// istiod chart templates/mutatingwebhook.yaml at 1.30.3: the unrevisioned injector selects istio-injection=enabled.
const istioInjector = object(
  "admissionregistration.k8s.io/v1",
  "MutatingWebhookConfiguration",
  "istio-sidecar-injector",
  undefined,
  {
    webhooks: [
      {
        name: "namespace.sidecar-injector.istio.io",
        namespaceSelector: { matchLabels: { "istio-injection": "enabled" } },
      },
    ],
  },
);

function check(
  platform: KubeObject[],
  releases: TemplatedRelease[] = [],
  tier: Tier = "dev",
): ClusterFinding[] {
  return checkClusterInvariants(
    joinObjectSet({ label: "test", tier, objects: platform }, releases, "1.36.0", []),
  );
}

const of = (findings: ClusterFinding[], invariant: ClusterInvariant) =>
  findings.filter((f) => f.invariant === invariant).map((f) => f.object);

describe("releases-template", () => {
  test("a chart that refuses the values is a finding naming the release and helm's message", () => {
    const failed: TemplatedRelease = {
      ...release("linkerd-control-plane", "linkerd-control-plane", "linkerd", []),
      error: "execution error: proxy.tracing.collector.meshIdentity.serviceAccountName must be set",
    };
    const findings = check([], [failed]);
    expect(findings.map((f) => [f.invariant, f.object])).toEqual([
      ["releases-template", "release linkerd/linkerd-control-plane"],
    ]);
    expect(findings[0].message).toContain("meshIdentity.serviceAccountName must be set");
  });
});

describe("proxies-injected", () => {
  // istiod chart templates/mutatingwebhook.yaml at 1.30.3: a revisioned istiod renders only the
  // rev.* webhooks, which select istio.io/rev on the namespace or the pod.
  const revisioned = object(
    "admissionregistration.k8s.io/v1",
    "MutatingWebhookConfiguration",
    "istio-sidecar-injector-stable",
    undefined,
    {
      webhooks: [
        {
          name: "rev.namespace.sidecar-injector.istio.io",
          namespaceSelector: {
            matchExpressions: [
              { key: "istio.io/rev", operator: "In", values: ["stable"] },
              { key: "istio-injection", operator: "DoesNotExist" },
            ],
          },
          objectSelector: {
            matchExpressions: [{ key: "sidecar.istio.io/inject", operator: "NotIn", values: ["false"] }],
          },
        },
        {
          name: "rev.object.sidecar-injector.istio.io",
          namespaceSelector: {
            matchExpressions: [
              { key: "istio.io/rev", operator: "DoesNotExist" },
              { key: "istio-injection", operator: "DoesNotExist" },
            ],
          },
          objectSelector: {
            matchExpressions: [
              { key: "sidecar.istio.io/inject", operator: "NotIn", values: ["false"] },
              { key: "istio.io/rev", operator: "In", values: ["stable"] },
            ],
          },
        },
      ],
    },
  );
  const istiod = release("istiod-stable", "istiod", "istio-system", [revisioned]);

  test("an ingress controller that asks with sidecar.istio.io/inject under a revisioned istiod is not injected", () => {
    const traefik = deployment("traefik", "traefik", {
      labels: { app: "traefik", "sidecar.istio.io/inject": "true" },
    });
    const findings = check([namespace("traefik"), traefik], [istiod]).filter(
      (f) => f.invariant === "proxies-injected",
    );
    // Istio's admission says how its injectors tell pods apart.
    expect(findings).toEqual([
      {
        invariant: "proxies-injected",
        object: "Deployment traefik/traefik",
        message:
          "asks for the istio proxy, but no installed injection webhook selects it, so it runs outside the mesh: label it for the injector that is installed (a revisioned istiod selects istio.io/rev)",
      },
    ]);
  });

  test("asking the revision (istio.io/rev) is injected", () => {
    const traefik = deployment("traefik", "traefik", {
      labels: { app: "traefik", "istio.io/rev": "stable" },
    });
    expect(of(check([namespace("traefik"), traefik], [istiod]), "proxies-injected")).toEqual([]);
  });

  test("a namespace enrolled with istio-injection: enabled under a revisioned istiod is a finding", () => {
    const ns = namespace("shop", { "istio-injection": "enabled" });
    expect(of(check([ns], [istiod]), "proxies-injected")).toEqual(["Namespace shop"]);
  });

  test("Linkerd: a namespace annotated for injection, and the webhook that skips disabled namespaces", () => {
    const cp = release("linkerd-control-plane", "linkerd-control-plane", "linkerd", [linkerdInjector]);
    const meshed = namespace("shop", {}, { "linkerd.io/inject": "enabled" });
    expect(of(check([meshed, deployment("shop", "shop")], [cp]), "proxies-injected")).toEqual([]);
    const excluded = namespace(
      "shop",
      { "config.linkerd.io/admission-webhooks": "disabled" },
      { "linkerd.io/inject": "enabled" },
    );
    const findings = check([excluded, deployment("shop", "shop")], [cp]).filter(
      (f) => f.invariant === "proxies-injected",
    );
    // Linkerd has one injector, so its message gives no hint of another.
    expect(findings.map((f) => [f.object, f.message])).toEqual([
      [
        "Deployment shop/shop",
        "asks for the linkerd proxy, but no installed injection webhook selects it, so it runs outside the mesh: label it for the injector that is installed",
      ],
      [
        "Namespace shop",
        "asks for the linkerd proxy for its pods, but no installed injection webhook selects it: label it for the installed injector",
      ],
    ]);
  });
});

describe("monitors-select", () => {
  test("a PodMonitor whose selector or port matches no pod is a finding; a matching one is not", () => {
    const app = deployment("shop", "shop", {
      containers: [{ name: "shop", ports: [{ name: "metrics", containerPort: 9090 }] }],
    });
    const monitor = (port: string) =>
      object("monitoring.coreos.com/v1", "PodMonitor", `shop-${port}`, "shop", {
        spec: { selector: { matchLabels: { app: "shop" } }, podMetricsEndpoints: [{ port }] },
      });
    expect(
      of(check([namespace("shop"), app, monitor("metrics"), monitor("admin")]), "monitors-select"),
    ).toEqual(["PodMonitor shop/shop-admin"]);
  });

  test("Managed Prometheus reaches a numeric port the proxy serves undeclared; the Prometheus Operator does not", () => {
    const istiod = release("istiod", "istiod", "istio-system", [istioInjector], {
      env: { ENABLE_NATIVE_SIDECARS: "true" },
    });
    const ns = namespace("shop", { "istio-injection": "enabled" });
    const app = deployment("shop", "shop", { containers: [{ name: "shop", resources: sized }] });
    const gmp = object("monitoring.googleapis.com/v1", "ClusterPodMonitoring", "istio-proxies", undefined, {
      spec: {
        selector: { matchExpressions: [{ key: "security.istio.io/tlsMode", operator: "Exists" }] },
        endpoints: [{ port: 15020 }],
      },
    });
    expect(of(check([ns, app, gmp], [istiod]), "monitors-select")).toEqual([]);
    const operator = object("monitoring.coreos.com/v1", "PodMonitor", "istio-proxies", "shop", {
      spec: {
        selector: { matchExpressions: [{ key: "security.istio.io/tlsMode", operator: "Exists" }] },
        podMetricsEndpoints: [{ portNumber: 15020 }],
      },
    });
    expect(of(check([ns, app, operator], [istiod]), "monitors-select")).toEqual([
      "PodMonitor shop/istio-proxies",
      // and so the proxy itself goes unscraped
      "Deployment shop/shop",
    ]);
  });

  test("where monitoring is on, a mesh control plane no monitor scrapes is a finding", () => {
    const identity = deployment("linkerd-identity", "linkerd", {
      labels: { "linkerd.io/control-plane-component": "identity" },
      containers: [{ name: "identity", ports: [{ name: "admin-http", containerPort: 9990 }] }],
    });
    const cp = release("linkerd-control-plane", "linkerd-control-plane", "linkerd", [identity]);
    const other = object("monitoring.coreos.com/v1", "PodMonitor", "apps", "shop", {
      spec: { selector: { matchLabels: { app: "shop" } }, podMetricsEndpoints: [{ port: "http" }] },
    });
    const app = deployment("shop", "shop");
    expect(of(check([namespace("shop"), app, other], [cp]), "monitors-select")).toEqual([
      "Deployment linkerd/linkerd-identity",
    ]);
    const controlPlane = object("monitoring.coreos.com/v1", "PodMonitor", "linkerd-controller", "linkerd", {
      spec: {
        selector: { matchExpressions: [{ key: "linkerd.io/control-plane-component", operator: "Exists" }] },
        podMetricsEndpoints: [{ port: "admin-http" }],
      },
    });
    expect(of(check([namespace("shop"), app, other, controlPlane], [cp]), "monitors-select")).toEqual([]);
  });

  test("a control plane's own metrics are not its chart-rendered proxy's", () => {
    // linkerd-control-plane templates/identity.yaml: the controller beside the proxy the chart renders.
    const identity = deployment("linkerd-identity", "linkerd", {
      labels: { "linkerd.io/control-plane-component": "identity" },
      containers: [
        { name: "identity", ports: [{ name: "ident-admin", containerPort: 9990 }] },
        { name: "linkerd-proxy", ports: [{ name: "linkerd-admin", containerPort: 4191 }] },
      ],
    });
    const cp = release("linkerd-control-plane", "linkerd-control-plane", "linkerd", [identity]);
    const monitor = (port: string) =>
      object("monitoring.coreos.com/v1", "PodMonitor", `linkerd-${port}`, "linkerd", {
        spec: {
          selector: { matchExpressions: [{ key: "linkerd.io/control-plane-component", operator: "Exists" }] },
          podMetricsEndpoints: [{ port }],
        },
      });
    expect(of(check([monitor("linkerd-admin")], [cp]), "monitors-select")).toEqual([
      "Deployment linkerd/linkerd-identity",
    ]);
    expect(of(check([monitor("linkerd-admin"), monitor("ident-admin")], [cp]), "monitors-select")).toEqual(
      [],
    );
  });
});

describe("monitors-select: what the relabelings keep", () => {
  const cp = release("linkerd-control-plane", "linkerd-control-plane", "linkerd", [linkerdInjector]);
  const meshed = namespace("shop", {}, { "linkerd.io/inject": "enabled" });
  const app = deployment("shop", "shop", {
    containers: [{ name: "shop", ports: [{ name: "http", containerPort: 8080 }], resources: sized }],
  });
  // The chart's proxy PodMonitor selects every pod, and its keep relabeling narrows it to the proxies of
  // one control plane (linkerd-control-plane templates/podmonitor.yaml).
  const proxies = (controlPlane: string) =>
    object("monitoring.coreos.com/v1", "PodMonitor", "linkerd-proxy", "linkerd", {
      spec: {
        namespaceSelector: { any: true },
        selector: { matchLabels: {} },
        podMetricsEndpoints: [
          {
            relabelings: [
              {
                action: "keep",
                sourceLabels: [
                  "__meta_kubernetes_pod_container_name",
                  "__meta_kubernetes_pod_container_port_name",
                  "__meta_kubernetes_pod_label_linkerd_io_control_plane_ns",
                ],
                regex: `^linkerd-proxy;linkerd-admin;${controlPlane}$`,
              },
            ],
          },
        ],
      },
    });

  test("a monitor that selects every pod but keeps none leaves the proxies unscraped", () => {
    expect(of(check([meshed, app, proxies("linkerd")], [cp]), "monitors-select")).toEqual([]);
    // Over every namespace, it is the catch-all for workloads added later: judged by the proxies it misses.
    expect(of(check([meshed, app, proxies("linkerd-other")], [cp]), "monitors-select")).toEqual([
      "Deployment shop/shop",
    ]);
    // Any other monitor that keeps nothing is a finding itself, over one namespace or every one.
    const inShop = {
      ...proxies("linkerd-other"),
      spec: { ...(proxies("linkerd-other").spec as Json), namespaceSelector: { matchNames: ["shop"] } },
    };
    expect(of(check([meshed, app, inShop], [cp]), "monitors-select")).toEqual([
      "PodMonitor linkerd/linkerd-proxy",
      "Deployment shop/shop",
    ]);
    const renamed = {
      ...proxies("linkerd-other"),
      metadata: { name: "proxies", namespace: "linkerd" },
    };
    expect(of(check([meshed, app, renamed], [cp]), "monitors-select")).toEqual([
      "PodMonitor linkerd/proxies",
      "Deployment shop/shop",
    ]);
  });

  test("a monitor of the app's port does not scrape its proxy", () => {
    const appOnly = object("monitoring.coreos.com/v1", "PodMonitor", "shop", "shop", {
      spec: { selector: { matchLabels: { app: "shop" } }, podMetricsEndpoints: [{ port: "http" }] },
    });
    const findings = check([meshed, app, appOnly], [cp]).filter((f) => f.invariant === "monitors-select");
    expect(findings).toEqual([
      expect.objectContaining({
        object: "Deployment shop/shop",
        message: expect.stringContaining("no monitor scrapes its linkerd proxy") as string,
      }),
    ]);
  });

  test("a ServiceMonitor reaches the pods behind its Service's port, by the port's targetPort", () => {
    const service = (targetPort: string | number) =>
      object("v1", "Service", "shop", "shop", {
        metadata: { labels: { app: "shop" } },
        spec: { selector: { app: "shop" }, ports: [{ name: "web", port: 80, targetPort }] },
      });
    const monitor = object("monitoring.coreos.com/v1", "ServiceMonitor", "shop", "shop", {
      spec: { selector: { matchLabels: { app: "shop" } }, endpoints: [{ port: "web" }] },
    });
    const plain = namespace("shop");
    expect(of(check([plain, app, service("http"), monitor]), "monitors-select")).toEqual([]);
    expect(of(check([plain, app, service("admin")]), "monitors-select")).toEqual([]);
    expect(of(check([plain, app, service("admin"), monitor]), "monitors-select")).toEqual([
      "ServiceMonitor shop/shop",
    ]);
  });
});

describe("certificate-facts-hold", () => {
  const facts = (findings: ClusterFinding[]) =>
    findings
      .filter((f) => f.invariant === "certificate-facts-hold")
      .map((f) => f.message.split(": correct")[0]);
  // trust-manager v0.24.0 deploy/charts/trust-manager/templates/certificate.yaml: a self-signed Issuer
  // and the webhook's Certificate from it, for cert-manager's default lifetime.
  const trustManagerObjects = () => [
    object("cert-manager.io/v1", "Issuer", "trust-manager", "cert-manager", { spec: { selfSigned: {} } }),
    object("cert-manager.io/v1", "Certificate", "trust-manager", "cert-manager", {
      spec: { secretName: "trust-manager-tls", issuerRef: { name: "trust-manager", kind: "Issuer" } },
    }),
  ];

  test("a chart that renders what its facts say has no finding", () => {
    expect(
      facts(check([], [release("trust-manager", "trust-manager", "cert-manager", trustManagerObjects())])),
    ).toEqual([]);
  });

  test("an issuer or Certificate the facts miss, or one they expect and the chart lacks, is a finding", () => {
    const [issuer, certificate] = trustManagerObjects();
    const longer = {
      ...certificate,
      spec: { ...(certificate.spec as Json), duration: "8760h" },
    };
    const extra = object("cert-manager.io/v1", "Issuer", "extra", "cert-manager", {
      spec: { ca: { secretName: "x" } },
    });
    expect(
      facts(check([], [release("trust-manager", "trust-manager", "cert-manager", [issuer, longer, extra])])),
    ).toEqual([
      "renders Issuer cert-manager/extra (CA x), which the inventory does not know",
      "renders Certificate cert-manager/trust-manager for 8760h, and the inventory says 2160h0m0s",
    ]);
    expect(facts(check([], [release("trust-manager", "trust-manager", "cert-manager", [issuer])]))).toEqual([
      "the inventory expects a Certificate for Secret cert-manager/trust-manager-tls, which the chart does not render",
    ]);
  });

  test("a TLS Secret or CA bundle written at template time must be in the facts", () => {
    // traefik has no certificate facts: a certificate in its templates would go unjudged.
    const secret = object("v1", "Secret", "traefik-default-cert", "traefik", {
      type: "kubernetes.io/tls",
      data: { "tls.crt": "LS0t", "tls.key": "LS0t" },
    });
    const webhook = object(
      "admissionregistration.k8s.io/v1",
      "ValidatingWebhookConfiguration",
      "traefik-hub",
      undefined,
      {
        webhooks: [{ name: "hub.traefik.io", clientConfig: { caBundle: "LS0t" } }],
      },
    );
    expect(facts(check([], [release("traefik", "traefik", "traefik", [secret, webhook])]))).toEqual([
      "renders Secret traefik/traefik-default-cert with a certificate written at template time, which the inventory does not know",
      "renders ValidatingWebhookConfiguration traefik-hub with a CA bundle written at template time, which the inventory does not know",
    ]);
    // Linkerd's viz chart writes tap's certificate at template time by default, as its facts say.
    const tap = object("v1", "Secret", "tap-k8s-tls", "linkerd-viz", {
      type: "kubernetes.io/tls",
      data: { "tls.crt": "LS0t", "tls.key": "LS0t" },
    });
    const injector = object("v1", "Secret", "tap-injector-k8s-tls", "linkerd-viz", {
      type: "kubernetes.io/tls",
      data: { "tls.crt": "LS0t", "tls.key": "LS0t" },
    });
    expect(facts(check([], [release("linkerd-viz", "linkerd-viz", "linkerd-viz", [tap, injector])]))).toEqual(
      [],
    );
    expect(facts(check([], [release("linkerd-viz", "linkerd-viz", "linkerd-viz", [tap])]))).toEqual([
      "the inventory expects Secret linkerd-viz/tap-injector-k8s-tls written at template time, and the chart does not write it",
    ]);
  });

  test("a Secret the facts say the chart's pods mount must be mounted, and not written by the chart", () => {
    const values = { identity: { issuer: { scheme: "kubernetes.io/tls" } } };
    const identity = (secretName: string) =>
      deployment("linkerd-identity", "linkerd", {
        volumes: [{ name: "identity-issuer", secret: { secretName } }],
      });
    const cp = (objects: KubeObject[]) =>
      release("linkerd-control-plane", "linkerd-control-plane", "linkerd", objects, values);
    const mountsOf = (objects: KubeObject[]) =>
      facts(check([], [cp(objects)])).filter((m) => m.includes("linkerd-identity-issuer"));
    expect(mountsOf([identity("linkerd-identity-issuer")])).toEqual([]);
    expect(mountsOf([identity("elsewhere")])).toEqual([
      "the inventory expects the chart's pods to mount Secret linkerd/linkerd-identity-issuer (Linkerd's identity issuer, which signs every proxy's certificate), and none does",
    ]);
  });
});

describe("production-sizing", () => {
  const pdb = (
    name: string,
    ns: string,
    labels: Record<string, string>,
    budget: Json = { minAvailable: 1 },
  ) =>
    object("policy/v1", "PodDisruptionBudget", name, ns, {
      spec: { ...budget, selector: { matchLabels: labels } },
    });
  // What the jetstack charts render from topologySpreadConstraints (templates/deployment.yaml).
  const spread = (
    o: KubeObject,
    labels: Record<string, string>,
    topologyKey = "topology.kubernetes.io/zone",
  ) => {
    const spec = o.spec as { template: { spec: Json } };
    spec.template.spec.topologySpreadConstraints = [
      {
        maxSkew: 1,
        topologyKey,
        whenUnsatisfiable: "ScheduleAnyway",
        labelSelector: { matchLabels: labels },
      },
    ];
    return o;
  };
  const findings = (platform: KubeObject[], releases: TemplatedRelease[] = []) =>
    check(platform, releases, "prod")
      .filter((f) => f.invariant === "production-sizing")
      .map((f) => [f.object, f.message.split(":")[0]]);

  test("in prod: requests and a memory limit on every container, two control-plane replicas, a budget for every replicated workload", () => {
    const cm = deployment("cert-manager", "cert-manager", { containers: [{ name: "controller" }] });
    const app = deployment("shop", "shop", { replicas: 3, containers: [{ name: "shop", resources: sized }] });
    expect(findings([app], [release("cert-manager", "cert-manager", "cert-manager", [cm])])).toEqual([
      ["Deployment shop/shop", "runs several replicas but no PodDisruptionBudget selects them"],
      ["Deployment cert-manager/cert-manager", "containers without CPU and memory requests"],
      ["Deployment cert-manager/cert-manager", "containers without a memory limit"],
      ["Deployment cert-manager/cert-manager", "is a control plane (release cert-manager) with 1 replica"],
    ]);
  });

  test("requests without a memory limit are a finding: a leak would take the node's memory", () => {
    const app = deployment("shop", "shop", {
      containers: [{ name: "shop", resources: { requests: { cpu: "100m", memory: "128Mi" } } }],
    });
    expect(findings([app])).toEqual([["Deployment shop/shop", "containers without a memory limit"]]);
  });

  test("a budget that keeps no replica, or lets none go, is a finding; one that keeps one and lets one go is not", () => {
    const labels = { app: "shop" };
    const app = () =>
      deployment("shop", "shop", { replicas: 2, containers: [{ name: "shop", resources: sized }] });
    expect(findings([app(), pdb("shop", "shop", labels, { maxUnavailable: 2 })])).toEqual([
      ["Deployment shop/shop", "its PodDisruptionBudget shop keeps none of its 2 replicas through a drain"],
    ]);
    // policy/v1 has no default: a budget with neither field keeps nothing.
    expect(findings([app(), pdb("shop", "shop", labels, {})])).toEqual([
      ["Deployment shop/shop", "its PodDisruptionBudget shop keeps none of its 2 replicas through a drain"],
    ]);
    expect(findings([app(), pdb("shop", "shop", labels, { minAvailable: "100%" })])).toEqual([
      ["Deployment shop/shop", "its PodDisruptionBudget shop lets none of its 2 replicas go"],
    ]);
    expect(findings([app(), pdb("shop", "shop", labels, { maxUnavailable: 0 })])).toEqual([
      ["Deployment shop/shop", "its PodDisruptionBudget shop lets none of its 2 replicas go"],
    ]);
    expect(findings([app(), pdb("shop", "shop", labels, { maxUnavailable: 1 })])).toEqual([]);
    expect(findings([app(), pdb("shop", "shop", labels, { minAvailable: "50%" })])).toEqual([]);
  });

  test("a replicated control plane must spread across zones; a spread by node only, or selecting other pods, does not count", () => {
    const labels = { app: "cert-manager" };
    const cm = () =>
      deployment("cert-manager", "cert-manager", {
        replicas: 2,
        containers: [{ name: "controller", resources: sized }],
      });
    const budget = pdb("cert-manager", "cert-manager", labels);
    const of = (o: KubeObject) =>
      findings([], [release("cert-manager", "cert-manager", "cert-manager", [o, budget])]);
    expect(of(cm())).toEqual([
      [
        "Deployment cert-manager/cert-manager",
        "runs several replicas of a control plane but nothing spreads them across zones",
      ],
    ]);
    expect(of(spread(cm(), labels, "kubernetes.io/hostname"))).toHaveLength(1);
    expect(of(spread(cm(), { app: "other" }))).toHaveLength(1);
    expect(of(spread(cm(), labels))).toEqual([]);
    // Linkerd's values-ha anti-affinity (charts/partials/templates/_affinity.tpl): preferred on the zone.
    const affine = cm();
    (affine.spec as { template: { spec: Json } }).template.spec.affinity = {
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          {
            weight: 100,
            podAffinityTerm: {
              labelSelector: { matchExpressions: [{ key: "app", operator: "In", values: ["cert-manager"] }] },
              topologyKey: "topology.kubernetes.io/zone",
            },
          },
        ],
      },
    };
    expect(of(affine)).toEqual([]);
  });

  test("an autoscaled control plane counts its autoscaler's minimum", () => {
    const labels = { app: "istiod" };
    const istiod = spread(
      deployment("istiod", "istio-system", { containers: [{ name: "discovery", resources: sized }] }),
      labels,
    );
    const hpa = (min: number) =>
      object("autoscaling/v2", "HorizontalPodAutoscaler", "istiod", "istio-system", {
        spec: { scaleTargetRef: { kind: "Deployment", name: "istiod" }, minReplicas: min, maxReplicas: 5 },
      });
    const of = (min: number) =>
      findings(
        [],
        [
          release("istiod", "istiod", "istio-system", [
            istiod,
            hpa(min),
            pdb("istiod", "istio-system", labels),
          ]),
        ],
      );
    expect(of(1)).toEqual([
      ["Deployment istio-system/istiod", "is a control plane (release istiod) with 1 replica"],
    ]);
    expect(of(2)).toEqual([]);
  });

  test("a Prometheus or Alertmanager without resources is a finding: its operator makes its pods", () => {
    const prometheus = (resources?: Json) =>
      object("monitoring.coreos.com/v1", "Prometheus", "kube-prometheus-stack-prometheus", "monitoring", {
        spec: { replicas: 1, ...(resources ? { resources } : {}) },
      });
    expect(findings([prometheus()])).toEqual([
      [
        "Prometheus monitoring/kube-prometheus-stack-prometheus",
        "sets no CPU and memory requests and memory limit for the pods its operator makes",
      ],
    ]);
    expect(findings([prometheus(sized)])).toEqual([]);
  });

  test("sized, replicated, spread and budgeted passes; dev is not judged", () => {
    const labels = { app: "cert-manager" };
    const cm = spread(
      deployment("cert-manager", "cert-manager", {
        replicas: 2,
        containers: [{ name: "controller", resources: sized }],
      }),
      labels,
    );
    const budget = pdb("cert-manager", "cert-manager", labels);
    const releases = [release("cert-manager", "cert-manager", "cert-manager", [cm, budget])];
    expect(of(check([], releases, "prod"), "production-sizing")).toEqual([]);
    const bare = deployment("cert-manager", "cert-manager", { containers: [{ name: "controller" }] });
    expect(
      of(
        check([], [release("cert-manager", "cert-manager", "cert-manager", [bare])], "dev"),
        "production-sizing",
      ),
    ).toEqual([]);
  });
});

describe("references-resolve", () => {
  test("a route to a missing Service, a Service selecting nothing, an unknown issuer, a missing Secret", () => {
    const route = object("gateway.networking.k8s.io/v1", "HTTPRoute", "shop", "shop", {
      spec: {
        rules: [
          {
            backendRefs: [
              { name: "shop", port: 80 },
              { name: "gone", port: 80 },
            ],
          },
        ],
      },
    });
    const svc = object("v1", "Service", "shop", "shop", {
      spec: { selector: { app: "nothing" }, ports: [{ port: 80 }] },
    });
    const cert = object("cert-manager.io/v1", "Certificate", "shop-tls", "shop", {
      spec: { secretName: "shop-tls", issuerRef: { name: "letsencrypt", kind: "ClusterIssuer" } },
    });
    const app = deployment("shop", "shop", {
      volumes: [
        { name: "tls", secret: { secretName: "shop-tls" } },
        { name: "other", secret: { secretName: "elsewhere" } },
      ],
      serviceAccountName: "shop",
    });
    const messages = check([namespace("shop"), route, svc, cert, app])
      .filter((f) => f.invariant === "references-resolve")
      .map((f) => `${f.object}: ${f.message.split(",")[0]}`);
    expect(messages).toEqual([
      "HTTPRoute shop/shop: sends to Service shop/shop",
      "HTTPRoute shop/shop: sends to Service shop/gone",
      "Certificate shop/shop-tls: names ClusterIssuer letsencrypt",
      "Deployment shop/shop: runs as ServiceAccount shop",
      // shop-tls is written by cert-manager for the Certificate; "elsewhere" by nothing.
      "Deployment shop/shop: mounts Secret elsewhere",
    ]);
  });

  test("a Linkerd Server that selects no pod serving its port is a finding", () => {
    const server = (port: string) =>
      object("policy.linkerd.io/v1beta3", "Server", `shop-${port}`, "shop", {
        spec: { podSelector: { matchLabels: { app: "shop" } }, port },
      });
    expect(
      of(
        check([namespace("shop"), deployment("shop", "shop"), server("http"), server("grpc")]),
        "references-resolve",
      ),
    ).toEqual(["Server shop/shop-grpc"]);
    const findings = check([namespace("shop"), deployment("shop", "shop"), server("grpc")]);
    expect(findings.find((f) => f.invariant === "references-resolve")?.message).toBe(
      `selects no pod serving port "grpc": its policy protects nothing; match the pods' labels and port`,
    );
  });

  test("linkerd-viz's Server for its own Prometheus, rendered whatever its values, is no finding; elsewhere it is", () => {
    // viz/charts/linkerd-viz/templates/prometheus-policy.yaml at edge-26.8.3, with prometheus.enabled: false.
    const admin = object("policy.linkerd.io/v1beta3", "Server", "prometheus-admin", "linkerd-viz", {
      spec: { podSelector: { matchLabels: { component: "prometheus" } }, port: "admin-http" },
    });
    const viz = release("linkerd-viz", "linkerd-viz", "linkerd-viz", [admin]);
    expect(of(check([namespace("linkerd-viz")], [viz]), "references-resolve")).toEqual([]);
    const other = release("linkerd-viz", "other-chart", "linkerd-viz", [admin]);
    expect(of(check([namespace("linkerd-viz")], [other]), "references-resolve")).toEqual([
      "Server linkerd-viz/prometheus-admin",
    ]);
  });
});

describe("label selectors evaluate as the API server does", () => {
  test.each([
    [{ matchLabels: { a: "1" } }, { a: "1", b: "2" }, true],
    [{ matchLabels: { a: "1" } }, { a: "2" }, false],
    [{ matchExpressions: [{ key: "a", operator: "In", values: ["1", "2"] }] }, { a: "2" }, true],
    [{ matchExpressions: [{ key: "a", operator: "NotIn", values: ["1"] }] }, {}, true],
    [{ matchExpressions: [{ key: "a", operator: "Exists" }] }, {}, false],
    [{ matchExpressions: [{ key: "a", operator: "DoesNotExist" }] }, { a: "" }, false],
    [{}, { anything: "x" }, true],
  ])("%j selects %j: %s", (selector, labels, expected) => {
    expect(selects(selector, labels)).toBe(expected);
  });
});

describe("objects-unique", () => {
  test("an object two releases render is a finding naming both", () => {
    const role = object("rbac.authorization.k8s.io/v1", "ClusterRole", "istio-reader");
    const findings = check(
      [],
      [
        release("istiod", "istiod", "istio-system", [role]),
        release("istiod-canary", "istiod", "istio-system", [role]),
      ],
    );
    const unique = findings.filter((f) => f.invariant === "objects-unique");
    expect(unique.map((f) => f.object)).toEqual(["ClusterRole istio-reader"]);
    expect(unique[0].message).toContain("is rendered by istiod and by istiod-canary");
  });
});

describe("scrapes-pass-the-mesh", () => {
  const istiod = release("istiod", "istiod", "istio-system", [istioInjector]);
  const strict = object("security.istio.io/v1", "PeerAuthentication", "default", "istio-system", {
    spec: { mtls: { mode: "STRICT" } },
  });
  const app = deployment("shop", "shop", {
    containers: [{ name: "shop", ports: [{ name: "http", containerPort: 8080 }], resources: sized }],
  });
  const appPort = object("monitoring.coreos.com/v1", "PodMonitor", "shop", "shop", {
    spec: {
      selector: { matchLabels: { app: "shop" } },
      podMetricsEndpoints: [{ port: "http", path: "/metrics" }],
    },
  });

  test("Istio sidecar under STRICT: a plain scrape of the app's port is refused; the agent's 15020 is not", () => {
    const ns = namespace("shop", { "istio-injection": "enabled" });
    expect(of(check([ns, app, strict, appPort], [istiod]), "scrapes-pass-the-mesh")).toEqual([
      "PodMonitor shop/shop",
    ]);
    const merged = object("monitoring.coreos.com/v1", "PodMonitor", "shop", "shop", {
      spec: {
        selector: { matchLabels: { app: "shop" } },
        podMetricsEndpoints: [
          {
            path: "/stats/prometheus",
            relabelings: [
              {
                action: "keep",
                sourceLabels: ["__meta_kubernetes_pod_container_name"],
                regex: "istio-proxy",
              },
              {
                action: "replace",
                sourceLabels: ["__meta_kubernetes_pod_ip"],
                replacement: "$1:15020",
                targetLabel: "__address__",
              },
            ],
          },
        ],
      },
    });
    expect(of(check([ns, app, strict, merged], [istiod]), "scrapes-pass-the-mesh")).toEqual([]);
    // PERMISSIVE lets the plain scrape in, and so does a port-level exception for the pod.
    const permissive = object("security.istio.io/v1", "PeerAuthentication", "default", "istio-system", {
      spec: { mtls: { mode: "PERMISSIVE" } },
    });
    expect(of(check([ns, app, permissive, appPort], [istiod]), "scrapes-pass-the-mesh")).toEqual([]);
    const port = object("security.istio.io/v1", "PeerAuthentication", "shop-load-balancer", "shop", {
      spec: { selector: { matchLabels: { app: "shop" } }, portLevelMtls: { "8080": { mode: "PERMISSIVE" } } },
    });
    expect(of(check([ns, app, strict, port, appPort], [istiod]), "scrapes-pass-the-mesh")).toEqual([]);
    // UNSET inherits the broader scope: a namespace policy without a mode leaves the mesh's STRICT.
    const unset = object("security.istio.io/v1", "PeerAuthentication", "default", "shop", {
      spec: { mtls: { mode: "UNSET" } },
    });
    expect(of(check([ns, app, strict, unset, appPort], [istiod]), "scrapes-pass-the-mesh")).toEqual([
      "PodMonitor shop/shop",
    ]);
    // Of two workload policies only the oldest applies (here the first): the other's exception is not read.
    const older = object("security.istio.io/v1", "PeerAuthentication", "shop-strict", "shop", {
      spec: { selector: { matchLabels: { app: "shop" } }, mtls: { mode: "STRICT" } },
    });
    expect(of(check([ns, app, strict, older, port, appPort], [istiod]), "scrapes-pass-the-mesh")).toEqual([
      "PodMonitor shop/shop",
    ]);
    // A pod whose sidecar intercepts no inbound port (an ingress controller's) takes the plain scrape.
    const outboundOnly = deployment("shop", "shop", {
      annotations: { "traffic.sidecar.istio.io/includeInboundPorts": "" },
      containers: [{ name: "shop", ports: [{ name: "http", containerPort: 8080 }], resources: sized }],
    });
    expect(of(check([ns, outboundOnly, strict, appPort], [istiod]), "scrapes-pass-the-mesh")).toEqual([]);
    const excluded = deployment("shop", "shop", {
      annotations: { "traffic.sidecar.istio.io/excludeInboundPorts": "8080" },
      containers: [{ name: "shop", ports: [{ name: "http", containerPort: 8080 }], resources: sized }],
    });
    expect(of(check([ns, excluded, strict, appPort], [istiod]), "scrapes-pass-the-mesh")).toEqual([]);
  });

  test("a ServiceMonitor's scrape of the app's port through its Service is refused the same way", () => {
    const ns = namespace("shop", { "istio-injection": "enabled" });
    const service = object("v1", "Service", "shop", "shop", {
      metadata: { labels: { app: "shop" } },
      spec: { selector: { app: "shop" }, ports: [{ name: "web", port: 80, targetPort: 8080 }] },
    });
    const monitor = object("monitoring.coreos.com/v1", "ServiceMonitor", "shop", "shop", {
      spec: { selector: { matchLabels: { app: "shop" } }, endpoints: [{ port: "web" }] },
    });
    const findings = check([ns, app, strict, service, monitor], [istiod]).filter(
      (f) => f.invariant === "scrapes-pass-the-mesh",
    );
    expect(findings).toEqual([
      {
        invariant: "scrapes-pass-the-mesh",
        object: "ServiceMonitor shop/shop",
        message: expect.stringContaining('its port "http" takes only mTLS under STRICT') as string,
      },
    ]);
  });

  test("ambient under STRICT: only a scraper enrolled in the mesh gets through ztunnel", () => {
    const ztunnel = release("ztunnel", "ztunnel", "istio-system", []);
    const ns = namespace("shop", { "istio.io/dataplane-mode": "ambient" });
    const prometheus = (labels: Record<string, string>) =>
      object("monitoring.coreos.com/v1", "Prometheus", "kube-prometheus-stack-prometheus", "monitoring", {
        spec: { podMetadata: { labels } },
      });
    expect(
      of(
        check([namespace("monitoring"), ns, app, strict, appPort, prometheus({})], [ztunnel]),
        "scrapes-pass-the-mesh",
      ),
    ).toEqual(["PodMonitor shop/shop"]);
    expect(
      of(
        check(
          [
            namespace("monitoring"),
            ns,
            app,
            strict,
            appPort,
            prometheus({ "istio.io/dataplane-mode": "ambient" }),
          ],
          [ztunnel],
        ),
        "scrapes-pass-the-mesh",
      ),
    ).toEqual([]);
    // Managed Prometheus's collectors are never in the mesh.
    const gmp = object("monitoring.googleapis.com/v1", "PodMonitoring", "shop", "shop", {
      spec: { selector: { matchLabels: { app: "shop" } }, endpoints: [{ port: "http" }] },
    });
    expect(of(check([ns, app, strict, gmp], [ztunnel]), "scrapes-pass-the-mesh")).toEqual([
      "PodMonitoring shop/shop",
    ]);
  });

  describe("Linkerd's inbound policy", () => {
    // linkerd-control-plane templates/destination.yaml: the policy controller's flags.
    const destination = deployment("linkerd-destination", "linkerd", {
      containers: [{ name: "policy", ports: [{ name: "admin-http", containerPort: 9990 }] }],
    });
    (destination.spec as Json).template = {
      ...((destination.spec as Json).template as Json),
      spec: {
        containers: [
          {
            name: "policy",
            args: ["--cluster-networks=10.4.0.0/14,10.8.0.0/20", "--default-policy=all-unauthenticated"],
          },
        ],
      },
    };
    const cp = release("linkerd-control-plane", "linkerd-control-plane", "linkerd", [
      linkerdInjector,
      destination,
    ]);
    const deny = namespace(
      "shop",
      {},
      { "linkerd.io/inject": "enabled", "config.linkerd.io/default-inbound-policy": "deny" },
    );
    const policy = (kind: string, name: string, spec: Json) =>
      object(`policy.linkerd.io/${kind === "Server" ? "v1beta3" : "v1alpha1"}`, kind, name, "shop", { spec });
    const server = policy("Server", "shop", {
      podSelector: { matchLabels: { app: "shop" } },
      port: "http",
      accessPolicy: "deny",
    });
    const route = (name: string, path: string) =>
      object("gateway.networking.k8s.io/v1", "HTTPRoute", name, "shop", {
        spec: {
          parentRefs: [{ group: "policy.linkerd.io", kind: "Server", name: "shop" }],
          rules: [{ matches: [{ path: { type: "Exact", value: path }, method: "GET" }] }],
        },
      });
    const network = (cidr: string) => policy("NetworkAuthentication", "cluster", { networks: [{ cidr }] });
    const authorize = (target: string) =>
      policy("AuthorizationPolicy", `${target}-cluster`, {
        targetRef: { group: "gateway.networking.k8s.io", kind: "HTTPRoute", name: target },
        requiredAuthenticationRefs: [
          { group: "policy.linkerd.io", kind: "NetworkAuthentication", name: "cluster" },
        ],
      });
    const scrapes = (objects: KubeObject[]) =>
      check([deny, app, appPort, ...objects], [cp]).filter((f) => f.invariant === "scrapes-pass-the-mesh");

    test("a deny-by-default namespace refuses the scrape until a Server's route to the metrics path is authorized from the pod range", () => {
      expect(scrapes([])).toEqual([
        expect.objectContaining({
          object: "PodMonitor shop/shop",
          message: expect.stringContaining(
            'no Server covers its port "http", and the default inbound policy "deny" refuses clients outside the mesh',
          ) as string,
        }),
      ]);
      // A Server whose routes miss the metrics path: the proxy answers 404.
      expect(scrapes([server, route("books", "/books"), network("10.4.0.0/14"), authorize("books")])).toEqual(
        [
          expect.objectContaining({
            message: expect.stringContaining("has routes, and none matches GET /metrics") as string,
          }),
        ],
      );
      // A route to it, authorized only from the nodes' range, not the pods'.
      expect(
        scrapes([server, route("metrics", "/metrics"), network("10.0.0.0/20"), authorize("metrics")]),
      ).toEqual([
        expect.objectContaining({
          message: expect.stringContaining(
            "that matches GET /metrics is authorized from the pod range",
          ) as string,
        }),
      ]);
      expect(
        scrapes([server, route("metrics", "/metrics"), network("10.4.0.0/14"), authorize("metrics")]),
      ).toEqual([]);
      // The namespace's policy is the pod's unless the pod says otherwise.
      const open = deployment("shop", "shop", {
        annotations: { "config.linkerd.io/default-inbound-policy": "cluster-unauthenticated" },
        containers: [{ name: "shop", ports: [{ name: "http", containerPort: 8080 }], resources: sized }],
      });
      expect(of(check([deny, open, appPort], [cp]), "scrapes-pass-the-mesh")).toEqual([]);
    });

    test("what lets a scrape through without a route: a skipped port, a ServerAuthorization, a route with no rules", () => {
      const skipped = namespace(
        "shop",
        {},
        {
          "linkerd.io/inject": "enabled",
          "config.linkerd.io/default-inbound-policy": "deny",
          "config.linkerd.io/skip-inbound-ports": "8000-8090",
        },
      );
      // proxy-init leaves the port alone, so no policy applies (partials _proxy-init.tpl).
      expect(of(check([skipped, app, appPort], [cp]), "scrapes-pass-the-mesh")).toEqual([]);
      const legacy = object("policy.linkerd.io/v1beta1", "ServerAuthorization", "shop-cluster", "shop", {
        spec: { server: { name: "shop" }, client: { unauthenticated: true } },
      });
      expect(scrapes([server, legacy])).toEqual([]);
      // A route without rules takes every request (the CRD's default), so the Server's route is authorized.
      const everything = object("gateway.networking.k8s.io/v1", "HTTPRoute", "all", "shop", {
        spec: { parentRefs: [{ group: "policy.linkerd.io", kind: "Server", name: "shop" }] },
      });
      expect(scrapes([server, everything, network("10.4.0.0/14"), authorize("all")])).toEqual([]);
      // A parent without Linkerd's group is the Gateway API's own Server kind: the route never attaches.
      const detached = object("gateway.networking.k8s.io/v1", "HTTPRoute", "metrics", "shop", {
        spec: {
          parentRefs: [{ kind: "Server", name: "shop" }],
          rules: [{ matches: [{ path: { type: "Exact", value: "/metrics" } }] }],
        },
      });
      expect(scrapes([server, detached, network("10.4.0.0/14"), authorize("metrics")])).toEqual([
        expect.objectContaining({
          message: expect.stringContaining(
            "authorizes no client outside the mesh from the pod range",
          ) as string,
        }),
      ]);
    });
  });
});

describe("acme-solvers-outside-the-mesh", () => {
  const cp = release("linkerd-control-plane", "linkerd-control-plane", "linkerd", [linkerdInjector]);
  const issuer = (podTemplate?: Record<string, unknown>) =>
    object("cert-manager.io/v1", "ClusterIssuer", "letsencrypt", undefined, {
      spec: {
        acme: {
          solvers: [
            { http01: { ingress: { ingressClassName: "traefik", ...(podTemplate ? { podTemplate } : {}) } } },
          ],
        },
      },
    });
  const cert = object("cert-manager.io/v1", "Certificate", "shop-tls", "shop", {
    spec: { secretName: "shop-tls", issuerRef: { name: "letsencrypt", kind: "ClusterIssuer" } },
  });
  const ns = namespace("shop", {}, { "linkerd.io/inject": "enabled" });

  test("a solver pod Linkerd would inject is a finding; opted out, it is not", () => {
    expect(of(check([ns, cert, issuer()], [cp]), "acme-solvers-outside-the-mesh")).toEqual([
      "Certificate shop/shop-tls",
    ]);
    const optedOut = issuer({ metadata: { annotations: { "linkerd.io/inject": "disabled" } } });
    expect(of(check([ns, cert, optedOut], [cp]), "acme-solvers-outside-the-mesh")).toEqual([]);
  });

  test("Istio ambient captures a solver in an enrolled namespace unless it carries dataplane-mode none", () => {
    const ztunnel = release("ztunnel", "ztunnel", "istio-system", []);
    const ambientNs = namespace("shop", { "istio.io/dataplane-mode": "ambient" });
    expect(of(check([ambientNs, cert, issuer()], [ztunnel]), "acme-solvers-outside-the-mesh")).toEqual([
      "Certificate shop/shop-tls",
    ]);
    const none = issuer({ metadata: { labels: { "istio.io/dataplane-mode": "none" } } });
    expect(of(check([ambientNs, cert, none], [ztunnel]), "acme-solvers-outside-the-mesh")).toEqual([]);
  });
});

describe("no-open-access", () => {
  test("a policy the platform writes open to every address is a finding; one a chart renders is the chart's", () => {
    const open = object("policy.linkerd.io/v1alpha1", "NetworkAuthentication", "shop-any", "shop", {
      spec: { networks: [{ cidr: "0.0.0.0/0" }, { cidr: "::/0" }] },
    });
    const cluster = object("policy.linkerd.io/v1alpha1", "NetworkAuthentication", "shop-cluster", "shop", {
      spec: { networks: [{ cidr: "10.0.0.0/20" }] },
    });
    const allowAll = object("security.istio.io/v1", "AuthorizationPolicy", "shop", "shop", {
      spec: { action: "ALLOW", rules: [{}] },
    });
    const allowNothing = object("security.istio.io/v1", "AuthorizationPolicy", "deny-by-default", "shop", {
      spec: {},
    });
    expect(of(check([open, cluster, allowAll, allowNothing]), "no-open-access")).toEqual([
      "NetworkAuthentication shop/shop-any",
      "AuthorizationPolicy shop/shop",
    ]);
    expect(
      of(check([], [release("linkerd-viz", "linkerd-viz", "linkerd-viz", [open])]), "no-open-access"),
    ).toEqual([]);
  });
});

describe("disruption-budgets-valid", () => {
  test("a budget with both minAvailable and maxUnavailable is a finding (the API server refuses it)", () => {
    const both = object("policy/v1", "PodDisruptionBudget", "istio-csr", "cert-manager", {
      spec: { minAvailable: 1, maxUnavailable: 1, selector: { matchLabels: { app: "istio-csr" } } },
    });
    const one = object("policy/v1", "PodDisruptionBudget", "shop", "shop", {
      spec: { maxUnavailable: 1, selector: { matchLabels: { app: "shop" } } },
    });
    expect(
      of(
        check([], [release("cert-manager-istio-csr", "cert-manager-istio-csr", "cert-manager", [both, one])]),
        "disruption-budgets-valid",
      ),
    ).toEqual(["PodDisruptionBudget cert-manager/istio-csr"]);
  });
});
