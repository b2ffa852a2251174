import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as YAML from "yaml";
import { HelmTemplater, findHelm, objectSetOf } from "../../lib/cluster";
import { gatewayApi, supportedKubernetes } from "../../lib/versions";
import { ConfigError } from "../../lib/config";
import { gkeKubeconfig } from "../../lib/gcp";
import { clusterInputOf, viewsOf, type RenderResult } from "../../lib/render";
import { chartsDir, chartsProblem } from "../upstream/reference";
import { checkInvariants } from "../../lib/safety";
import { RELEASE, find as object, release, renderPlatform, values, waitsFor } from "../helpers";

describe("Linkerd with cert-manager, dev", () => {
  let result: RenderResult;
  beforeAll(async () => {
    result = await renderPlatform({
      tier: "dev",
      mesh: { kind: "linkerd" },
      monitoring: { backend: "prometheus" },
    });
  });

  test("charts come pinned from their repositories; Linkerd from the edge channel", () => {
    const pins = result.resources
      .filter((r) => r.type === RELEASE)
      .map((r) => [
        r.inputs.name,
        (r.inputs.repositoryOpts as { repo: string }).repo,
        r.inputs.chart,
        r.inputs.version,
      ]);
    expect(pins).toEqual(
      expect.arrayContaining([
        ["cert-manager", "https://charts.jetstack.io", "cert-manager", "v1.21.2"],
        ["trust-manager", "https://charts.jetstack.io", "trust-manager", "v0.24.0"],
        ["linkerd-crds", "https://helm.linkerd.io/edge", "linkerd-crds", "2026.8.3"],
        ["linkerd-control-plane", "https://helm.linkerd.io/edge", "linkerd-control-plane", "2026.8.3"],
        [
          "kube-prometheus-stack",
          "https://prometheus-community.github.io/helm-charts",
          "kube-prometheus-stack",
          "88.5.3",
        ],
      ]),
    );
  });

  test("linkerd-crds has every Gateway API flag off while GKE owns the Gateway API", () => {
    expect(values(release(result, "linkerd-crds"))).toEqual({
      installGatewayAPI: false,
      enableHttpRoutes: false,
      enableTlsRoutes: false,
      enableTcpRoutes: false,
    });
  });

  test("the control plane takes identity from cert-manager, runs proxies as native sidecars, every container sized", () => {
    // values-ha.yaml's numbers, in every tier; one replica of each controller outside prod.
    const controller = { cpu: { request: "100m", limit: "" }, memory: { request: "50Mi", limit: "250Mi" } };
    expect(values(release(result, "linkerd-control-plane"))).toEqual({
      identity: { externalCA: true, issuer: { scheme: "kubernetes.io/tls" } },
      proxy: {
        nativeSidecar: true,
        resources: { cpu: { request: "100m", limit: "" }, memory: { request: "20Mi", limit: "250Mi" } },
      },
      // linkerd-cni on Standard: no NET_ADMIN init container, so app namespaces enforce restricted.
      cniEnabled: true,
      // No heartbeat CronJob phoning versioncheck.linkerd.io.
      disableHeartBeat: true,
      // The default network's pod and Service ranges.
      clusterNetworks: "10.4.0.0/14,10.8.0.0/20",
      // Webhook certificates from cert-manager, their CA bundles written by cainjector.
      proxyInjector: { externalSecret: true, injectCaFrom: "linkerd/linkerd-proxy-injector" },
      profileValidator: { externalSecret: true, injectCaFrom: "linkerd/linkerd-sp-validator" },
      policyValidator: { externalSecret: true, injectCaFrom: "linkerd/linkerd-policy-validator" },
      destinationResources: controller,
      spValidatorResources: controller,
      // Probes from the node and pod ranges only, not every address.
      policyController: { resources: controller, probeNetworks: ["10.0.0.0/20", "10.4.0.0/14"] },
      identityResources: controller,
      proxyInjectorResources: controller,
      heartbeatResources: controller,
      controllerReplicas: 1,
    });
  });

  test("each webhook's serving certificate is a cert-manager Certificate the chart's pods mount, renewed a month early", () => {
    const cert = (name: string) => object(result, "Certificate", name, "linkerd");
    for (const [name, secret] of [
      ["linkerd-proxy-injector", "linkerd-proxy-injector-k8s-tls"],
      ["linkerd-sp-validator", "linkerd-sp-validator-k8s-tls"],
      ["linkerd-policy-validator", "linkerd-policy-validator-k8s-tls"],
    ]) {
      expect(cert(name).inputs.spec).toEqual({
        secretName: secret,
        issuerRef: { name: "linkerd-webhook-issuer", kind: "Issuer", group: "cert-manager.io" },
        commonName: `${name}.linkerd.svc`,
        dnsNames: [`${name}.linkerd.svc`],
        duration: "2160h0m0s",
        renewBefore: "720h0m0s",
        privateKey: { algorithm: "ECDSA", size: 256, rotationPolicy: "Always" },
        usages: ["server auth"],
      });
      // The control plane mounts the Secret without optional: it installs only once the Secret is written.
      expect((cert(name).inputs.metadata as { annotations: Record<string, string> }).annotations).toEqual({
        "pulumi.com/waitFor": "condition=Ready",
      });
      expect(release(result, "linkerd-control-plane").dependsOn).toContain(cert(name).key);
    }
    // The webhooks' CA: self-signed in the namespace, renewed with the same key so served certificates keep verifying.
    expect(object(result, "Issuer", "linkerd-webhook-issuer", "linkerd").inputs.spec).toEqual({
      ca: { secretName: "linkerd-webhook-ca" },
    });
    expect(cert("linkerd-webhook-ca").inputs.spec).toMatchObject({
      isCA: true,
      issuerRef: { name: "linkerd-webhook-selfsigned", kind: "Issuer" },
      privateKey: { rotationPolicy: "Never" },
    });
    expect(object(result, "Issuer", "linkerd-webhook-selfsigned", "linkerd").inputs.spec).toEqual({
      selfSigned: {},
    });
    expect(cert("linkerd-webhook-ca").dependsOn).toContain(release(result, "cert-manager").key);
  });

  test("cert-manager and trust-manager own and keep their CRDs, sized, one replica each outside prod", () => {
    const sized = (cpu: string, memory: string, limit: string) => ({
      requests: { cpu, memory },
      limits: { memory: limit },
    });
    expect(values(release(result, "cert-manager"))).toEqual({
      replicaCount: 1,
      resources: sized("50m", "128Mi", "512Mi"),
      webhook: { replicaCount: 1, resources: sized("10m", "32Mi", "128Mi") },
      cainjector: { replicaCount: 1, resources: sized("10m", "64Mi", "256Mi") },
      startupapicheck: { resources: sized("10m", "32Mi", "128Mi") },
      crds: { enabled: true, keep: true },
      global: { rbac: { aggregateClusterRoles: false } },
    });
    expect(values(release(result, "trust-manager"))).toEqual({
      // 10250: a private control plane reaches nodes only on 443 and 10250.
      app: { trust: { namespace: "cert-manager" }, webhook: { port: 10250 } },
      replicaCount: 1,
      resources: sized("25m", "64Mi", "256Mi"),
      // No default CA package: the platform's Bundles name their own roots only.
      defaultPackage: { enabled: false },
      crds: { enabled: true, keep: true },
    });
  });

  test("releases that carry CRDs are retained on delete; the control plane is not", () => {
    const retained = (name: string) => release(result, name).options.retainOnDelete;
    expect(["cert-manager", "trust-manager", "linkerd-crds"].map(retained)).toEqual([true, true, true]);
    expect(retained("linkerd-control-plane")).toBe(false);
    // kube-prometheus-stack carries none: its CRD chart applies them, each CRD retained (test/addons/crdCharts.test.ts).
    expect(retained("kube-prometheus-stack")).toBe(false);
    expect(release(result, "kube-prometheus-stack").inputs.skipCrds).toBe(true);
  });

  test("order: the control plane waits for its CRDs, the issuer Certificate and the trust roots Bundle", () => {
    const cp = release(result, "linkerd-control-plane");
    expect(cp.dependsOn).toEqual(
      expect.arrayContaining([
        release(result, "linkerd-crds").key,
        object(result, "Certificate", "linkerd-identity-issuer").key,
        object(result, "Bundle", "linkerd-identity-trust-roots").key,
      ]),
    );
  });

  test("order: the control plane starts once GKE serves the route CRDs its policy controller looks for at start", () => {
    const job = object(result, "Job", "linkerd-route-crds", "linkerd");
    expect(release(result, "linkerd-control-plane").dependsOn).toContain(job.key);
    const pod = (job.inputs.spec as { template: { spec: Record<string, unknown> } }).template.spec;
    const crds = ["crd/httproutes.gateway.networking.k8s.io", "crd/grpcroutes.gateway.networking.k8s.io"];
    expect(pod.initContainers).toEqual([
      expect.objectContaining({
        name: "created",
        image: "registry.k8s.io/kubectl:v1.35.0",
        args: ["wait", "--for=create", "--timeout=9m", ...crds],
      }),
    ]);
    expect(pod.containers).toEqual([
      expect.objectContaining({
        name: "served",
        args: ["wait", "--for=condition=Established", "--timeout=1m", ...crds],
      }),
    ]);
    // It runs once its ServiceAccount may read those two CRDs, and nothing else.
    expect(waitsFor(result, job)).toContain(object(result, "ClusterRoleBinding", "linkerd-route-crds").key);
    expect(object(result, "ClusterRole", "linkerd-route-crds").inputs.rules).toEqual([
      {
        apiGroups: ["apiextensions.k8s.io"],
        resources: ["customresourcedefinitions"],
        resourceNames: ["httproutes.gateway.networking.k8s.io", "grpcroutes.gateway.networking.k8s.io"],
        verbs: ["get", "list", "watch"],
      },
    ]);
  });

  test("order: identity objects wait for cert-manager, the Bundle for trust-manager, linkerd-crds for its namespace", () => {
    expect(object(result, "Certificate", "linkerd-trust-anchor").dependsOn).toContain(
      release(result, "cert-manager").key,
    );
    expect(object(result, "Bundle", "linkerd-identity-trust-roots").dependsOn).toContain(
      release(result, "trust-manager").key,
    );
    expect(release(result, "trust-manager").dependsOn).toContain(release(result, "cert-manager").key);
    expect(release(result, "linkerd-crds").dependsOn).toContain(object(result, "Namespace", "linkerd").key);
  });

  test("PodMonitors wait for the Prometheus Operator CRD owner, not for the control plane", () => {
    const monitor = object(result, "PodMonitor", "linkerd-proxy");
    expect(monitor.dependsOn).toContain(release(result, "kube-prometheus-stack").key);
    expect(monitor.dependsOn).not.toContain(release(result, "linkerd-control-plane").key);
    expect((monitor.inputs.metadata as { labels: Record<string, string> }).labels).toMatchObject({
      release: "kube-prometheus-stack",
    });
  });

  test("cert-manager keeps the chart's leader election namespace on Standard", () => {
    expect(values(release(result, "cert-manager"))).not.toHaveProperty(["global", "leaderElection"]);
  });

  test("cert-manager's roles are not aggregated into edit and admin: a namespace editor cannot ask the mesh's issuers for a CA", () => {
    expect(values(release(result, "cert-manager"))).toMatchObject({
      global: { rbac: { aggregateClusterRoles: false } },
    });
  });
});

// The pinned charts as a real helm templates them: skipped where helm or the charts are missing, the reason in
// the title (test/skips.js; CI=true fails a skip).
const helm = findHelm();
const noHelm = [
  ...(helm ? [] : ["no helm binary (set HELM, or run .ci/run, which builds one)"]),
  ...(chartsProblem ? [chartsProblem] : []),
].join("; ");
const withHelm = noHelm ? test.skip : test;

withHelm(
  `the heartbeat is off: helm renders no CronJob or RBAC of it from linkerd-control-plane, unless an override turns it on${noHelm ? ` (skipped: ${noHelm})` : ""}`,
  async () => {
    const templater = new HelmTemplater(helm ?? "", 2);
    const cronJobs = async (environment: Record<string, unknown>) => {
      const result = await renderPlatform({ mesh: { kind: "linkerd" }, ...environment });
      const input = clusterInputOf("heartbeat", "dev", result);
      // Only the control plane's release is templated: the others do not bear on it.
      const releases = input.releases.filter((r) => r.name === "linkerd-control-plane");
      const set = await objectSetOf(
        { ...input, releases },
        {
          templater,
          chartsDir: chartsDir ?? "",
          kubeVersion: supportedKubernetes.highest,
        },
      );
      const controlPlane = set.releases.find((r) => r.name === "linkerd-control-plane");
      expect(controlPlane?.error).toBeUndefined();
      return set.objects
        .filter((o) => set.releaseOf.get(o) === controlPlane && /heartbeat/.test(o.metadata.name))
        .map((o) => `${o.kind} ${o.metadata.name}`)
        .sort();
    };
    expect(await cronJobs({})).toEqual([]);
    // The platform's value is the chart's switch: an override (platform:overrides.charts) brings back the
    // CronJob and its RBAC (templates/heartbeat.yaml, heartbeat-rbac.yaml at 2026.8.3).
    expect(
      await cronJobs({
        overrides: { charts: { "linkerd-control-plane": { values: { disableHeartBeat: false } } } },
      }),
    ).toEqual([
      "ClusterRole linkerd-heartbeat",
      "ClusterRoleBinding linkerd-heartbeat",
      "CronJob linkerd-heartbeat",
      "Role linkerd-heartbeat",
      "RoleBinding linkerd-heartbeat",
      "ServiceAccount linkerd-heartbeat",
    ]);
  },
  120_000,
);

describe("options", () => {
  test("prod: HA control plane, all of Linkerd's values-ha.yaml", async () => {
    const result = await renderPlatform({ tier: "prod", mesh: { kind: "linkerd" } });
    expect(values(release(result, "linkerd-control-plane"))).toMatchObject({
      controllerReplicas: 3,
      enablePodAntiAffinity: true,
      enablePodDisruptionBudget: true,
      controller: { podDisruptionBudget: { maxUnavailable: 1 } },
      deploymentStrategy: { rollingUpdate: { maxUnavailable: 1, maxSurge: "25%" } },
      webhookFailurePolicy: "Fail",
      highAvailability: true,
    });
    // cert-manager's best practice: controller 2, webhook 3, cainjector 2, each kept through a drain and spread.
    const cm = values(release(result, "cert-manager")) as Record<string, Record<string, unknown>>;
    expect([cm.replicaCount, cm.webhook.replicaCount, cm.cainjector.replicaCount]).toEqual([2, 3, 2]);
    expect(cm.podDisruptionBudget).toEqual({ enabled: true, maxUnavailable: 1 });
    expect(cm.webhook.topologySpreadConstraints).toEqual([
      {
        maxSkew: 1,
        topologyKey: "topology.kubernetes.io/zone",
        whenUnsatisfiable: "ScheduleAnyway",
        labelSelector: {
          matchLabels: {
            "app.kubernetes.io/name": "webhook",
            "app.kubernetes.io/instance": "cert-manager",
            "app.kubernetes.io/component": "webhook",
          },
        },
      },
      {
        maxSkew: 1,
        topologyKey: "kubernetes.io/hostname",
        whenUnsatisfiable: "ScheduleAnyway",
        labelSelector: {
          matchLabels: {
            "app.kubernetes.io/name": "webhook",
            "app.kubernetes.io/instance": "cert-manager",
            "app.kubernetes.io/component": "webhook",
          },
        },
      },
    ]);
    expect(values(release(result, "trust-manager"))).toMatchObject({
      replicaCount: 2,
      podDisruptionBudget: { enabled: true, maxUnavailable: 1 },
    });
  });

  test("sizing is tunable per environment: the proxy's memory, the controllers' replicas", async () => {
    const result = await renderPlatform({
      tier: "prod",
      mesh: { kind: "linkerd" },
      sizing: { proxy: { memory: "64Mi", memoryLimit: "512Mi" }, linkerdControlPlane: { replicas: 5 } },
    });
    expect(values(release(result, "linkerd-control-plane"))).toMatchObject({
      proxy: {
        resources: { cpu: { request: "100m", limit: "" }, memory: { request: "64Mi", limit: "512Mi" } },
      },
      controllerReplicas: 5,
    });
  });

  test("Autopilot: cert-manager elects its leader in its own namespace; no node-exporter", async () => {
    const result = await renderPlatform({
      cluster: { mode: "autopilot" },
      mesh: { kind: "linkerd" },
      monitoring: { backend: "prometheus" },
    });
    expect(values(release(result, "cert-manager"))).toMatchObject({
      global: { leaderElection: { namespace: "cert-manager" } },
    });
    expect(values(release(result, "kube-prometheus-stack"))).toMatchObject({
      nodeExporter: { enabled: false },
      // Its rules would query an exporter that is not there.
      defaultRules: {
        rules: { windows: false, nodeExporterAlerting: false, nodeExporterRecording: false, node: false },
      },
    });
  });

  test("namespaces that hold retained releases are retained too", async () => {
    const result = await renderPlatform({ mesh: { kind: "linkerd" }, monitoring: { backend: "prometheus" } });
    const retained = (n: string) => object(result, "Namespace", n).options.retainOnDelete;
    expect(["cert-manager", "linkerd", "monitoring"].map(retained)).toEqual([true, true, true]);
  });

  test("dashboard: linkerd-viz reads the stack's Prometheus, not its own", async () => {
    const result = await renderPlatform({
      mesh: { kind: "linkerd", dashboard: true },
      monitoring: { backend: "prometheus" },
    });
    const resources = { cpu: { request: "100m", limit: "" }, memory: { request: "50Mi", limit: "250Mi" } };
    expect(values(release(result, "linkerd-viz"))).toEqual({
      linkerdNamespace: "linkerd",
      prometheus: { enabled: false },
      prometheusUrl: "http://kube-prometheus-stack-prometheus.monitoring.svc.cluster.local:9090",
      createNamespaceMetadataJob: false,
      metricsAPI: { resources },
      tap: { resources, replicas: 1, externalSecret: true, injectCaFrom: "linkerd-viz/tap" },
      tapInjector: { resources, externalSecret: true, injectCaFrom: "linkerd-viz/tap-injector" },
      dashboard: { resources },
    });
    // What viz's CLI install annotates: `linkerd viz check` finds the external Prometheus there.
    expect(object(result, "Namespace", "linkerd-viz").inputs.metadata).toMatchObject({
      annotations: {
        "viz.linkerd.io/external-prometheus":
          "http://kube-prometheus-stack-prometheus.monitoring.svc.cluster.local:9090",
      },
    });
    for (const [name, secret] of [
      ["tap", "tap-k8s-tls"],
      ["tap-injector", "tap-injector-k8s-tls"],
    ]) {
      const cert = object(result, "Certificate", name, "linkerd-viz");
      expect(cert.inputs.spec).toMatchObject({
        secretName: secret,
        issuerRef: { name: "linkerd-webhook-issuer", kind: "Issuer" },
        dnsNames: [`${name}.linkerd-viz.svc`],
      });
      expect(release(result, "linkerd-viz").dependsOn).toContain(cert.key);
    }
    expect(object(result, "Issuer", "linkerd-webhook-issuer", "linkerd-viz").inputs.spec).toEqual({
      ca: { secretName: "linkerd-webhook-ca" },
    });
  });

  test("linkerd-cni on GKE: binaries in /home/kubernetes/bin, control plane with cniEnabled", async () => {
    const result = await renderPlatform({ mesh: { kind: "linkerd", cni: true } });
    const resources = { cpu: { request: "10m", limit: "" }, memory: { request: "32Mi", limit: "128Mi" } };
    expect(values(release(result, "linkerd-cni"))).toEqual({
      destCNIBinDir: "/home/kubernetes/bin",
      destCNINetDir: "/etc/cni/net.d",
      resources,
      repairController: { resources },
    });
    expect(values(release(result, "linkerd-control-plane"))).toMatchObject({ cniEnabled: true });
    expect(release(result, "linkerd-control-plane").dependsOn).toContain(release(result, "linkerd-cni").key);
  });

  test("without native sidecars the control plane is told so", async () => {
    const result = await renderPlatform({ mesh: { kind: "linkerd", nativeSidecars: false } });
    expect(values(release(result, "linkerd-control-plane"))).toMatchObject({
      proxy: { nativeSidecar: false },
    });
  });

  test("app namespaces are meshed and wait only for the control plane", async () => {
    const result = await renderPlatform({
      mesh: { kind: "linkerd", dashboard: true },
      apps: [{ name: "shop", image: "shop:1", port: 8080 }],
    });
    const ns = object(result, "Namespace", "shop");
    expect((ns.inputs.metadata as { annotations: Record<string, string> }).annotations).toMatchObject({
      "linkerd.io/inject": "enabled",
    });
    expect(ns.dependsOn).toEqual([release(result, "linkerd-control-plane").key]);
  });

  test("no mesh: no cert-manager, no Linkerd", async () => {
    const result = await renderPlatform({ mesh: { kind: "none" }, monitoring: { backend: "none" } });
    expect(result.resources.filter((r) => r.type === RELEASE)).toEqual([]);
  });
});

describe("Gateway API bundle owned by the platform", () => {
  // Made when the tests run, not when the file is read: a filtered run that skips them leaves nothing.
  let dir = "";
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-api-"));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const crd = (name: string, version: string, channel = "standard") => ({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: {
      name,
      annotations: {
        "gateway.networking.k8s.io/bundle-version": version,
        "gateway.networking.k8s.io/channel": channel,
      },
    },
    spec: {
      group: "gateway.networking.k8s.io",
      names: { kind: "X", plural: name.split(".")[0] },
      scope: "Namespaced",
      versions: [],
    },
  });
  const write = (file: string, docs: unknown[]) => {
    fs.writeFileSync(path.join(dir, file), docs.map((d) => YAML.stringify(d)).join("---\n"));
    return path.join(dir, file);
  };
  const base = {
    cluster: { gatewayApi: "disabled" },
    ingress: { kind: "traefik" },
    mesh: { kind: "linkerd" },
  };

  test("each CRD is its own resource, retained on delete, and linkerd-crds waits for them", async () => {
    const file = write("ok.yaml", [
      crd("httproutes.gateway.networking.k8s.io", gatewayApi.version),
      crd("gateways.gateway.networking.k8s.io", gatewayApi.version),
    ]);
    const result = await renderPlatform({ ...base, crds: { gatewayApiBundleFile: file } });
    const crds = result.resources.filter(
      (r) => r.type === "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition",
    );
    expect(crds.map((r) => [(r.inputs.metadata as { name: string }).name, r.options.retainOnDelete])).toEqual(
      [
        ["httproutes.gateway.networking.k8s.io", true],
        ["gateways.gateway.networking.k8s.io", true],
      ],
    );
    expect(release(result, "linkerd-crds").dependsOn).toEqual(expect.arrayContaining(crds.map((r) => r.key)));
    // The platform applies them itself before the control plane: nothing to wait for in the cluster.
    expect(result.resources.filter((r) => r.inputs.kind === "Job")).toEqual([]);
    // The bundle's CRDs are one owner of the Gateway API, however many objects it has.
    expect(checkInvariants(viewsOf(result))).toEqual([]);
  });

  test("a bundle of another version or the experimental channel is refused", async () => {
    const file = write("old.yaml", [crd("httproutes.gateway.networking.k8s.io", "v1.4.0")]);
    await expect(renderPlatform({ ...base, crds: { gatewayApiBundleFile: file } })).rejects.toThrow(
      ConfigError,
    );
    const experimental = write("exp.yaml", [
      crd("httproutes.gateway.networking.k8s.io", gatewayApi.version, "experimental"),
    ]);
    await expect(renderPlatform({ ...base, crds: { gatewayApiBundleFile: experimental } })).rejects.toThrow(
      `CRD httproutes.gateway.networking.k8s.io is bundle ${gatewayApi.version} channel experimental`,
    );
  });
});

test("the proxies' cluster networks are the pod and Service ranges the platform made, not every private range", async () => {
  const result = await renderPlatform({
    network: { podsCidr: "100.64.0.0/14", servicesCidr: "100.68.0.0/20" },
  });
  expect(values(release(result, "linkerd-control-plane")).clusterNetworks).toBe(
    "100.64.0.0/14,100.68.0.0/20",
  );
  // A cluster found by name adds the ranges GKE reports (clusterIpv4Cidr and servicesIpv4Cidr, read at deploy;
  // offline, the mock's placeholders name them) to the chart's private ranges: its Service range may lie
  // outside every private one, and pod ranges GKE lists elsewhere (additional, per node pool) stay covered.
  const existing = await renderPlatform({
    cluster: { mode: "existing", existing: { name: "shared", location: "europe-west1" } },
  });
  expect(values(release(existing, "linkerd-control-plane")).clusterNetworks).toBe(
    "10.0.0.0/8,100.64.0.0/10,172.16.0.0/12,192.168.0.0/16,fd00::/8," +
      "<known after deploy, shared pod range>,<known after deploy, shared Service range>",
  );
  // A cluster known by kubeconfig only has no ranges the platform can read: the chart's default stays.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kubeconfig-"));
  try {
    const file = path.join(dir, "config");
    fs.writeFileSync(
      file,
      gkeKubeconfig({ contextName: "kind-dev", endpoint: "127.0.0.1:6443", caCertificate: "Q0E=" }),
    );
    const byFile = await renderPlatform({
      cluster: { mode: "existing", existing: { kubeconfigPath: file } },
    });
    expect(values(release(byFile, "linkerd-control-plane"))).not.toHaveProperty("clusterNetworks");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("tracing: proxies and controllers export to the user's OpenTelemetry collector", async () => {
  const result = await renderPlatform({
    mesh: {
      kind: "linkerd",
      tracing: {
        collectorEndpoint: "collector.tracing.svc.cluster.local:4317",
        serviceAccount: "collector",
        namespace: "tracing",
      },
    },
  });
  expect(values(release(result, "linkerd-control-plane"))).toMatchObject({
    proxy: {
      nativeSidecar: true,
      tracing: {
        enabled: true,
        collector: {
          endpoint: "collector.tracing.svc.cluster.local:4317",
          meshIdentity: { serviceAccountName: "collector", namespace: "tracing" },
        },
      },
    },
    controller: { tracing: { enabled: true } },
  });
});

test("namespaces without meshed pods are outside Linkerd's webhooks; meshed ones and Istio's are not touched", async () => {
  const labelsOf = (r: RenderResult, n: string) =>
    (object(r, "Namespace", n).inputs.metadata as { labels?: Record<string, string> }).labels ?? {};
  const shop = { name: "shop", image: "shop:1", port: 8080, expose: { host: "shop.example.com" } };
  const linkerd = await renderPlatform({
    tier: "prod",
    mesh: { kind: "linkerd" },
    monitoring: { backend: "prometheus" },
    apps: [shop],
  });
  // Every Linkerd webhook's namespaceSelector skips this label (charts/linkerd-control-plane/values.yaml).
  for (const n of ["monitoring", "cert-manager", "gateway"])
    expect(labelsOf(linkerd, n)).toMatchObject({ "config.linkerd.io/admission-webhooks": "disabled" });
  expect(labelsOf(linkerd, "shop")).not.toHaveProperty("config.linkerd.io/admission-webhooks");
  // Istio's webhooks select by opt-in labels only: nothing to exclude.
  const istio = await renderPlatform({ tier: "prod", mesh: { kind: "istio" }, apps: [shop] });
  for (const n of ["monitoring", "cert-manager", "gateway"])
    expect(labelsOf(istio, n)).not.toHaveProperty("config.linkerd.io/admission-webhooks");
});
