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
const istio = "https://istio-release.storage.googleapis.com/charts";

/**
 * Istio versions an istiod revision may run (a canary upgrade runs two at once). The first is the
 * version of every Istio chart below. To canary a new Istio, add it here, then name it in a revision
 * (docs/istio.md); once every namespace has moved, make it the first and drop the old one.
 */
export const istioVersions = ["1.30.3"] as const;

export const charts = {
  // Its webhook listens on 10250 (webhook.securePort), which GKE's own rule already opens.
  certManager: {
    repo: jetstack,
    chart: "cert-manager",
    version: "v1.21.1",
    source: "cert-manager/cert-manager v1.21.1 deploy/charts/cert-manager/values.yaml",
  },
  trustManager: {
    repo: jetstack,
    chart: "trust-manager",
    version: "v0.24.0",
    source: "cert-manager/trust-manager v0.24.0 deploy/charts/trust-manager/values.yaml",
  },
  istioCsr: {
    repo: jetstack,
    chart: "cert-manager-istio-csr",
    version: "v0.17.0",
    source: "cert-manager/istio-csr v0.17.0 deploy/charts/istio-csr/values.yaml",
  },
  // Linkerd 2.20+ line (edge-26.8.3): chart versions are YYYY.M.N of the edge tag (linkerd2 bin/compute-edge-version).
  linkerdCrds: {
    repo: linkerdEdge,
    chart: "linkerd-crds",
    version: "2026.8.3",
    source: "linkerd/linkerd2 edge-26.8.3 charts/linkerd-crds/values.yaml",
  },
  linkerdControlPlane: {
    repo: linkerdEdge,
    chart: "linkerd-control-plane",
    version: "2026.8.3",
    source: "linkerd/linkerd2 edge-26.8.3 charts/linkerd-control-plane/values.yaml",
    // proxy-injector, policy validator and tap (linkerd/website reference/cluster-configuration.md, GKE Private Clusters).
    webhookPorts: [8443, 8089, 9443],
  },
  linkerdCni: {
    repo: linkerdEdge,
    chart: "linkerd2-cni",
    version: "2026.8.3",
    source: "linkerd/linkerd2 edge-26.8.3 charts/linkerd2-cni/values.yaml",
  },
  linkerdViz: {
    repo: linkerdEdge,
    chart: "linkerd-viz",
    version: "2026.8.3",
    source: "linkerd/linkerd2 edge-26.8.3 viz/charts/linkerd-viz/values.yaml",
  },
  istioBase: {
    repo: istio,
    chart: "base",
    version: istioVersions[0],
    source: "istio/istio 1.30.3 manifests/charts/base/values.yaml",
  },
  istiod: {
    repo: istio,
    chart: "istiod",
    version: istioVersions[0],
    source: "istio/istio 1.30.3 manifests/charts/istio-control/istio-discovery/values.yaml",
    // istiod's sidecar injector and validation webhook (istio.io docs/setup/platform-setup/gke).
    webhookPorts: [15017],
  },
  istioCni: {
    repo: istio,
    chart: "cni",
    version: istioVersions[0],
    source: "istio/istio 1.30.3 manifests/charts/istio-cni/values.yaml",
  },
  ztunnel: {
    repo: istio,
    chart: "ztunnel",
    version: istioVersions[0],
    source: "istio/istio 1.30.3 manifests/charts/ztunnel/values.yaml",
  },
  istioGateway: {
    repo: istio,
    chart: "gateway",
    version: istioVersions[0],
    source: "istio/istio 1.30.3 manifests/charts/gateway/values.yaml",
  },
  // 40.2.0 is the first chart that no longer installs Gateway API CRDs; 41.3.0 is the newest read.
  traefik: {
    repo: "https://traefik.github.io/charts",
    chart: "traefik",
    version: "41.3.0",
    source: "traefik/traefik-helm-chart v41.3.0 traefik/values.yaml",
  },
  // Retired upstream in March 2026; 4.15.1 is the last chart release (kubernetes/ingress-nginx dbb11b92).
  ingressNginx: {
    repo: "https://kubernetes.github.io/ingress-nginx",
    chart: "ingress-nginx",
    version: "4.15.1",
    source: "kubernetes/ingress-nginx helm-chart-4.15.1 charts/ingress-nginx/values.yaml",
    // controller.admissionWebhooks.port (chart values; docs/deploy/index.md, GKE private clusters).
    webhookPorts: [8443],
  },
  kubePrometheusStack: {
    repo: "https://prometheus-community.github.io/helm-charts",
    chart: "kube-prometheus-stack",
    version: "88.5.3",
    source: "prometheus-community/helm-charts kube-prometheus-stack-88.5.3 values.yaml",
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
 * own the Gateway API CRDs. v1.5.0 is the newest bundle GKE ships (GKE 1.35.2-gke.1842000+) and inside
 * Linkerd 2.20's tested range (1.2.1 to 1.5.1, linkerd/website 2-edge/features/gateway-api.md).
 */
export const gatewayApi = {
  version: "v1.5.0",
  channel: "standard",
  source: "kubernetes-sigs/gateway-api v1.5.0 config/crd/standard",
} as const;
