import { istioVersions } from "./charts";

/** Facts about the pinned Istio charts (1.30.3) and istio-csr (v0.17.0) that the platform's objects must match. */
export const istioFacts = {
  /**
   * Where Istio's images come from, set explicitly on every Istio chart: the published 1.30 charts
   * default to registry.istio.io/release, which Istio retires in December 2026 ("By default, Istio 1.30
   * installations use registry.istio.io/release ... we suggest you migrate to docker.io/istio": istio/istio.io
   * content/en/blog/2026/retirement-of-gcr.io-follow-up/index.md). Istio publishes every release to Docker Hub.
   */
  imageHub: "docker.io/istio",
  /**
   * The Gateway API CRD versions istiod 1.30 needs: it ignores a kind whose CRD is older than its minimum
   * (TLSRoute v1.5.0, BackendTLSPolicy v1.4.0, GRPCRoute v1.1.0: pkg/config/schema/gatewayapi/minimumversions.go
   * at 1.30.3), and `istioctl analyze` reports IST0176 (pkg/config/analysis/msg/messages.yaml); its go.mod
   * builds against sigs.k8s.io/gateway-api v1.5.1.
   */
  gatewayApi: {
    minimum: "v1.5.0",
    without:
      "istiod ignores TLSRoute (its minimum is v1.5.0) and istioctl analyze reports IST0176; the platform's own routes are HTTPRoutes, which work",
    source: "istio/istio 1.30.3 pkg/config/schema/gatewayapi/minimumversions.go",
  },
  /**
   * istio-csr's Service, where istiod and ztunnel get certificates: the chart's default
   * certificateDNSNames for release cert-manager-istio-csr in namespace cert-manager, port 443
   * (istio-csr make/config/istio/istio-config-default.yaml: global.caAddress).
   */
  csrAddress: "cert-manager-istio-csr.cert-manager.svc:443",
  /** istiod's metrics port name (15014), which Istio's ServiceMonitor scrapes. */
  istiodMonitoringPort: "http-monitoring",
  /** pilot-agent's merged Prometheus port on every sidecar (the prometheus.io/port it sets). */
  proxyMetricsPort: 15020,
  proxyMetricsPath: "/stats/prometheus",
  /** The sidecar container the injector adds (files/injection-template.yaml). */
  proxyContainer: "istio-proxy",
  /**
   * A pod label Istio's own proxy monitors skip (samples/addons/extras/prometheus-operator.yaml:
   * `istio-prometheus-ignore` DoesNotExist): an app scraped by its own monitor carries it, so its
   * merged metrics are scraped once.
   */
  scrapeIgnoreLabel: "istio-prometheus-ignore",
  /** ztunnel's metrics port, 15020, by name (ztunnel chart templates/daemonset.yaml); same path as the proxies'. */
  ztunnelMetricsPort: "ztunnel-stats",
  /**
   * Values the charts read through their profile machinery (templates/zzz_profile.yaml,
   * files/profile-*.yaml) rather than values.yaml: `profile` and `global.platform`.
   */
  profileValues: ["profile", "global.platform"],
  /**
   * Istio's Grafana dashboards, the ones its Grafana addon ships (manifests/addons/dashboards at the pinned
   * tag), loaded by URL at that tag: Istio publishes them to grafana.com under revisions that follow its
   * releases, so the tag is the exact pin. Not the performance dashboard: it charts Istio's load-test
   * ingress gateway, which the platform never installs. ztunnel's only with ambient.
   */
  grafanaDashboards: {
    mesh: "istio-mesh-dashboard.gen.json",
    service: "istio-service-dashboard.json",
    workload: "istio-workload-dashboard.json",
    "control-plane": "pilot-dashboard.gen.json",
    extensions: "istio-extension-dashboard.json",
  },
  ambientGrafanaDashboards: { ztunnel: "ztunnel-dashboard.gen.json" },
  grafanaDashboardsUrl: `https://raw.githubusercontent.com/istio/istio/${istioVersions[0]}/manifests/addons/dashboards`,
  /**
   * ztunnel's HBONE port: under ambient, meshed calls reach a pod on it and are proxied back to the
   * original port inside the pod, so a NetworkPolicy sees 15008, not the app's port (istio.io
   * docs/ambient/usage/networkpolicy; pilot/pkg/model/listener.go HBoneInboundListenPort at 1.30.3).
   */
  hbonePort: 15008,
  /**
   * The address istio-cni rewrites kubelet's probes of ambient pods to, so ztunnel lets them past
   * (cni/README.md HOST_PROBE_SNAT_IP, cni/pkg/iptables/iptables.go at 1.30.3). It is not the node's
   * address, so a NetworkPolicy must let it in (istio.io docs/ambient/usage/networkpolicy).
   */
  probeSnatAddress: "169.254.7.127/32",
  /** PeerAuthentication's storage version in the base chart 1.30.3 (files/crd-all.gen.yaml): v1. */
  peerAuthenticationApiVersion: "security.istio.io/v1",
} as const;
