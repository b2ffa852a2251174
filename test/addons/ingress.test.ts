import { HelmTemplater, caKeysConfined, findHelm, objectSetOf, secretReadGrants } from "../../lib/cluster";
import { ConfigError } from "../../lib/config";
import { clusterInputOf, type RenderResult, type RenderedResource } from "../../lib/render";
import { supportedKubernetes } from "../../lib/versions";
import { config, find, release, renderPlatform, values, waitsFor } from "../helpers";
import {
  chartsDir,
  chartsProblem,
  crdSchema,
  referenceDir,
  skipReason,
  unknownFields,
} from "../upstream/reference";

const shop = {
  name: "shop",
  image: "shop:1",
  port: 8080,
  expose: { host: "shop.example.com", healthCheckPath: "/ready", timeoutSeconds: 45 },
};
const acme = { email: "platform@example.com" };

const kinds = (r: RenderResult) => r.resources.filter((x) => typeof x.inputs.kind === "string");

const spec = (r: RenderedResource) => r.inputs.spec as Record<string, unknown>;
const annotations = (r: RenderedResource) =>
  (r.inputs.metadata as { annotations?: Record<string, string> }).annotations ?? {};

const meshes = ["linkerd", "istio", "none"] as const;

describe.each(meshes)("GKE Gateway, mesh %s", (mesh) => {
  let result: RenderResult;
  beforeAll(async () => {
    result = await renderPlatform({ mesh: { kind: mesh }, ingress: { kind: "gke-gateway" }, apps: [shop] });
  });

  test("one shared Gateway: HTTPS for labelled namespaces, HTTP only for the redirect, a NamedAddress, managed certs", () => {
    // Certificates come from a Certificate Manager map, which scales past the listener's 4096-character option.
    expect(
      (find(result, "Gateway", "shared", "gateway").inputs.metadata as { annotations?: unknown }).annotations,
    ).toEqual({
      "networking.gke.io/certmap": "gke-test-gateway",
    });
    expect(spec(find(result, "Gateway", "shared", "gateway"))).toEqual({
      gatewayClassName: "gke-l7-global-external-managed",
      addresses: [{ type: "NamedAddress", value: "gke-test-gateway" }],
      listeners: [
        {
          name: "https",
          protocol: "HTTPS",
          port: 443,
          allowedRoutes: {
            namespaces: {
              from: "Selector",
              selector: { matchLabels: { "gke-mesh-platform/gateway-access": "true" } },
            },
          },
        },
        { name: "http", protocol: "HTTP", port: 80, allowedRoutes: { namespaces: { from: "Same" } } },
      ],
    });
    expect(spec(find(result, "HTTPRoute", "shared-https-redirect", "gateway"))).toEqual({
      parentRefs: [{ name: "shared", sectionName: "http" }],
      rules: [
        { filters: [{ type: "RequestRedirect", requestRedirect: { scheme: "https", statusCode: 301 } }] },
      ],
    });
    expect(spec(find(result, "GCPGatewayPolicy", "shared", "gateway"))).toEqual({
      targetRef: { group: "gateway.networking.k8s.io", kind: "Gateway", name: "shared" },
      default: { sslPolicy: "gke-test-tls" },
    });
  });

  test("the app: an HTTPRoute on the HTTPS listener, without the timeouts GKE ignores", () => {
    expect(spec(find(result, "HTTPRoute", "shop", "shop"))).toEqual({
      parentRefs: [{ name: "shared", namespace: "gateway", sectionName: "https" }],
      hostnames: ["shop.example.com"],
      rules: [
        {
          matches: [{ path: { type: "PathPrefix", value: "/" } }],
          backendRefs: [{ name: "shop", port: 8080 }],
        },
      ],
    });
  });

  test("health check on the readiness path with a fixed port; backend timeout and connection draining", () => {
    expect(spec(find(result, "HealthCheckPolicy", "shop", "shop"))).toEqual({
      targetRef: { group: "", kind: "Service", name: "shop" },
      default: {
        checkIntervalSec: 5,
        timeoutSec: 5,
        healthyThreshold: 2,
        unhealthyThreshold: 2,
        config: {
          type: "HTTP",
          httpHealthCheck: { portSpecification: "USE_FIXED_PORT", port: 8080, requestPath: "/ready" },
        },
        logConfig: { enabled: true },
      },
    });
    expect(spec(find(result, "GCPBackendPolicy", "shop", "shop"))).toEqual({
      targetRef: { group: "", kind: "Service", name: "shop" },
      default: {
        timeoutSec: 45,
        connectionDraining: { drainingTimeoutSec: 30 },
        logging: { enabled: false },
      },
    });
  });

  test("the Service carries one NEG annotation both GKE controllers accept", () => {
    expect(annotations(find(result, "Service", "shop", "shop"))).toEqual({
      "cloud.google.com/neg": '{"ingress":true,"exposed_ports":{"8080":{}}}',
    });
  });

  test("the app's namespace may attach to the Gateway; the route waits for the Gateway, not for the mesh dashboard", () => {
    const ns = find(result, "Namespace", "shop");
    expect((ns.inputs.metadata as { labels: Record<string, string> }).labels).toMatchObject({
      "gke-mesh-platform/gateway-access": "true",
    });
    // The Gateway alone (which waits for its namespace, address, certificates and SSL policy) and the app's namespace.
    const waits = [find(result, "Gateway", "shared", "gateway").key, ns.key].sort();
    for (const kind of ["HTTPRoute", "HealthCheckPolicy", "GCPBackendPolicy"]) {
      expect([...find(result, kind, "shop", "shop").dependsOn].sort()).toEqual(waits);
    }
  });

  test("Google's edge: MODERN TLS 1.2+ SSL policy, global address, Google-managed certificate", () => {
    const ssl = result.resources.find((r) => r.type === "gcp:compute/sSLPolicy:SSLPolicy");
    expect(ssl?.inputs).toMatchObject({ name: "gke-test-tls", profile: "MODERN", minTlsVersion: "TLS_1_2" });
    expect(
      result.resources.find((r) => r.type === "gcp:compute/globalAddress:GlobalAddress")?.inputs,
    ).toMatchObject({
      name: "gke-test-gateway",
    });
    expect(
      result.resources.find((r) => r.type === "gcp:certificatemanager/certificate:Certificate")?.inputs,
    ).toMatchObject({
      name: "gke-test-shop-example-com",
      managed: { domains: ["shop.example.com"] },
    });
    expect(
      result.resources.find((r) => r.type === "gcp:certificatemanager/certificateMap:CertificateMap")?.inputs,
    ).toMatchObject({ name: "gke-test-gateway" });
    const entry = result.resources.find(
      (r) => r.type === "gcp:certificatemanager/certificateMapEntry:CertificateMapEntry",
    );
    expect(entry?.inputs).toMatchObject({ name: "gke-test-shop-example-com", hostname: "shop.example.com" });
    // The entry waits for its certificate; the Gateway waits for the map only, not for every certificate.
    expect(entry?.dependencies).toEqual(
      expect.arrayContaining([expect.stringContaining("certificate:Certificate::")]),
    );
    const gatewayDeps = find(result, "Gateway", "shared", "gateway").dependencies;
    expect(gatewayDeps.filter((d) => d.includes("certificate:Certificate::"))).toEqual([]);
    // It waits for the map and its entries: an empty map would fail every TLS handshake.
    expect(gatewayDeps).toEqual(
      expect.arrayContaining([
        expect.stringContaining("certificateMap:CertificateMap::"),
        expect.stringContaining("certificateMapEntry:CertificateMapEntry::"),
      ]),
    );
  });
});

describe.each(meshes)("Traefik, mesh %s", (mesh) => {
  let result: RenderResult;
  beforeAll(async () => {
    result = await renderPlatform({ mesh: { kind: mesh }, ingress: { kind: "traefik", acme }, apps: [shop] });
  });

  const meshValues = {
    linkerd: {
      deployment: {
        podAnnotations: {
          "linkerd.io/inject": "enabled",
          "config.linkerd.io/skip-inbound-ports": "8000,8443",
        },
      },
    },
    istio: {
      deployment: {
        podLabels: { "sidecar.istio.io/inject": "true" },
        podAnnotations: { "traffic.sidecar.istio.io/includeInboundPorts": "" },
      },
    },
    none: { deployment: {} },
  }[mesh];

  test("chart values: namespaced RBAC over the apps' namespaces, meshed pod metadata, Service-IP load balancing, HTTPS redirect, class by annotation, drain, sized", () => {
    // Keep accepting while Google's load balancer notices the pod is leaving (3 health checks 8 s apart).
    const lifeCycle = { requestAcceptGraceTimeout: "30s", graceTimeOut: "10s" };
    expect(values(release(result, "traefik"))).toEqual({
      // Roles in shop (the app it routes to) and its own namespace, no ClusterRole: no CA key in reach.
      rbac: { namespaced: true },
      // It reads no IngressClass, so none is made; Ingresses are its by annotation only.
      ingressClass: { enabled: false },
      providers: {
        kubernetesCRD: { nativeLBByDefault: mesh !== "none", namespaces: ["shop"] },
        // Its own namespace too, where it reads its published Service for Ingresses' status.
        kubernetesIngress: {
          nativeLBByDefault: mesh !== "none",
          namespaces: ["shop", "traefik"],
          ingressClass: "traefik",
        },
      },
      ports: {
        web: {
          http: { redirections: { entryPoint: { to: "websecure", scheme: "https", permanent: true } } },
          allowACMEByPass: true,
          transport: { lifeCycle },
        },
        websecure: { transport: { lifeCycle } },
      },
      service: { spec: { externalTrafficPolicy: "Local" } },
      resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "512Mi" } },
      ...meshValues,
      deployment: { ...meshValues.deployment, replicas: 1, terminationGracePeriodSeconds: 60 },
    });
  });

  test("its own metrics are scraped: job traefik, port metrics", () => {
    expect(spec(find(result, "PodMonitor", "traefik", "traefik"))).toEqual({
      selector: {
        matchLabels: { "app.kubernetes.io/name": "traefik", "app.kubernetes.io/instance": "traefik-traefik" },
      },
      podMetricsEndpoints: [
        {
          port: "metrics",
          path: "/metrics",
          interval: "30s",
          relabelings: [{ action: "replace", targetLabel: "job", replacement: "traefik" }],
        },
      ],
    });
  });

  test("the IngressRoute routes to the Service IP when meshed, with a timeout and a certificate", () => {
    const route = spec(find(result, "IngressRoute", "shop", "shop"));
    const middlewares = mesh === "istio" ? { middlewares: [{ name: "shop-service-host" }] } : {};
    expect(route).toEqual({
      entryPoints: ["websecure"],
      routes: [
        {
          match: "Host(`shop.example.com`) && PathPrefix(`/`)",
          kind: "Rule",
          services: [{ name: "shop", port: 8080, nativeLB: mesh !== "none", serversTransport: "shop" }],
          ...middlewares,
        },
      ],
      tls: { secretName: "shop-tls" },
    });
    expect(spec(find(result, "ServersTransport", "shop", "shop"))).toEqual({
      forwardingTimeouts: { responseHeaderTimeout: "45s" },
    });
    expect(spec(find(result, "Certificate", "shop-tls", "shop"))).toMatchObject({
      dnsNames: ["shop.example.com"],
      issuerRef: { name: "letsencrypt", kind: "ClusterIssuer" },
    });
  });

  test("Istio gets a Host header it recognises; other meshes do not need one", () => {
    const hosts = kinds(result).filter((r) => r.inputs.kind === "Middleware");
    if (mesh === "istio") {
      expect(hosts.map((m) => spec(m))).toEqual([
        { headers: { customRequestHeaders: { Host: "shop.shop.svc.cluster.local" } } },
      ]);
    } else {
      expect(hosts).toEqual([]);
    }
  });

  test("Traefik's CRDs come from its CRD chart (kept); the app's objects wait for it and the ACME issuer", () => {
    // The release skips crds/, which Helm would never upgrade; the CRD chart applies them, each retained.
    expect(release(result, "traefik").options.retainOnDelete).toBe(false);
    expect(release(result, "traefik").inputs.skipCrds).toBe(true);
    const crds = result.resources.find(
      (r) => r.type === "kubernetes:helm.sh/v4:Chart" && r.inputs.name === "traefik-crds",
    );
    expect(crds?.inputs).toMatchObject({ chart: "traefik", name: "traefik-crds", skipCrds: false });
    expect(crds?.children?.crd.retainOnDelete).toBe(true);
    expect(release(result, "traefik").dependsOn).toContain(crds?.key);
    // Its Role in the app's namespace needs the namespace first.
    expect(release(result, "traefik").dependsOn).toContain(find(result, "Namespace", "shop").key);
    const route = find(result, "IngressRoute", "shop", "shop");
    expect(route.dependsOn).toEqual(
      expect.arrayContaining([
        release(result, "traefik").key,
        find(result, "ClusterIssuer", "letsencrypt").key,
      ]),
    );
    // Linkerd would inject the solver pod, and a deny-by-default namespace would refuse the challenge;
    // cert-manager opts its solver out of Istio's sidecar itself.
    const solverPod =
      mesh === "linkerd"
        ? { podTemplate: { metadata: { annotations: { "linkerd.io/inject": "disabled" } } } }
        : {};
    expect(spec(find(result, "ClusterIssuer", "letsencrypt"))).toEqual({
      acme: {
        server: "https://acme-v02.api.letsencrypt.org/directory",
        email: "platform@example.com",
        privateKeySecretRef: { name: "letsencrypt-account-key" },
        // By annotation: Traefik, with namespaced RBAC, reads no IngressClass.
        solvers: [{ http01: { ingress: { class: "traefik", ...solverPod } } }],
      },
    });
  });

  test("no Google load balancer reaches the Service: its NEG annotation is only GKE's own default", () => {
    expect(annotations(find(result, "Service", "shop", "shop"))).toEqual({
      "cloud.google.com/neg": '{"ingress":true}',
    });
  });
});

test("Istio ambient: ACME solver pods stay out of ztunnel, so the challenge needs no mTLS", async () => {
  const result = await renderPlatform({
    tier: "prod",
    mesh: { kind: "istio", dataplane: "ambient" },
    ingress: { kind: "ingress-nginx", acme },
    apps: [shop],
  });
  expect(spec(find(result, "ClusterIssuer", "letsencrypt"))).toMatchObject({
    acme: {
      solvers: [
        {
          http01: {
            ingress: {
              ingressClassName: "nginx",
              podTemplate: { metadata: { labels: { "istio.io/dataplane-mode": "none" } } },
            },
          },
        },
      ],
    },
  });
});

describe.each(meshes)("ingress-nginx, mesh %s", (mesh) => {
  let result: RenderResult;
  beforeAll(async () => {
    result = await renderPlatform({
      mesh: { kind: mesh },
      ingress: { kind: "ingress-nginx", acme },
      apps: [shop],
    });
  });

  test("the controller is meshed through its own pod metadata; webhook certs from cert-manager, so no hook Jobs", () => {
    const meshed = {
      linkerd: {
        podAnnotations: {
          "linkerd.io/inject": "enabled",
          "config.linkerd.io/skip-inbound-ports": "80,443,8443",
        },
      },
      istio: {
        podLabels: { "sidecar.istio.io/inject": "true" },
        podAnnotations: { "traffic.sidecar.istio.io/includeInboundPorts": "" },
      },
      none: {},
    }[mesh];
    expect(values(release(result, "ingress-nginx"))).toEqual({
      controller: {
        ingressClassResource: { name: "nginx" },
        config: { "service-upstream": "true" },
        // NGINX keeps serving while the load balancer notices the pod is going (externalTrafficPolicy Local).
        extraArgs: { "shutdown-grace-period": "30" },
        service: { externalTrafficPolicy: "Local" },
        admissionWebhooks: { certManager: { enabled: true } },
        replicaCount: 1,
        resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "512Mi" } },
        // Named http-metrics, so Istio reads its protocol from the metrics Service's port name.
        metrics: { enabled: true, portName: "http-metrics" },
        ...meshed,
      },
    });
    expect(release(result, "ingress-nginx").dependsOn).toContain(release(result, "cert-manager").key);
    // Its own metrics, by the controller pods' labels (templates/_helpers.tpl at 4.15.1).
    expect(spec(find(result, "PodMonitor", "ingress-nginx-controller", "ingress-nginx"))).toMatchObject({
      selector: {
        matchLabels: {
          "app.kubernetes.io/name": "ingress-nginx",
          "app.kubernetes.io/instance": "ingress-nginx",
          "app.kubernetes.io/component": "controller",
        },
      },
      podMetricsEndpoints: [{ port: "http-metrics", path: "/metrics" }],
    });
    // Never namespace-wide: the namespace carries no injection.
    expect(annotations(find(result, "Namespace", "ingress-nginx"))).toEqual({});
  });

  test("the Ingress sends to the Service; with Istio, with the Service's host", () => {
    const ingress = find(result, "Ingress", "shop", "shop");
    expect(annotations(ingress)).toEqual({
      "nginx.ingress.kubernetes.io/service-upstream": "true",
      "nginx.ingress.kubernetes.io/proxy-read-timeout": "45",
      "nginx.ingress.kubernetes.io/proxy-send-timeout": "45",
      ...(mesh === "istio"
        ? { "nginx.ingress.kubernetes.io/upstream-vhost": "shop.shop.svc.cluster.local" }
        : {}),
    });
    expect(spec(ingress)).toMatchObject({
      ingressClassName: "nginx",
      tls: [{ hosts: ["shop.example.com"], secretName: "shop-tls" }],
    });
  });

  test("the retirement warning is printed at render", () => {
    expect(result.warnings).toEqual(
      expect.arrayContaining([expect.stringContaining("retired upstream in March 2026")]),
    );
  });
});

// The pinned chart as a real helm templates it: skipped where helm or the charts are missing, the reason in
// the title (test/skips.js; CI=true fails a skip).
const helm = findHelm();
const noHelm = [
  ...(helm ? [] : ["no helm binary (set HELM, or run .ci/run, which builds one)"]),
  ...(chartsProblem ? [chartsProblem] : []),
].join("; ");

(noHelm ? test.skip : test)(
  `ingress-nginx's metrics port is http-metrics on its container and its Service, which the PodMonitor scrapes${noHelm ? ` (skipped: ${noHelm})` : ""}`,
  async () => {
    const result = await renderPlatform({
      mesh: { kind: "istio" },
      ingress: { kind: "ingress-nginx", acme },
      monitoring: { backend: "prometheus" },
      apps: [shop],
    });
    const input = clusterInputOf("ingress-nginx", "dev", result);
    const set = await objectSetOf(
      { ...input, releases: input.releases.filter((r) => r.name === "ingress-nginx") },
      {
        templater: new HelmTemplater(helm ?? "", 1),
        chartsDir: chartsDir ?? "",
        kubeVersion: supportedKubernetes.highest,
      },
    );
    const object = (kind: string, name: string) =>
      set.objects.find((o) => o.kind === kind && o.metadata.name === name) as
        { spec: Record<string, unknown> } | undefined;
    expect(object("Service", "ingress-nginx-controller-metrics")?.spec.ports).toEqual([
      { name: "http-metrics", port: 10254, protocol: "TCP", targetPort: "http-metrics" },
    ]);
    const pod = (
      object("Deployment", "ingress-nginx-controller")?.spec as {
        template: {
          spec: { containers: { name: string; ports: { name: string; containerPort: number }[] }[] };
        };
      }
    ).template.spec;
    expect(
      pod.containers.find((c) => c.name === "controller")?.ports.find((p) => p.containerPort === 10254)?.name,
    ).toBe("http-metrics");
  },
  120_000,
);

(noHelm ? test.skip : test)(
  `Traefik reads Secrets only in its namespace and the apps', so no CA key is in its reach${noHelm ? ` (skipped: ${noHelm})` : ""}`,
  async () => {
    const result = await renderPlatform({
      mesh: { kind: "linkerd" },
      ingress: { kind: "traefik", acme },
      apps: [shop],
    });
    const set = await objectSetOf(clusterInputOf("traefik", "dev", result), {
      templater: new HelmTemplater(helm ?? "", 1),
      chartsDir: chartsDir ?? "",
      kubeVersion: supportedKubernetes.highest,
    });
    const traefik = secretReadGrants(set.objects).filter((g) => g.subject.name === "traefik");
    expect(
      traefik.map((g) => `${g.role}: ${g.verbs.join(",")} in ${g.namespace ?? "every namespace"}`),
    ).toEqual([
      "Role shop/traefik: get,list,watch in shop",
      "Role traefik/traefik: get,list,watch in traefik",
    ]);
    expect(
      set.objects.filter((o) => o.kind === "ClusterRole" && o.metadata.name.startsWith("traefik")),
    ).toEqual([]);
    const args = set.pods
      .filter((p) => p.owner.kind === "Deployment" && p.owner.metadata.name === "traefik")
      .flatMap((p) => p.containers.flatMap((c) => ((c as { args?: string[] }).args ?? []).map(String)));
    expect(args.filter((a) => /namespaces=|ingressclass=|disableclusterscoperesources/i.test(a))).toEqual([
      "--providers.kubernetescrd.disableClusterScopeResources=true",
      "--providers.kubernetesingress.ingressClass=traefik",
      "--providers.kubernetesingress.disableClusterScopeResources=true",
      "--providers.kubernetescrd.namespaces=shop",
      "--providers.kubernetesingress.namespaces=shop,traefik",
    ]);
    // The mesh's trust anchor (cert-manager) and identity issuer (linkerd) are out of its reach.
    expect(caKeysConfined(set).filter((f) => f.message.includes("traefik"))).toEqual([]);
  },
  180_000,
);

describe.each(meshes)("GCE Ingress, mesh %s", (mesh) => {
  let result: RenderResult;
  beforeAll(async () => {
    result = await renderPlatform({ mesh: { kind: mesh }, ingress: { kind: "gce-ingress" }, apps: [shop] });
  });

  test("container-native load balancing, BackendConfig with draining and health check, FrontendConfig redirect", () => {
    expect(annotations(find(result, "Service", "shop", "shop"))).toEqual({
      "cloud.google.com/neg": '{"ingress":true}',
      "cloud.google.com/backend-config": '{"default":"shop"}',
    });
    expect(spec(find(result, "BackendConfig", "shop", "shop"))).toEqual({
      timeoutSec: 45,
      connectionDraining: { drainingTimeoutSec: 30 },
      healthCheck: { type: "HTTP", requestPath: "/ready", port: 8080, checkIntervalSec: 5, timeoutSec: 5 },
      logging: { enable: false },
    });
    expect(spec(find(result, "FrontendConfig", "shop", "shop"))).toEqual({
      sslPolicy: "gke-test-tls",
      redirectToHttps: { enabled: true, responseCodeName: "MOVED_PERMANENTLY_DEFAULT" },
    });
    expect(annotations(find(result, "Ingress", "shop-gce", "shop"))).toEqual({
      "kubernetes.io/ingress.class": "gce",
      "networking.gke.io/v1beta1.FrontendConfig": "shop",
      "networking.gke.io/managed-certificates": "shop",
      "kubernetes.io/ingress.global-static-ip-name": "gke-test-shop-shop",
    });
    expect(spec(find(result, "ManagedCertificate", "shop", "shop"))).toEqual({
      domains: ["shop.example.com"],
    });
  });
});

describe("migrating between GCE Ingress and GKE Gateway", () => {
  test("a Service exposed through both carries one annotation both accept", async () => {
    const result = await renderPlatform({
      ingress: { kind: "gke-gateway" },
      apps: [{ ...shop, expose: { ...shop.expose, via: ["gce-ingress", "gke-gateway"] } }],
    });
    expect(annotations(find(result, "Service", "shop", "shop"))).toEqual({
      "cloud.google.com/neg": '{"ingress":true,"exposed_ports":{"8080":{}}}',
      "cloud.google.com/backend-config": '{"default":"shop"}',
    });
    expect(find(result, "HTTPRoute", "shop", "shop")).toBeDefined();
    expect(find(result, "Ingress", "shop-gce", "shop")).toBeDefined();
  });

  test("moving back to GCE Ingress leaves no Gateway-only value on the Service", async () => {
    const result = await renderPlatform({ ingress: { kind: "gce-ingress" }, apps: [shop] });
    expect(annotations(find(result, "Service", "shop", "shop"))["cloud.google.com/neg"]).toBe(
      '{"ingress":true}',
    );
  });
});

describe("what GKE Gateway cannot do fails with the GKE-side alternative", () => {
  const attempt = (expose: Record<string, unknown>) =>
    renderPlatform({
      ingress: { kind: "gke-gateway" },
      apps: [{ ...shop, expose: { ...shop.expose, ...expose } }],
    });

  test("path rewriting", async () => {
    await expect(attempt({ path: "/shop", stripPrefix: true })).rejects.toThrow(
      /platform:apps\[0\]\.expose\.stripPrefix: is true, but GKE Gateway cannot rewrite paths \(HTTPRoutePathRewrite is unsupported\)\n    fix: serve the app under its path prefix/,
    );
  });

  test("method matching", async () => {
    await expect(attempt({ methods: ["GET"] })).rejects.toThrow(
      /HTTPRouteMethodMatching is unsupported\)\n    fix: remove it and check methods in the app or with Cloud Armor/,
    );
  });

  test("Traefik does both", async () => {
    const result = await renderPlatform({
      ingress: { kind: "traefik", acme },
      apps: [
        { ...shop, expose: { ...shop.expose, path: "/shop", stripPrefix: true, methods: ["GET", "HEAD"] } },
      ],
    });
    expect(spec(find(result, "IngressRoute", "shop", "shop"))).toMatchObject({
      routes: [
        {
          match: "Host(`shop.example.com`) && PathPrefix(`/shop`) && (Method(`GET`) || Method(`HEAD`))",
          middlewares: [{ name: "shop-strip-prefix" }],
        },
      ],
    });
  });

  test("a regional Gateway with Google-managed certificates is refused", () => {
    expect(() =>
      config({
        ingress: { kind: "gke-gateway", gatewayClass: "gke-l7-regional-external-managed" },
        apps: [shop],
      }),
    ).toThrow(ConfigError);
  });

  test("a wildcard host with Google-managed certificates is refused, naming the host", () => {
    try {
      config({ ingress: { kind: "gke-gateway" }, apps: [{ ...shop, expose: { host: "*.example.com" } }] });
      throw new Error("expected a ConfigError");
    } catch (err) {
      expect((err as ConfigError).problems).toEqual([
        expect.objectContaining({
          path: "platform:apps[0].expose.host",
          problem: expect.stringContaining("wildcard") as string,
        }),
      ]);
    }
  });

  test("pre-shared certificates: named on the HTTPS listener, with no certificate map", async () => {
    const result = await renderPlatform({
      ingress: { kind: "gke-gateway", tls: { mode: "pre-shared", certificates: ["shop-cert", "api-cert"] } },
      apps: [shop],
    });
    const gw = find(result, "Gateway", "shared", "gateway");
    expect((gw.inputs.metadata as { annotations?: unknown }).annotations).toBeUndefined();
    expect((spec(gw).listeners as { tls?: unknown }[])[0].tls).toEqual({
      mode: "Terminate",
      options: { "networking.gke.io/pre-shared-certs": "shop-cert,api-cert" },
    });
    expect(result.resources.filter((r) => r.type.startsWith("gcp:certificatemanager"))).toEqual([]);
  });

  test("Traefik and ingress-nginx need an ACME account for their certificates", () => {
    expect(() => config({ ingress: { kind: "traefik" }, apps: [shop] })).toThrow(
      /platform:ingress.acme: is missing/,
    );
  });
});

describe("DNS-01 with Workload Identity", () => {
  test("a Google service account cert-manager impersonates; no key anywhere", async () => {
    const result = await renderPlatform({
      ingress: { kind: "traefik", acme: { ...acme, solver: "dns01" } },
      apps: [shop],
    });
    const wi = result.resources.find((r) => r.type === "gcp:serviceaccount/iAMMember:IAMMember");
    expect(wi?.inputs).toMatchObject({
      role: "roles/iam.workloadIdentityUser",
      member: "serviceAccount:acme-test.svc.id.goog[cert-manager/cert-manager]",
    });
    expect(values(release(result, "cert-manager"))).toMatchObject({
      serviceAccount: {
        annotations: { "iam.gke.io/gcp-service-account": "gke-test-dns01@acme-test.iam.gserviceaccount.com" },
      },
    });
    expect(spec(find(result, "ClusterIssuer", "letsencrypt"))).toMatchObject({
      acme: { solvers: [{ dns01: { cloudDNS: { project: "acme-test" } } }] },
    });
  });

  test("the binding waits for the cluster that makes the project's Workload Identity pool; the role binding for Resource Manager", async () => {
    const result = await renderPlatform({
      ingress: { kind: "traefik", acme: { ...acme, solver: "dns01" } },
      apps: [shop],
    });
    const wi = result.resources.find((r) => r.type === "gcp:serviceaccount/iAMMember:IAMMember");
    // IAM refuses a member of a pool that does not exist yet ("Identity Pool does not exist").
    expect(waitsFor(result, wi as RenderedResource).has("gcp:container/cluster:Cluster::gke-test")).toBe(
      true,
    );
    const role = result.resources.find(
      (r) => r.type === "gcp:projects/iAMMember:IAMMember" && r.name.includes("dns01"),
    );
    expect(role?.dependsOn).toContain("gcp:projects/service:Service::gke-test-apis-cloudresourcemanager");
  });
});

(referenceDir ? describe : describe.skip)(
  `against the pinned upstream (${referenceDir ? "reference present" : skipReason})`,
  () => {
    let all: RenderResult[];
    beforeAll(async () => {
      all = [];
      for (const mesh of meshes) {
        for (const ingress of [
          { kind: "gke-gateway" },
          { kind: "traefik", acme: { ...acme, solver: "dns01" } },
          { kind: "ingress-nginx", acme },
          { kind: "gce-ingress" },
        ]) {
          all.push(
            await renderPlatform({
              mesh: { kind: mesh },
              ingress,
              apps: [
                {
                  ...shop,
                  expose: { ...shop.expose, path: "/shop", stripPrefix: ingress.kind === "traefik" },
                },
              ],
            }),
          );
        }
      }
    });

    test("every routing object has only fields its upstream CRD defines", () => {
      const gw = "gateway-api-v1.5.1-standard/gateway.networking.k8s.io_";
      const gke = "gke-gateway-api-fc40d60/networking.gke.io_";
      const schemas: Record<string, [string, string, string]> = {
        "gateway.networking.k8s.io/v1/Gateway": [`${gw}gateways.yaml`, "Gateway", "v1"],
        "gateway.networking.k8s.io/v1/HTTPRoute": [`${gw}httproutes.yaml`, "HTTPRoute", "v1"],
        "networking.gke.io/v1/HealthCheckPolicy": [
          `${gke}healthcheckpolicies.yaml`,
          "HealthCheckPolicy",
          "v1",
        ],
        "networking.gke.io/v1/GCPBackendPolicy": [`${gke}gcpbackendpolicies.yaml`, "GCPBackendPolicy", "v1"],
        "networking.gke.io/v1/GCPGatewayPolicy": [`${gke}gcpgatewaypolicies.yaml`, "GCPGatewayPolicy", "v1"],
        "traefik.io/v1alpha1/IngressRoute": [
          "crds/traefik-chart-41.3.0.ingressroutes.yaml",
          "IngressRoute",
          "v1alpha1",
        ],
        "traefik.io/v1alpha1/Middleware": [
          "crds/traefik-chart-41.3.0.middlewares.yaml",
          "Middleware",
          "v1alpha1",
        ],
        "traefik.io/v1alpha1/ServersTransport": [
          "crds/traefik-chart-41.3.0.serverstransports.yaml",
          "ServersTransport",
          "v1alpha1",
        ],
        "cert-manager.io/v1/ClusterIssuer": [
          "crds/cert-manager-v1.21.2.clusterissuers.yaml",
          "ClusterIssuer",
          "v1",
        ],
        "cert-manager.io/v1/Certificate": [
          "crds/cert-manager-v1.21.2.certificates.yaml",
          "Certificate",
          "v1",
        ],
        "networking.gke.io/v1/ManagedCertificate": [
          "gke-managed-certs-v1.2.12/managedcertificates-crd.yaml",
          "ManagedCertificate",
          "v1",
        ],
      };
      const seen = new Set<string>();
      for (const result of all) {
        for (const r of kinds(result)) {
          const id = `${String(r.inputs.apiVersion)}/${String(r.inputs.kind)}`;
          const s = schemas[id];
          if (!s) continue;
          seen.add(id);
          expect({ id, unknown: unknownFields(r.inputs, crdSchema(...s)) }).toEqual({ id, unknown: [] });
        }
      }
      expect([...seen].sort()).toEqual(Object.keys(schemas).sort());
    });
  },
);

describe("in prod: two controllers spread across zones, one kept through a drain", () => {
  const zones = (matchLabels: Record<string, string>) =>
    ["topology.kubernetes.io/zone", "kubernetes.io/hostname"].map((topologyKey) => ({
      maxSkew: 1,
      topologyKey,
      whenUnsatisfiable: "ScheduleAnyway",
      labelSelector: { matchLabels },
    }));

  test("Traefik", async () => {
    const result = await renderPlatform({ tier: "prod", ingress: { kind: "traefik", acme }, apps: [shop] });
    expect(values(release(result, "traefik"))).toMatchObject({
      deployment: { replicas: 2 },
      podDisruptionBudget: { enabled: true, maxUnavailable: 1 },
      topologySpreadConstraints: zones({
        "app.kubernetes.io/name": "traefik",
        "app.kubernetes.io/instance": "traefik-traefik",
      }),
    });
  });

  test("ingress-nginx (its chart renders the budget for two or more replicas)", async () => {
    const result = await renderPlatform({
      tier: "prod",
      ingress: { kind: "ingress-nginx", acme },
      apps: [shop],
    });
    expect(values(release(result, "ingress-nginx"))).toMatchObject({
      controller: {
        replicaCount: 2,
        topologySpreadConstraints: zones({
          "app.kubernetes.io/name": "ingress-nginx",
          "app.kubernetes.io/instance": "ingress-nginx",
          "app.kubernetes.io/component": "controller",
        }),
      },
    });
  });

  test("sizing.ingressController sets replicas and resources", async () => {
    const result = await renderPlatform({
      tier: "prod",
      ingress: { kind: "traefik", acme },
      apps: [shop],
      sizing: { ingressController: { replicas: 4, cpu: "250m", memoryLimit: "1Gi" } },
    });
    expect(values(release(result, "traefik"))).toMatchObject({
      deployment: { replicas: 4 },
      resources: { requests: { cpu: "250m", memory: "128Mi" }, limits: { memory: "1Gi" } },
    });
  });
});
