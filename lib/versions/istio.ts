/** Facts about the pinned Istio charts (1.30.3) and istio-csr (v0.17.0) that the platform's objects must match. */
export const istioFacts = {
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
  /** ztunnel's metrics port, 15020, by name (ztunnel chart templates/daemonset.yaml); same path as the proxies'. */
  ztunnelMetricsPort: "ztunnel-stats",
  /**
   * Values the charts read through their profile machinery (templates/zzz_profile.yaml,
   * files/profile-*.yaml) rather than values.yaml: `profile` and `global.platform`.
   */
  profileValues: ["profile", "global.platform"],
} as const;
