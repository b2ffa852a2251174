import * as YAML from "yaml";
import { ConfigError } from "../../lib/config";
import { istioBaseVersion } from "../../lib/meshes";
import type { RenderResult, RenderedResource } from "../../lib/render";
import { RELEASE, config, find, plan, problems, release, renderPlatform, values, input } from "../helpers";
import { crdSchema, readReference, referenceDir, skipReason, unknownFields } from "../upstream/reference";

type Obj = Record<string, unknown>;
const shop = { name: "shop", image: "hello:2", port: 8080, expose: { host: "shop.example.com" } };

const spec = (r: RenderedResource) => r.inputs.spec as Record<string, unknown>;
const labels = (r: RenderedResource) =>
  (r.inputs.metadata as { labels?: Record<string, string> }).labels ?? {};

describe("Istio, sidecar mode, dev", () => {
  let result: RenderResult;
  beforeAll(async () => {
    result = await renderPlatform({
      mesh: { kind: "istio" },
      monitoring: { backend: "prometheus" },
      apps: [shop],
    });
  });

  test("istiod: GKE platform, its CA off and istio-csr's address, Gateway API on, native sidecars forced", () => {
    expect(values(release(result, "istiod"))).toEqual({
      // Images, the sidecars' too, from Docker Hub: the published 1.30 charts name registry.istio.io, retired in December 2026.
      hub: "docker.io/istio",
      global: {
        hub: "docker.io/istio",
        platform: "gke",
        caAddress: "cert-manager-istio-csr.cert-manager.svc:443",
        // No istio-reader ClusterRole: it would let a ServiceAccount no pod runs as read every Secret.
        enableReaderRBAC: false,
        // Every sidecar: the chart's requests and memory limit, no CPU limit.
        proxy: { resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "1024Mi" } } },
      },
      env: { ENABLE_CA_SERVER: "false", PILOT_ENABLE_GATEWAY_API: "true", ENABLE_NATIVE_SIDECARS: "true" },
      // istio-cni on Standard: injected pods get istio-validation instead of istio-init (no NET_ADMIN).
      cni: { enabled: true },
      // The chart's autoscaler owns the replica count; one outside prod.
      autoscaleMin: 1,
      resources: { requests: { cpu: "500m", memory: "2048Mi" }, limits: { memory: "4096Mi" } },
      // Pod Security restricted needs one; the chart sets none.
      seccompProfile: { type: "RuntimeDefault" },
    });
  });

  test("istio-csr signs with the platform's istio-ca Issuer for the default revision, its roots pinned", () => {
    const csr = release(result, "cert-manager-istio-csr");
    expect(csr.inputs.namespace).toBe("cert-manager");
    expect(values(csr)).toEqual({
      replicaCount: 1,
      resources: { requests: { cpu: "50m", memory: "64Mi" }, limits: { memory: "256Mi" } },
      app: {
        certmanager: {
          namespace: "istio-system",
          issuer: { name: "istio-ca", kind: "Issuer", group: "cert-manager.io" },
        },
        tls: { trustDomain: "cluster.local", rootCAFile: "/var/run/secrets/istio-csr/ca.pem" },
        server: { clusterID: "Kubernetes" },
        istio: { revisions: ["default"], namespace: "istio-system" },
      },
      volumes: [{ name: "root-ca", configMap: { name: "istio-trust-roots" } }],
      volumeMounts: [{ name: "root-ca", mountPath: "/var/run/secrets/istio-csr", readOnly: true }],
    });
  });

  test("the chain: a root in cert-manager's namespace, an intermediate in istio-system signing workloads", () => {
    // The Issuer istio-csr uses signs from the intermediate, never from the root.
    expect(spec(find(result, "Issuer", "istio-ca", "istio-system"))).toEqual({
      ca: { secretName: "istio-intermediate-ca" },
    });
    expect(spec(find(result, "Certificate", "istio-intermediate-ca", "istio-system"))).toEqual({
      secretName: "istio-intermediate-ca",
      issuerRef: { name: "istio-root-ca", kind: "ClusterIssuer", group: "cert-manager.io" },
      isCA: true,
      commonName: "istio-intermediate-ca.cluster.local",
      duration: "8760h0m0s",
      renewBefore: "720h0m0s",
      privateKey: { algorithm: "ECDSA", size: 256, rotationPolicy: "Always" },
      usages: ["cert sign", "crl sign"],
    });
    expect(spec(find(result, "ClusterIssuer", "istio-root-ca"))).toEqual({
      ca: { secretName: "istio-root-ca" },
    });
    // The root's key lives only in cert-manager's namespace, renewed with the same key and subject.
    expect(spec(find(result, "Certificate", "istio-root-ca", "cert-manager"))).toEqual({
      secretName: "istio-root-ca",
      issuerRef: { name: "istio-root-selfsigned", kind: "Issuer", group: "cert-manager.io" },
      isCA: true,
      commonName: "istio-ca.cluster.local",
      duration: "87600h0m0s",
      renewBefore: "8760h0m0s",
      privateKey: { algorithm: "ECDSA", size: 256, rotationPolicy: "Never" },
    });
    expect(spec(find(result, "Issuer", "istio-root-selfsigned", "cert-manager"))).toEqual({ selfSigned: {} });
    const inIstioSystem = result.resources
      .filter((r) => (r.inputs.metadata as { namespace?: string } | undefined)?.namespace === "istio-system")
      .map((r) => [r.inputs.kind, (r.inputs.spec as { secretName?: string } | undefined)?.secretName]);
    expect(inIstioSystem).not.toContainEqual(["Certificate", "istio-root-ca"]);
  });

  test("trust-manager copies the root's certificate, never its key, into the ConfigMap istio-csr mounts", () => {
    const bundle = find(result, "Bundle", "istio-trust-roots");
    expect(spec(bundle)).toEqual({
      sources: [{ secret: { name: "istio-root-ca", key: "tls.crt" } }],
      target: {
        configMap: { key: "ca.pem" },
        namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "cert-manager" } },
      },
    });
    expect((bundle.inputs.metadata as { annotations: Record<string, string> }).annotations).toEqual({
      "pulumi.com/waitFor": "condition=Synced",
    });
    expect(bundle.dependsOn).toContain(release(result, "trust-manager").key);
    expect(release(result, "cert-manager-istio-csr").dependsOn).toEqual(
      expect.arrayContaining([
        bundle.key,
        find(result, "Certificate", "istio-intermediate-ca", "istio-system").key,
      ]),
    );
  });

  test("order: the CA, then istio-csr, then istiod; base (the CRDs, kept) before istiod", () => {
    const csr = release(result, "cert-manager-istio-csr");
    const istiod = release(result, "istiod");
    expect(csr.dependsOn).toEqual(
      expect.arrayContaining([
        release(result, "cert-manager").key,
        find(result, "Issuer", "istio-ca", "istio-system").key,
      ]),
    );
    expect(istiod.dependsOn).toEqual(expect.arrayContaining([csr.key, release(result, "istio-base").key]));
    expect(release(result, "istio-base").options.retainOnDelete).toBe(true);
    expect(release(result, "istiod").options.retainOnDelete).toBe(false);
  });

  test("on Standard, istio-cni redirects traffic, so app namespaces enforce baseline; no ztunnel in sidecar mode", async () => {
    const releases = result.resources.filter((r) => r.type === RELEASE).map((r) => r.inputs.name);
    expect(releases).toContain("istio-cni");
    expect(releases).not.toContain("ztunnel");
    // Asked off (or on Autopilot), the proxy's init container needs NET_ADMIN: the namespace is privileged.
    const initContainer = await renderPlatform({ mesh: { kind: "istio", cni: false }, apps: [shop] });
    expect(initContainer.resources.filter((r) => r.type === RELEASE).map((r) => r.inputs.name)).not.toContain(
      "istio-cni",
    );
    expect(labels(find(initContainer, "Namespace", "shop"))).toMatchObject({
      "pod-security.kubernetes.io/enforce": "privileged",
    });
    // Without istio-cni, istio-system holds istiod alone, which with its seccomp profile fits restricted.
    expect(labels(find(initContainer, "Namespace", "istio-system"))).toMatchObject({
      "pod-security.kubernetes.io/enforce": "restricted",
    });
    expect(labels(find(result, "Namespace", "istio-system"))).toMatchObject({
      "pod-security.kubernetes.io/enforce": "privileged",
    });
  });

  test("app namespaces: istio-injection, never istio.io/rev as well; they wait for istiod", () => {
    const ns = find(result, "Namespace", "shop");
    expect(labels(ns)).toMatchObject({
      "istio-injection": "enabled",
      "pod-security.kubernetes.io/enforce": "baseline",
    });
    expect(labels(ns)).not.toHaveProperty(["istio.io/rev"]);
    expect(ns.dependsOn).toEqual([release(result, "istiod").key]);
  });

  test("mesh-wide mTLS is PERMISSIVE in dev", () => {
    expect(spec(find(result, "PeerAuthentication", "default", "istio-system"))).toEqual({
      mtls: { mode: "PERMISSIVE" },
    });
  });

  test("monitors: Istio's own sample, labelled for the platform's Prometheus", () => {
    expect(labels(find(result, "PodMonitor", "envoy-stats-monitor", "istio-system"))).toEqual({
      monitoring: "istio-proxies",
      release: "kube-prometheus-stack",
    });
    expect(spec(find(result, "ServiceMonitor", "istio-component-monitor", "istio-system"))).toMatchObject({
      endpoints: [{ port: "http-monitoring", interval: "15s" }],
    });
  });
});

describe("Istio options", () => {
  test("prod: STRICT mesh-wide, a PERMISSIVE port for apps a Google load balancer reaches, HA istiod", async () => {
    const result = await renderPlatform({ tier: "prod", mesh: { kind: "istio" }, apps: [shop] });
    expect(spec(find(result, "PeerAuthentication", "default", "istio-system"))).toEqual({
      mtls: { mode: "STRICT" },
    });
    const port = find(result, "PeerAuthentication", "shop-load-balancer", "shop");
    expect(spec(port)).toEqual({
      selector: { matchLabels: { "app.kubernetes.io/name": "shop" } },
      portLevelMtls: { "8080": { mode: "PERMISSIVE" } },
    });
    expect(port.dependsOn).toContain(release(result, "istio-base").key);
    // Plain text on that port from the load balancers only: anything else without a mesh identity is denied.
    expect(spec(find(result, "AuthorizationPolicy", "shop-load-balancer", "shop"))).toEqual({
      selector: { matchLabels: { "app.kubernetes.io/name": "shop" } },
      action: "DENY",
      rules: [
        {
          from: [{ source: { notPrincipals: ["*"], notIpBlocks: ["35.191.0.0/16", "130.211.0.0/22"] } }],
          to: [{ operation: { ports: ["8080"] } }],
        },
      ],
    });
    const istiod = values(release(result, "istiod"));
    // replicaCount is ignored while the chart's autoscaler is on: its minimum is what counts.
    expect(istiod).toMatchObject({ autoscaleMin: 2 });
    expect(istiod).not.toHaveProperty("replicaCount");
    expect(istiod).toMatchObject({
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: "topology.kubernetes.io/zone",
          whenUnsatisfiable: "ScheduleAnyway",
          labelSelector: { matchLabels: { app: "istiod", "istio.io/rev": "default" } },
        },
        {
          maxSkew: 1,
          topologyKey: "kubernetes.io/hostname",
          whenUnsatisfiable: "ScheduleAnyway",
          labelSelector: { matchLabels: { app: "istiod", "istio.io/rev": "default" } },
        },
      ],
    });
    // istio-csr signs every one-hour workload certificate: two replicas, one kept through a drain.
    expect(values(release(result, "cert-manager-istio-csr"))).toMatchObject({
      replicaCount: 2,
      podDisruptionBudget: { enabled: true, maxUnavailable: 1 },
    });
  });

  test("behind Traefik the app needs no PERMISSIVE port: Traefik is in the mesh", async () => {
    const result = await renderPlatform({
      tier: "prod",
      mesh: { kind: "istio" },
      ingress: { kind: "traefik", acme: { email: "a@example.com" } },
      apps: [shop],
    });
    expect(
      result.resources
        .filter((r) => r.inputs.kind === "PeerAuthentication")
        .map((r) => (r.inputs.metadata as { name: string }).name),
    ).toEqual(["default"]);
  });

  test("ambient on Standard: istio-cni on GKE's paths with its ResourceQuota, ztunnel on istio-csr, the ambient label", async () => {
    const result = await renderPlatform({ mesh: { kind: "istio", dataplane: "ambient" }, apps: [shop] });
    expect(values(release(result, "istio-cni"))).toEqual({
      hub: "docker.io/istio",
      global: { platform: "gke", hub: "docker.io/istio" },
      cniBinDir: "/home/kubernetes/bin",
      resourceQuotas: { enabled: true },
      resources: { requests: { cpu: "100m", memory: "100Mi" }, limits: { memory: "512Mi" } },
      profile: "ambient",
    });
    expect(values(release(result, "ztunnel"))).toEqual({
      global: { platform: "gke" },
      hub: "docker.io/istio",
      caAddress: "cert-manager-istio-csr.cert-manager.svc:443",
      profile: "ambient",
      resources: { requests: { cpu: "200m", memory: "512Mi" }, limits: { memory: "1024Mi" } },
      // Scraped by its own monitor only (monitoring is on by default).
      podLabels: { "istio-prometheus-ignore": "true" },
    });
    // istio-validation instead of istio-init for any sidecar left (Traefik's, ingress-nginx's).
    expect(values(release(result, "istiod"))).toMatchObject({ cni: { enabled: true } });
    expect(values(release(result, "istiod"))).toMatchObject({ profile: "ambient" });
    expect(values(release(result, "cert-manager-istio-csr"))).toMatchObject({
      app: { server: { caTrustedNodeAccounts: "istio-system/ztunnel" } },
    });
    expect(labels(find(result, "Namespace", "shop"))).toMatchObject({ "istio.io/dataplane-mode": "ambient" });
    expect(labels(find(result, "Namespace", "istio-system"))).toMatchObject({
      "pod-security.kubernetes.io/enforce": "privileged",
    });
    // An enrolled pod's traffic goes through ztunnel: its namespace waits for ztunnel, not only istiod.
    expect(find(result, "Namespace", "shop").dependsOn).toEqual(
      expect.arrayContaining([release(result, "istiod").key, release(result, "ztunnel").key]),
    );
  });

  test("sidecar mode on Autopilot: NET_ADMIN for istio-init; ambient and istio-cni are refused", async () => {
    const result = await renderPlatform({ cluster: { mode: "autopilot" }, mesh: { kind: "istio" } });
    expect(result.resources.find((r) => r.type === "gcp:container/cluster:Cluster")?.inputs).toMatchObject({
      allowNetAdmin: true,
    });
    expect(() =>
      config({ cluster: { mode: "autopilot" }, mesh: { kind: "istio", dataplane: "ambient" } }),
    ).toThrow(ConfigError);
    expect(() => config({ cluster: { mode: "autopilot" }, mesh: { kind: "istio", cni: true } })).toThrow(
      /Autopilot does not admit istio-cni/,
    );
  });

  test("a canary upgrade: two revisioned istiods, istio-csr for both, namespaces on the default revision", async () => {
    const result = await renderPlatform({
      mesh: {
        kind: "istio",
        istio: {
          revisions: [
            { name: "stable", version: "1.30.3" },
            { name: "canary", version: "1.30.3" },
          ],
          defaultRevision: "canary",
        },
      },
      apps: [shop],
    });
    expect(values(release(result, "istiod-stable"))).toMatchObject({ revision: "stable" });
    expect(values(release(result, "istiod-canary"))).toMatchObject({ revision: "canary" });
    expect(values(release(result, "cert-manager-istio-csr"))).toMatchObject({
      app: { istio: { revisions: ["stable", "canary"] } },
    });
    expect(values(release(result, "istio-base"))).toEqual({
      global: { enableReaderRBAC: false },
      defaultRevision: "canary",
    });
    const ns = find(result, "Namespace", "shop");
    expect(labels(ns)).toMatchObject({ "istio.io/rev": "canary" });
    expect(labels(ns)).not.toHaveProperty(["istio-injection"]);
    expect(ns.dependsOn).toEqual([release(result, "istiod-canary").key]);
  });

  test("moving to revisions keeps the unrevisioned istiod (`default`) until every namespace has moved", async () => {
    const result = await renderPlatform({
      mesh: {
        kind: "istio",
        istio: {
          revisions: [
            { name: "default", version: "1.30.3" },
            { name: "1-30-3", version: "1.30.3" },
          ],
        },
      },
      ingress: { kind: "traefik", acme: { email: "a@example.com" } },
      apps: [shop],
    });
    // The running istiod keeps its release, Service and webhooks; the revisioned one starts beside it.
    expect(values(release(result, "istiod"))).not.toHaveProperty("revision");
    expect(values(release(result, "istiod-1-30-3"))).toMatchObject({ revision: "1-30-3" });
    expect(values(release(result, "cert-manager-istio-csr"))).toMatchObject({
      app: { istio: { revisions: ["default", "1-30-3"] } },
    });
    // Namespaces and the ingress controller keep the labels the unrevisioned webhooks select.
    expect(labels(find(result, "Namespace", "shop"))).toMatchObject({ "istio-injection": "enabled" });
    expect(labels(find(result, "Namespace", "shop"))).not.toHaveProperty(["istio.io/rev"]);
    const traefik = values(release(result, "traefik")) as {
      deployment: { podLabels: Record<string, string> };
    };
    expect(traefik.deployment.podLabels).toEqual({ "sidecar.istio.io/inject": "true" });
  });

  test("Istio's CRDs follow the newest istiod, so a canary never starts on older ones", () => {
    const revisions = [
      { name: "1-30-3", version: "1.30.3" },
      { name: "1-31-0", version: "1.31.0" },
    ] as unknown as Parameters<typeof istioBaseVersion>[0]["revisions"];
    expect(istioBaseVersion({ revisions })).toBe("1.31.0");
    expect(istioBaseVersion({ revisions: revisions?.slice(0, 1) })).toBe("1.30.3");
    expect(istioBaseVersion({})).toBe("1.30.3");
  });

  test("with revisions, the ingress controllers ask the revision's webhook for a sidecar", async () => {
    // A revisioned istiod renders only the rev.* injection webhooks, which select istio.io/rev.
    const result = await renderPlatform({
      mesh: {
        kind: "istio",
        istio: { revisions: [{ name: "stable", version: "1.30.3" }], defaultRevision: "stable" },
      },
      ingress: { kind: "traefik", acme: { email: "a@example.com" } },
      apps: [shop],
    });
    const traefik = values(release(result, "traefik")) as {
      deployment: { podLabels: Record<string, string> };
    };
    expect(traefik.deployment.podLabels).toEqual({ "istio.io/rev": "stable" });
  });

  test("Managed Prometheus scrapes every istiod, revisioned or not, by app: istiod", async () => {
    const result = await renderPlatform({
      mesh: { kind: "istio", istio: { revisions: [{ name: "stable", version: "1.30.3" }] } },
      monitoring: { backend: "managed-prometheus" },
    });
    expect(find(result, "PodMonitoring", "istiod").inputs.spec).toMatchObject({
      selector: { matchLabels: { app: "istiod" } },
    });
  });

  test("a default revision that is not listed, or an unpinned version, is refused", () => {
    expect(() =>
      config({
        mesh: {
          kind: "istio",
          istio: { revisions: [{ name: "a", version: "1.30.3" }], defaultRevision: "b" },
        },
      }),
    ).toThrow(/platform:mesh.istio.defaultRevision: "b" is not one of mesh.istio.revisions/);
    expect(() =>
      config({ mesh: { kind: "istio", istio: { revisions: [{ name: "a", version: "1.99.0" }] } } }),
    ).toThrow(
      /platform:mesh.istio.revisions.0.version: "1.99.0" is neither a version this package pins nor a newer Istio within two minors/,
    );
  });

  test("Managed Prometheus: istiod and every sidecar by port", async () => {
    const result = await renderPlatform({
      mesh: { kind: "istio" },
      monitoring: { backend: "managed-prometheus" },
    });
    expect(spec(find(result, "ClusterPodMonitoring", "istio-proxies"))).toEqual({
      selector: {
        matchExpressions: [
          { key: "security.istio.io/tlsMode", operator: "Exists" },
          // Apps with metrics are scraped by their own monitor (merged metrics), once.
          { key: "istio-prometheus-ignore", operator: "DoesNotExist" },
        ],
      },
      endpoints: [{ port: 15020, path: "/stats/prometheus", interval: "15s" }],
      // Named, since without targetLabels the series would carry no pod label (pod_config.go).
      targetLabels: {
        metadata: ["namespace", "container", "pod", "top_level_controller_name", "top_level_controller_type"],
      },
    });
    // Istio's control-plane dashboard selects app="istiod", which only the pod carries here.
    expect(spec(find(result, "PodMonitoring", "istiod", "istio-system"))).toMatchObject({
      targetLabels: { fromPod: [{ from: "app", to: "app" }] },
    });
  });

  test("ambient: ztunnel has its own monitor with app=ztunnel, and the proxies' monitor leaves it alone", async () => {
    for (const backend of ["prometheus", "managed-prometheus"] as const) {
      const result = await renderPlatform({
        mesh: { kind: "istio", dataplane: "ambient" },
        monitoring: { backend },
      });
      // The envoy-stats-monitor selects pods without istio-prometheus-ignore.
      expect(values(release(result, "ztunnel"))).toMatchObject({
        podLabels: { "istio-prometheus-ignore": "true" },
      });
      if (backend === "prometheus") {
        expect(spec(find(result, "PodMonitor", "ztunnel", "istio-system"))).toEqual({
          selector: { matchLabels: { app: "ztunnel" } },
          podMetricsEndpoints: [
            {
              port: "ztunnel-stats",
              path: "/stats/prometheus",
              interval: "15s",
              relabelings: [
                { action: "replace", sourceLabels: ["__meta_kubernetes_pod_label_app"], targetLabel: "app" },
                { action: "replace", targetLabel: "job", replacement: "ztunnel" },
              ],
            },
          ],
        });
      } else {
        expect(spec(find(result, "PodMonitoring", "ztunnel", "istio-system"))).toEqual({
          selector: { matchLabels: { app: "ztunnel" } },
          endpoints: [{ port: "ztunnel-stats", path: "/stats/prometheus", interval: "15s" }],
          targetLabels: { fromPod: [{ from: "app", to: "app" }] },
        });
      }
    }
  });
});

describe("app metrics under STRICT mTLS: merged by the sidecar's agent", () => {
  const metered = { ...shop, metrics: { path: "/metrics" } };
  const podOf = (r: RenderResult) =>
    (find(r, "Deployment", "shop", "shop").inputs.spec as { template: { metadata: Record<string, unknown> } })
      .template.metadata;

  test("the pod asks for merging; the PodMonitor reaches 15020 through the proxy container's target", async () => {
    const result = await renderPlatform({ tier: "prod", mesh: { kind: "istio" }, apps: [metered] });
    // The injector moves these to pilot-agent, which scrapes the app inside the pod and serves the
    // metrics outside mTLS on 15020 (pkg/kube/inject/webhook.go applyPrometheusMerge).
    expect(podOf(result)).toMatchObject({
      labels: { "app.kubernetes.io/name": "shop", "istio-prometheus-ignore": "true" },
      annotations: {
        "prometheus.io/scrape": "true",
        "prometheus.io/port": "8080",
        "prometheus.io/path": "/metrics",
      },
    });
    const endpoint = (spec(find(result, "PodMonitor", "shop", "shop")).podMetricsEndpoints as Obj[])[0];
    expect(endpoint).toEqual({
      path: "/stats/prometheus",
      interval: "30s",
      relabelings: [
        { action: "keep", sourceLabels: ["__meta_kubernetes_pod_container_name"], regex: "istio-proxy" },
        {
          action: "replace",
          sourceLabels: ["__meta_kubernetes_pod_ip"],
          regex: "(([A-Fa-f0-9]{1,4}::?){1,7}[A-Fa-f0-9]{1,4})",
          replacement: "[$1]:15020",
          targetLabel: "__address__",
        },
        {
          action: "replace",
          sourceLabels: ["__meta_kubernetes_pod_ip"],
          regex: "((([0-9]+?)(\\.|$)){4})",
          replacement: "$1:15020",
          targetLabel: "__address__",
        },
      ],
    });
  });

  test("Managed Prometheus scrapes the agent's port by number, as GMP reaches undeclared ports", async () => {
    const result = await renderPlatform({
      tier: "prod",
      mesh: { kind: "istio" },
      monitoring: { backend: "managed-prometheus" },
      apps: [metered],
    });
    expect(spec(find(result, "PodMonitoring", "shop", "shop")).endpoints).toEqual([
      { port: 15020, path: "/stats/prometheus", interval: "30s" },
    ]);
  });

  test("with a deny-by-default namespace, no policy lets every address in: probes and scrapes pass the agent", async () => {
    const result = await renderPlatform({
      tier: "prod",
      mesh: { kind: "istio", denyByDefault: ["shop"] },
      ingress: { kind: "traefik", acme: { email: "a@example.com" } },
      apps: [metered],
    });
    const rules = spec(find(result, "AuthorizationPolicy", "shop", "shop")).rules as Obj[];
    // Only the ingress controller's identity: kubelet probes and scrapes never reach the policy.
    expect(rules).toEqual([
      {
        from: [{ source: { principals: ["cluster.local/ns/traefik/sa/traefik"] } }],
        to: [{ operation: { paths: ["/*"] } }],
      },
    ]);
  });
});

(referenceDir ? describe : describe.skip)(
  `against the pinned upstream (${referenceDir ? "reference present" : skipReason})`,
  () => {
    let all: RenderResult[];
    beforeAll(async () => {
      all = [];
      for (const mesh of [
        { kind: "istio" },
        { kind: "istio", dataplane: "ambient" },
        { kind: "istio", istio: { revisions: [{ name: "stable", version: "1.30.3" }] } },
      ]) {
        all.push(await renderPlatform({ tier: "prod", mesh, apps: [shop] }));
      }
    });

    test("PeerAuthentication, ServiceMonitor, PodMonitor and Issuer fields exist in their CRDs", () => {
      const schemas: Record<string, [string, string, string]> = {
        "security.istio.io/v1/PeerAuthentication": [
          "crds/istio-1.30.3.crd-all.gen.yaml",
          "PeerAuthentication",
          "v1",
        ],
        "monitoring.coreos.com/v1/ServiceMonitor": [
          "crds/prometheus-operator-v0.93.0.servicemonitors.yaml",
          "ServiceMonitor",
          "v1",
        ],
        "monitoring.coreos.com/v1/PodMonitor": [
          "crds/prometheus-operator-v0.93.0.podmonitors.yaml",
          "PodMonitor",
          "v1",
        ],
        "cert-manager.io/v1/Issuer": ["crds/cert-manager-v1.21.2.issuers.yaml", "Issuer", "v1"],
      };
      const seen = new Set<string>();
      for (const result of all) {
        for (const r of result.resources.filter((x) => typeof x.inputs.kind === "string")) {
          const id = `${String(r.inputs.apiVersion)}/${String(r.inputs.kind)}`;
          if (!schemas[id]) continue;
          seen.add(id);
          expect({ id, unknown: unknownFields(r.inputs, crdSchema(...schemas[id])) }).toEqual({
            id,
            unknown: [],
          });
        }
      }
      expect([...seen].sort()).toEqual(Object.keys(schemas).sort());
    });

    test("the Istio monitors equal Istio's sample for the Prometheus Operator, but for the selector label", async () => {
      const result = await renderPlatform({ mesh: { kind: "istio" }, monitoring: { backend: "prometheus" } });
      const sample = YAML.parseAllDocuments(
        readReference("istio-1.30.3.samples-addons-extras-prometheus-operator.yaml"),
      ).map((d) => d.toJS() as { kind: string; metadata: { name: string }; spec: unknown });
      for (const s of sample) {
        expect(spec(find(result, s.kind, s.metadata.name, "istio-system"))).toEqual(s.spec);
      }
    });
  },
);

describe("app metrics in ambient under STRICT mTLS: only a scraper in the mesh gets through ztunnel", () => {
  const metered = { ...shop, metrics: { path: "/metrics" } };

  test("the platform's Prometheus joins the ambient mesh by pod label and still takes Grafana's plain queries", async () => {
    const result = await renderPlatform({
      tier: "prod",
      mesh: { kind: "istio", dataplane: "ambient" },
      apps: [metered],
    });
    expect(values(release(result, "kube-prometheus-stack"))).toMatchObject({
      prometheus: {
        prometheusSpec: {
          podMetadata: { labels: { "istio.io/dataplane-mode": "ambient" }, annotations: {} },
        },
      },
    });
    const permissive = find(result, "PeerAuthentication", "prometheus-plaintext", "monitoring");
    expect(permissive.inputs.spec).toEqual({
      selector: { matchLabels: { "app.kubernetes.io/name": "prometheus" } },
      mtls: { mode: "PERMISSIVE" },
    });
    expect(permissive.dependencies).toContain(release(result, "kube-prometheus-stack").key);
    expect(permissive.dependencies).toContain(release(result, "istio-base").key);
    // No sidecar to merge through: the monitor scrapes the app's own port, which ztunnel carries over mTLS.
    expect(spec(find(result, "PodMonitor", "shop", "shop")).podMetricsEndpoints).toEqual([
      { port: "http", path: "/metrics", interval: "30s" },
    ]);
  });

  test("PERMISSIVE (dev) needs no scraper in the mesh", async () => {
    const result = await renderPlatform({ mesh: { kind: "istio", dataplane: "ambient" }, apps: [metered] });
    expect(values(release(result, "kube-prometheus-stack"))).not.toHaveProperty([
      "prometheus",
      "prometheusSpec",
      "podMetadata",
    ]);
    expect(
      result.resources.filter(
        (r) =>
          r.inputs.kind === "PeerAuthentication" && (r.inputs.metadata as Obj).namespace === "monitoring",
      ),
    ).toEqual([]);
  });

  test("Managed Prometheus's collectors cannot join: refused, with the two ways out", () => {
    expect(
      problems(
        input({
          tier: "prod",
          mesh: { kind: "istio", dataplane: "ambient" },
          monitoring: { backend: "managed-prometheus" },
          apps: [metered],
        }),
      ),
    ).toEqual([
      {
        path: "platform:monitoring.backend",
        problem:
          'is "managed-prometheus" with Istio ambient under STRICT mTLS: ztunnel refuses the plain-text scrapes Managed Prometheus\'s collectors (gmp-system, outside the mesh) make of shop/shop, so their metrics would never arrive',
        allowed:
          '"prometheus" (the platform\'s Prometheus joins the ambient mesh to scrape), or mesh.istio.mtls "PERMISSIVE"',
        fix: 'set platform:monitoring.backend to "prometheus", or platform:mesh.istio.mtls to "PERMISSIVE", or remove the apps\' metrics',
      },
    ]);
  });

  test("an existing Prometheus is the user's to enrol: a warning says how", () => {
    expect(
      plan({
        tier: "prod",
        mesh: { kind: "istio", dataplane: "ambient" },
        monitoring: { backend: "existing-prometheus", prometheusUrl: "http://prometheus.obs.svc:9090" },
        apps: [metered],
      }).warnings,
    ).toContain(
      "platform:monitoring.backend is existing-prometheus with Istio ambient under STRICT mTLS: ztunnel refuses plain-text scrapes of meshed apps, so your Prometheus's pods must be in the ambient mesh (pod label istio.io/dataplane-mode: ambient) for apps[].metrics to be scraped",
    );
  });
});

test("meshDashboards: Istio's own dashboards in Grafana, by URL at the pinned tag; ztunnel's with ambient", async () => {
  const grafanaOf = async (mesh: Record<string, unknown>) =>
    (
      values(
        release(
          await renderPlatform({ mesh, monitoring: { backend: "prometheus", meshDashboards: true } }),
          "kube-prometheus-stack",
        ),
      ) as { grafana: { dashboards: { mesh: Record<string, unknown> } } }
    ).grafana.dashboards.mesh;
  const at = "https://raw.githubusercontent.com/istio/istio/1.30.3/manifests/addons/dashboards";
  expect(await grafanaOf({ kind: "istio" })).toEqual({
    "istio-mesh": { url: `${at}/istio-mesh-dashboard.gen.json` },
    "istio-service": { url: `${at}/istio-service-dashboard.json` },
    "istio-workload": { url: `${at}/istio-workload-dashboard.json` },
    "istio-control-plane": { url: `${at}/pilot-dashboard.gen.json` },
    "istio-extensions": { url: `${at}/istio-extension-dashboard.json` },
  });
  expect(await grafanaOf({ kind: "istio", dataplane: "ambient" })).toMatchObject({
    "istio-ztunnel": { url: `${at}/ztunnel-dashboard.gen.json` },
  });
});

test("ambient: the sidecar monitor exists only where a sidecar runs (a meshed ingress controller)", async () => {
  const monitors = async (ingress: Record<string, unknown>, backend: string) =>
    (
      await renderPlatform({
        mesh: { kind: "istio", dataplane: "ambient" },
        monitoring: { backend },
        ingress,
        apps: [{ name: "shop", image: "shop:1", port: 8080, expose: { host: "shop.example.com" } }],
      })
    ).resources
      .filter((r) => ["PodMonitor", "ClusterPodMonitoring"].includes(r.inputs.kind as string))
      .map((r) => (r.inputs.metadata as { name: string }).name)
      .sort();
  const traefik = { kind: "traefik", acme: { email: "a@example.com" } };
  // cert-manager's and trust-manager's own monitors are there with any mesh (certificate expiry alerts).
  const certs = ["cert-manager", "trust-manager"];
  expect(await monitors({ kind: "gke-gateway" }, "prometheus")).toEqual([...certs, "ztunnel"]);
  expect(await monitors(traefik, "prometheus")).toEqual([
    "cert-manager",
    "envoy-stats-monitor",
    "traefik",
    "trust-manager",
    "ztunnel",
  ]);
  expect(await monitors({ kind: "gke-gateway" }, "managed-prometheus")).toEqual([]);
  expect(await monitors(traefik, "managed-prometheus")).toEqual(["istio-proxies"]);
});

test("more istiod replicas than the chart's autoscaler maximum raise the maximum with them", async () => {
  const result = await renderPlatform({
    tier: "prod",
    mesh: { kind: "istio" },
    sizing: { istiod: { replicas: 7 } },
  });
  // values.yaml autoscaleMax 5: an autoscaler with minReplicas above maxReplicas is refused.
  expect(values(release(result, "istiod"))).toMatchObject({ autoscaleMin: 7, autoscaleMax: 7 });
  const five = await renderPlatform({ tier: "prod", mesh: { kind: "istio" } });
  expect(values(release(five, "istiod"))).not.toHaveProperty("autoscaleMax");
});

test("ambient canary: ztunnel stays on the running istiod while namespaces move, and moves when it is dropped", async () => {
  const ztunnel = async (istio: Record<string, unknown>) =>
    values(
      release(await renderPlatform({ mesh: { kind: "istio", dataplane: "ambient", istio } }), "ztunnel"),
    );
  const revisions = [
    { name: "default", version: "1.30.3" },
    { name: "1-30-3", version: "1.30.3" },
  ];
  // Step 2 and step 3 (defaultRevision moved): the unrevisioned istiod still serves ztunnel.
  expect(await ztunnel({ revisions, defaultRevision: "default" })).not.toHaveProperty("revision");
  expect(await ztunnel({ revisions, defaultRevision: "1-30-3" })).not.toHaveProperty("revision");
  // Step 4: the old one dropped, ztunnel follows the new.
  expect(await ztunnel({ revisions: [revisions[1]] })).toMatchObject({ revision: "1-30-3" });
});
