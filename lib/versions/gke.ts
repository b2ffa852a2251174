/**
 * Facts about GKE's load balancer controllers that the platform's objects must match. Sources:
 * kubernetes/ingress-gce acbcf5d6 (pkg/annotations, pkg/negannotation) and the GKE Gateway
 * conformance reports in kubernetes-sigs/gateway-api v1.6.1 (conformance/reports/v1.5/gke-gateway).
 */
export const gkeAnnotations = {
  /** NEG request on a Service: `{"ingress":true}` for GCE Ingress, `{"exposed_ports":{...}}` for standalone NEGs (GKE Gateway). */
  neg: "cloud.google.com/neg",
  /** BackendConfig for a Service's ports: `{"default":"<name>"}`. */
  backendConfig: "cloud.google.com/backend-config",
  ingressClass: "kubernetes.io/ingress.class",
  globalStaticIp: "kubernetes.io/ingress.global-static-ip-name",
  frontendConfig: "networking.gke.io/v1beta1.FrontendConfig",
  managedCertificates: "networking.gke.io/managed-certificates",
  preSharedCert: "ingress.gcp.kubernetes.io/pre-shared-cert",
  /** Listener tls.options key on a GKE Gateway for Compute SSL certificates. */
  gatewayPreSharedCerts: "networking.gke.io/pre-shared-certs",
  /** Gateway annotation naming a Certificate Manager certificate map (global Gateway classes). */
  gatewayCertMap: "networking.gke.io/certmap",
} as const;

/**
 * Where Google's Application Load Balancers and their health checks reach pods from: the Google
 * Front End and health-check ranges (cloud.google.com/load-balancing/docs/health-check-concepts#ip-ranges,
 * .../docs/https#firewall-rules). Regional and internal classes proxy from the proxy-only subnet instead.
 */
export const googleLoadBalancerRanges = ["35.191.0.0/16", "130.211.0.0/22"] as const;

/**
 * HTTPRoute features GKE Gateway does not implement (unsupported in every GKE conformance report,
 * v1.3.0 to v1.5.0), with what to use on GKE instead. The exposure API refuses them on GKE Gateway.
 */
export const gkeGatewayUnsupported = {
  pathRewrite: {
    feature: "HTTPRoutePathRewrite",
    alternative:
      "serve the app under its path prefix (GKE keeps the path), or expose it through Traefik, which strips prefixes",
  },
  methodMatching: {
    feature: "HTTPRouteMethodMatching",
    alternative: "check methods in the app or with Cloud Armor (GCPBackendPolicy securityPolicy)",
  },
  requestTimeout: {
    feature: "HTTPRouteRequestTimeout",
    alternative: "GCPBackendPolicy timeoutSec, which the platform sets from expose.timeoutSeconds",
  },
} as const;

/**
 * The private ranges a cluster's own addresses come from when the platform did not make its network (a
 * cluster made elsewhere): RFC 1918, the shared address space and IPv6 ULAs, Linkerd's own default
 * `clusterNetworks` (linkerd/linkerd2 edge-26.8.3 charts/linkerd-control-plane/values.yaml).
 */
export const privateNetworks = [
  "10.0.0.0/8",
  "100.64.0.0/10",
  "172.16.0.0/12",
  "192.168.0.0/16",
  "fd00::/8",
] as const;

/**
 * Managed Service for Prometheus's collectors, which scrape every PodMonitoring and ClusterPodMonitoring
 * target from pod addresses (not the host network) in their own namespace
 * (GoogleCloudPlatform/prometheus-engine v0.17.2 manifests/operator.yaml, DaemonSet `collector`).
 */
export const managedPrometheusCollectors = {
  namespace: "gmp-system",
  podLabels: { "app.kubernetes.io/name": "collector" },
} as const;
