/**
 * Every pinned upstream: Helm repositories, charts, versions, and the Gateway API bundle.
 * A version bump touches this file only. Each pin cites where it was read; the chart's
 * `values.yaml` at that version is the contract for every value the platform sets on it.
 */

/** A Helm chart pinned to one version in one repository. */
export interface ChartPin {
  /** Helm repository URL (`helm repo add`). */
  readonly repo: string;
  /** Chart name in that repository. */
  readonly chart: string;
  /** Exact chart version; never a range. */
  readonly version: string;
  /** Where the pin was read: upstream repository, tag and path. */
  readonly source: string;
  /** The version of what the chart runs (its Chart.yaml appVersion). */
  readonly appVersion: string;
  /**
   * The CRDs the chart carries, by API group, and where: `templates` (Helm installs and upgrades them
   * with the release) or `crds/` (Helm installs them once and never upgrades them).
   */
  readonly crds?: { readonly groups: readonly string[]; readonly in: "templates" | "crds/" };
  /**
   * Ports the control plane of a private cluster must reach on nodes for this chart's admission
   * webhooks. GKE's own firewall rule opens only 443 and 10250.
   */
  readonly webhookPorts?: readonly number[];
}

const jetstack = "https://charts.jetstack.io";
// Linkerd publishes open-source Helm charts only on its edge channel since 2.15
// (linkerd/website releases/_index.md: "no longer provides stable release artifacts").
const linkerdEdge = "https://helm.linkerd.io/edge";
/**
 * Istio's charts: its HTTPS Helm repository, the same mechanism as every other pin here (a `--repo`
 * and an index.yaml). Istio stopped publishing to istio-release.storage.googleapis.com with 1.31 and
 * switches it off on 8 December 2026 (istio/istio.io content/en/news/releases/1.31.x/announcing-1.31/upgrade-notes);
 * to move again, change this line.
 */
const istio = "https://blob.istio.io/istio-release/charts";
/**
 * Istio's OCI registry of the same charts, where a canary revision at a version this package does not pin
 * yet comes from by default: Helm checks an OCI chart against its digest, an HTTPS download it does not.
 */
export const istioOciCharts = "oci://ghcr.io/istio/release/charts";

/**
 * Istio versions an istiod revision may run (a canary upgrade runs two at once). The first is the
 * version of every Istio chart below. To canary a new Istio, add it here, then name it in a revision
 * (docs/istio.md); once every namespace has moved, make it the first and drop the old one.
 */
export const istioVersions = ["1.30.3"] as const;

export const charts = {
  // Its webhook listens on 10250 (webhook.securePort), which GKE's own rule already opens.
  // v1.21.2 (2026-09-10): dependency security fixes (cel-go v0.30.0, etcd client v3.6.14, x/crypto v0.56.0,
  // grpc v1.83.2); the chart and CRDs are v1.21.1's.
  certManager: {
    repo: jetstack,
    chart: "cert-manager",
    version: "v1.21.2",
    source: "cert-manager/cert-manager v1.21.2 deploy/charts/cert-manager/values.yaml",
    appVersion: "v1.21.2",
    crds: { groups: ["cert-manager.io", "acme.cert-manager.io"], in: "templates" },
  },
  trustManager: {
    repo: jetstack,
    chart: "trust-manager",
    version: "v0.24.0",
    source: "cert-manager/trust-manager v0.24.0 deploy/charts/trust-manager/values.yaml",
    appVersion: "v0.24.0",
    crds: { groups: ["trust.cert-manager.io"], in: "templates" },
  },
  istioCsr: {
    repo: jetstack,
    chart: "cert-manager-istio-csr",
    version: "v0.17.0",
    source: "cert-manager/istio-csr v0.17.0 deploy/charts/istio-csr/values.yaml",
    appVersion: "v0.17.0",
  },
  // Linkerd 2.20+ line (edge-26.8.3): chart versions are YYYY.M.N of the edge tag (linkerd2 bin/compute-edge-version).
  linkerdCrds: {
    repo: linkerdEdge,
    chart: "linkerd-crds",
    version: "2026.8.3",
    source: "linkerd/linkerd2 edge-26.8.3 charts/linkerd-crds/values.yaml",
    appVersion: "edge-26.8.3",
    crds: { groups: ["linkerd.io", "policy.linkerd.io", "workload.linkerd.io"], in: "templates" },
  },
  linkerdControlPlane: {
    repo: linkerdEdge,
    chart: "linkerd-control-plane",
    version: "2026.8.3",
    source: "linkerd/linkerd2 edge-26.8.3 charts/linkerd-control-plane/values.yaml",
    appVersion: "edge-26.8.3",
    // proxy-injector, policy validator and tap (linkerd/website reference/cluster-configuration.md, GKE Private Clusters).
    webhookPorts: [8443, 8089, 9443],
  },
  linkerdCni: {
    repo: linkerdEdge,
    chart: "linkerd2-cni",
    version: "2026.8.3",
    source: "linkerd/linkerd2 edge-26.8.3 charts/linkerd2-cni/values.yaml",
    appVersion: "edge-26.8.3",
  },
  linkerdViz: {
    repo: linkerdEdge,
    chart: "linkerd-viz",
    version: "2026.8.3",
    source: "linkerd/linkerd2 edge-26.8.3 viz/charts/linkerd-viz/values.yaml",
    appVersion: "edge-26.8.3",
  },
  istioBase: {
    repo: istio,
    chart: "base",
    version: istioVersions[0],
    source: "istio/istio 1.30.3 manifests/charts/base/values.yaml",
    appVersion: istioVersions[0],
    crds: {
      groups: ["networking.istio.io", "security.istio.io", "telemetry.istio.io", "extensions.istio.io"],
      in: "templates",
    },
  },
  istiod: {
    repo: istio,
    chart: "istiod",
    version: istioVersions[0],
    source: "istio/istio 1.30.3 manifests/charts/istio-control/istio-discovery/values.yaml",
    appVersion: istioVersions[0],
    // istiod's sidecar injector and validation webhook (istio.io docs/setup/platform-setup/gke).
    webhookPorts: [15017],
  },
  istioCni: {
    repo: istio,
    chart: "cni",
    version: istioVersions[0],
    source: "istio/istio 1.30.3 manifests/charts/istio-cni/values.yaml",
    appVersion: istioVersions[0],
  },
  ztunnel: {
    repo: istio,
    chart: "ztunnel",
    version: istioVersions[0],
    source: "istio/istio 1.30.3 manifests/charts/ztunnel/values.yaml",
    appVersion: istioVersions[0],
  },
  istioGateway: {
    repo: istio,
    chart: "gateway",
    version: istioVersions[0],
    source: "istio/istio 1.30.3 manifests/charts/gateway/values.yaml",
    appVersion: istioVersions[0],
  },
  // 40.2.0 is the first chart that no longer installs Gateway API CRDs; 41.3.0 is the newest read.
  traefik: {
    repo: "https://traefik.github.io/charts",
    chart: "traefik",
    version: "41.3.0",
    source: "traefik/traefik-helm-chart v41.3.0 traefik/values.yaml",
    appVersion: "v3.7.11",
    crds: { groups: ["traefik.io", "hub.traefik.io"], in: "crds/" },
  },
  // Retired upstream in March 2026; 4.15.1 is the last chart release (kubernetes/ingress-nginx dbb11b92).
  ingressNginx: {
    repo: "https://kubernetes.github.io/ingress-nginx",
    chart: "ingress-nginx",
    version: "4.15.1",
    source: "kubernetes/ingress-nginx helm-chart-4.15.1 charts/ingress-nginx/values.yaml",
    appVersion: "1.15.1",
    // controller.admissionWebhooks.port (chart values; docs/deploy/index.md, GKE private clusters).
    webhookPorts: [8443],
  },
  kubePrometheusStack: {
    repo: "https://prometheus-community.github.io/helm-charts",
    chart: "kube-prometheus-stack",
    version: "88.5.3",
    source: "prometheus-community/helm-charts kube-prometheus-stack-88.5.3 values.yaml",
    appVersion: "v0.93.1",
    crds: { groups: ["monitoring.coreos.com"], in: "crds/" },
  },
} as const satisfies Record<string, ChartPin>;

export type ChartName = keyof typeof charts;

/**
 * Container images the platform runs itself. The fault injector answers every request with one
 * status (Linkerd's fault-injection guide uses NGINX the same way); the unprivileged build runs as a
 * non-root user on port 8080, as Pod Security `restricted` requires.
 */
export const images = {
  faultInjector: "docker.io/nginxinc/nginx-unprivileged:1.28.0-alpine",
  /**
   * kubectl, for the Job that waits until GKE serves the Gateway API route CRDs: the Kubernetes
   * project's own image (debian-base, entrypoint /bin/kubectl: build/server-image/kubectl/Dockerfile),
   * at the supported range's middle minor, within kubectl's one-minor skew of both ends (1.34 to 1.36);
   * `kubectl wait --for=create` needs 1.31 or later.
   */
  kubectl: "registry.k8s.io/kubectl:v1.35.0",
} as const;

/**
 * The upstream Gateway API standard-channel bundle the platform installs itself when GKE does not
 * own the Gateway API CRDs: the newest patch of v1.5, the newest minor GKE ships (GKE 1.35.2-gke.1842000+),
 * inside Linkerd 2.20's tested range (1.2.1 to 1.5.1, linkerd/website 2-edge/features/gateway-api.md) and
 * what Istio 1.30 builds against (go.mod sigs.k8s.io/gateway-api v1.5.1). v1.5.1 adds one CEL rule to
 * HTTPRoute (a CORS filter may not repeat).
 */
export const gatewayApi = {
  version: "v1.5.1",
  channel: "standard",
  source: "kubernetes-sigs/gateway-api v1.5.1 config/crd/standard",
} as const;
