/**
 * Metrics the platform's alert rules read, as the pinned exporters define them: each name with the
 * labels its exporter sets, and the file at the pinned tag that defines it. The rules' tests parse every
 * expression and check each metric and label against this list.
 */
export interface ExportedMetric {
  /** Labels the exporter sets on the series. */
  readonly labels: readonly string[];
  /** The exporter's source at the pinned version. */
  readonly source: string;
}

const certificateLabels = ["name", "namespace", "issuer_name", "issuer_kind", "issuer_group"];
const certManagerCollector = "cert-manager/cert-manager v1.21.2 internal/collectors/certificate_collector.go";

export const exportedMetrics: Readonly<Record<string, ExportedMetric>> = {
  certmanager_certificate_expiration_timestamp_seconds: {
    labels: certificateLabels,
    source: certManagerCollector,
  },
  certmanager_certificate_renewal_timestamp_seconds: {
    labels: certificateLabels,
    source: certManagerCollector,
  },
  certmanager_certificate_ready_status: {
    labels: [...certificateLabels, "condition"],
    source: certManagerCollector,
  },
  certmanager_clock_time_seconds_gauge: {
    labels: [],
    source: "cert-manager/cert-manager v1.21.2 pkg/metrics/metrics.go",
  },
  // trust-manager v0.24.0 exports no metric of its own; its Bundle controller is controller-runtime's
  // "bundles" (pkg/bundle/controller.go), on controller-runtime v0.24.1 (go.mod).
  controller_runtime_reconcile_errors_total: {
    labels: ["controller"],
    source: "kubernetes-sigs/controller-runtime v0.24.1 pkg/internal/controller/metrics/metrics.go",
  },
  // The remaining lifetime of the issuer certificate the identity controller signs with, the one it
  // loaded and verified against its trust anchors, not merely the one in the Secret.
  issuer_cert_ttl_seconds: {
    labels: [],
    source: "linkerd/linkerd2 edge-26.8.3 pkg/identity/service.go",
  },
};

/**
 * Labels a scrape adds to every series. An exported label that clashes with one is kept as
 * `exported_<label>` (honor_labels is false in both backends' scrape configs): cert-manager's
 * `namespace`, the Certificate's, becomes `exported_namespace` (prometheus-operator v0.93.0
 * pkg/prometheus/promcfg.go; prometheus-engine v0.17.2 pkg/operator/apis/monitoring/v1/pod_config.go).
 */
export const scrapeTargetLabels = ["job", "instance", "namespace", "pod", "container", "endpoint"] as const;
