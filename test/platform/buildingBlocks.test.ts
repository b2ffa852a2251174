import * as k8s from "@pulumi/kubernetes";
import { CertManager, IngressNginx, Prometheus, Traefik } from "../../lib/addons";
import { meshOf } from "../../lib/meshes";
import { Istio, Linkerd } from "../../lib/meshes/components";
import { App } from "../../lib/platform";
import type { RenderResult } from "../../lib/render";
import { RELEASE, find, release, render, values } from "../helpers";

/**
 * Each building block on its own, with a provider of the user's own and no environment config: what
 * it creates, and that its CRD flags and dependencies hold without a plan.
 */

const provider = () => new k8s.Provider("mine", { kubeconfig: "{}" });
const releases = (r: RenderResult) =>
  r.resources
    .filter((x) => x.type === RELEASE)
    .map((x) => String(x.inputs.name))
    .sort();

test("CertManager: cert-manager and trust-manager, each installing and keeping its own CRDs", async () => {
  const r = await render(() => {
    new CertManager("cm", { trustManager: true, provider: provider() });
  });
  expect(releases(r)).toEqual(["cert-manager", "trust-manager"]);
  // On its own: the profile's resources, one replica each.
  expect(values(release(r, "cert-manager"))).toMatchObject({
    crds: { enabled: true, keep: true },
    replicaCount: 1,
    webhook: { replicaCount: 1 },
    cainjector: { replicaCount: 1 },
  });
  expect(values(release(r, "trust-manager"))).toMatchObject({
    crds: { enabled: true, keep: true },
    replicaCount: 1,
  });
  expect(find(r, "Namespace", "cert-manager").inputs.metadata).toMatchObject({
    labels: { "pod-security.kubernetes.io/enforce": "restricted" },
  });
});

test("Linkerd: with its own cert-manager, the CRDs without the Gateway API, identity before the control plane", async () => {
  const r = await render(() => {
    const p = provider();
    const certManager = new CertManager("cm", { trustManager: true, provider: p });
    new Linkerd("linkerd", { certManager, provider: p });
  });
  expect(releases(r)).toEqual(["cert-manager", "linkerd-control-plane", "linkerd-crds", "trust-manager"]);
  expect(values(release(r, "linkerd-crds"))).toEqual({
    installGatewayAPI: false,
    enableHttpRoutes: false,
    enableTlsRoutes: false,
    enableTcpRoutes: false,
  });
  expect(values(release(r, "linkerd-control-plane"))).toMatchObject({
    identity: { externalCA: true, issuer: { scheme: "kubernetes.io/tls" } },
    proxy: { nativeSidecar: true },
    cniEnabled: false,
  });
  const controlPlane = release(r, "linkerd-control-plane");
  const issuer = find(r, "Certificate", "linkerd-identity-issuer", "linkerd");
  expect(controlPlane.dependencies).toContain(issuer.key);
});

test("Istio: istio-csr, base and istiod, with the CA from cert-manager and the roots from trust-manager", async () => {
  const r = await render(() => {
    const p = provider();
    const certManager = new CertManager("cm", { trustManager: true, provider: p });
    new Istio("istio", { certManager, provider: p });
  });
  expect(releases(r)).toEqual([
    "cert-manager",
    "cert-manager-istio-csr",
    "istio-base",
    "istiod",
    "trust-manager",
  ]);
  expect(values(release(r, "istiod"))).toMatchObject({
    env: { ENABLE_CA_SERVER: "false", ENABLE_NATIVE_SIDECARS: "true" },
  });
  expect(find(r, "PeerAuthentication", "default", "istio-system").inputs.spec).toEqual({
    mtls: { mode: "STRICT" },
  });
});

test("Istio without trust-manager is refused: istio-csr's pinned roots come from a Bundle", async () => {
  await expect(
    render(() => {
      const p = provider();
      new Istio("istio", { certManager: new CertManager("cm", { provider: p }), provider: p });
    }),
  ).rejects.toThrow(
    "Istio needs trust-manager for its pinned roots: create CertManager with trustManager: true",
  );
});

test("Prometheus: kube-prometheus-stack, its CRDs from their CRD chart, and where monitors go", async () => {
  let monitoring: Prometheus["monitoring"] | undefined;
  const r = await render(() => {
    monitoring = new Prometheus("prom", { provider: provider() }).monitoring;
  });
  const sized = (cpu: string, memory: string, limit: string) => ({
    requests: { cpu, memory },
    limits: { memory: limit },
  });
  const helper = sized("10m", "50Mi", "128Mi");
  expect(values(release(r, "kube-prometheus-stack"))).toEqual({
    // What GKE runs itself and does not expose, and what is never installed, is neither scraped nor alerted on.
    kubeControllerManager: { enabled: false },
    kubeScheduler: { enabled: false },
    kubeEtcd: { enabled: false },
    kubeProxy: { enabled: false },
    coreDns: { enabled: false },
    windowsMonitoring: { enabled: false },
    defaultRules: { rules: { windows: false } },
    // On its own: one replica on an emptyDir the TSDB stays within (80% of its 10Gi).
    prometheus: {
      prometheusSpec: {
        replicas: 1,
        resources: sized("500m", "2Gi", "4Gi"),
        retention: "15d",
        retentionSize: "8GB",
        storageSpec: { emptyDir: { sizeLimit: "10Gi" } },
      },
    },
    alertmanager: { alertmanagerSpec: { replicas: 1, resources: sized("10m", "64Mi", "256Mi") } },
    prometheusOperator: {
      resources: sized("50m", "64Mi", "256Mi"),
      prometheusConfigReloader: { resources: helper },
      // Without cert-manager, the chart's certgen Jobs make the webhook certificate.
      admissionWebhooks: { patch: { resources: helper } },
    },
    grafana: {
      replicas: 1,
      resources: sized("50m", "128Mi", "512Mi"),
      // No Secret outside its namespace is Grafana's to read: the mesh's CA keys stay out of its reach.
      rbac: { namespaced: true },
      sidecar: {
        resources: helper,
        dashboards: { searchNamespace: "monitoring", resource: "configmap" },
        datasources: { searchNamespace: "monitoring", resource: "configmap" },
      },
      downloadDashboards: { resources: helper },
    },
    // Nor kube-state-metrics': no secrets collector.
    "kube-state-metrics": {
      replicas: 1,
      resources: sized("10m", "64Mi", "256Mi"),
      collectorsExclude: ["secrets"],
    },
    "prometheus-node-exporter": { resources: sized("10m", "32Mi", "128Mi") },
    // Its crds subchart is off: the prometheus-operator-crds CRD chart applies the CRDs.
    crds: { enabled: false },
  });
  const crds = r.resources.find((x) => x.type === "kubernetes:helm.sh/v4:Chart");
  expect(crds?.inputs).toMatchObject({
    name: "prometheus-operator-crds",
    chart: "kube-prometheus-stack",
    version: "88.5.3",
    values: { crds: { enabled: true }, prometheus: { enabled: false } },
  });
  expect(crds?.children).toEqual({
    crd: { retainOnDelete: true, annotations: { "pulumi.com/patchForce": "true" } },
    crdsOnly: true,
  });
  expect(release(r, "kube-prometheus-stack").inputs.skipCrds).toBe(true);
  expect(release(r, "kube-prometheus-stack").dependsOn).toContain(crds?.key);
  expect(monitoring).toMatchObject({
    backend: "prometheus-operator",
    selectorLabels: { release: "kube-prometheus-stack" },
  });
});

test("Prometheus with cert-manager: the webhook certificate is cert-manager's, and the release waits for it", async () => {
  const r = await render(() => {
    const p = provider();
    new Prometheus("prom", { certManager: new CertManager("cm", { provider: p }), provider: p });
  });
  const kps = release(r, "kube-prometheus-stack");
  expect((values(kps).prometheusOperator as Record<string, unknown>).admissionWebhooks).toEqual({
    certManager: {
      enabled: true,
      issuerRef: { name: "kube-prometheus-stack-admission-selfsigned", kind: "Issuer" },
    },
    patch: { enabled: false },
    failurePolicy: "Ignore",
  });
  expect(kps.dependsOn).toContain(release(r, "cert-manager").key);
  expect(releases(r)).toEqual(["cert-manager", "kube-prometheus-stack"]);
});

test.each([
  ["no mesh", undefined, false],
  ["Linkerd", meshOf({ kind: "linkerd" }), true],
] as const)("Traefik and ingress-nginx with %s", async (_label, mesh, meshed) => {
  const r = await render(() => {
    const p = provider();
    const certManager = new CertManager("cm", { provider: p });
    new Traefik("traefik", { mesh, certManager, provider: p });
    new IngressNginx("ingress-nginx", { mesh, certManager, provider: p });
  });
  const traefik = values(release(r, "traefik")) as {
    providers: { kubernetesCRD: { nativeLBByDefault: boolean } };
  };
  expect(traefik.providers.kubernetesCRD.nativeLBByDefault).toBe(meshed);
  // Traefik's CRDs from its CRD chart, retained and force-applied; the release skips its crds/.
  const crds = r.resources.filter((x) => x.type === "kubernetes:helm.sh/v4:Chart");
  expect(crds.map((c) => [c.inputs.name, c.inputs.chart, c.children])).toEqual([
    [
      "traefik-crds",
      "traefik",
      { crd: { retainOnDelete: true, annotations: { "pulumi.com/patchForce": "true" } }, crdsOnly: true },
    ],
  ]);
  expect(release(r, "traefik").inputs.skipCrds).toBe(true);
  expect(release(r, "ingress-nginx").inputs.skipCrds).toBe(true);
  const nginx = values(release(r, "ingress-nginx")) as {
    controller: { podAnnotations?: Record<string, string> };
  };
  expect(nginx.controller.podAnnotations?.["linkerd.io/inject"]).toBe(meshed ? "enabled" : undefined);
});

test("App: its workload, Service and identity; with a mesh and grants, its Server and policies", async () => {
  const r = await render(() => {
    new App("shop", {
      name: "shop",
      namespace: "shop",
      image: "hello:2",
      port: 8080,
      mesh: meshOf({ kind: "linkerd" }),
      grants: [{ callers: [{ kind: "identity", namespace: "web", serviceAccount: "web" }] }],
      provider: provider(),
    });
  });
  for (const kind of ["Deployment", "Service", "ServiceAccount", "PodDisruptionBudget", "Server"]) {
    expect(find(r, kind, "shop", "shop")).toBeDefined();
  }
  const authn = r.resources.filter((x) => x.inputs.kind === "MeshTLSAuthentication");
  expect(authn.map((a) => a.inputs.spec)).toEqual([
    { identityRefs: [{ kind: "ServiceAccount", name: "web", namespace: "web" }] },
  ]);
  // The Server refuses what no policy allows from the moment it exists: it waits for the policies.
  const policies = r.resources.filter((x) => x.inputs.kind === "AuthorizationPolicy").map((x) => x.key);
  expect(policies.length).toBeGreaterThan(0);
  expect(find(r, "Server", "shop", "shop").dependencies).toEqual(expect.arrayContaining(policies));
});
