import { Construct } from "constructs";
import {
  ClusterRules,
  PodMonitor,
  PodMonitoring,
  PrometheusRule,
  type AlertRule,
  type LabelSelector,
} from "./customResources";

/** Where alert rules and monitors go: Prometheus Operator objects, or Managed Service for Prometheus'. */
export interface AlertingTarget {
  readonly backend: "prometheus-operator" | "managed-prometheus";
  /** Labels the Prometheus selects monitors and rules by (prometheus-operator only). */
  readonly selectorLabels: Readonly<Record<string, string>>;
}

export interface CertificateAlertsProps extends AlertingTarget {
  /** Names the rules object. */
  readonly name: string;
  /** Where a PrometheusRule goes; Managed Prometheus' ClusterRules are cluster-scoped. */
  readonly namespace: string;
  readonly rules: readonly AlertRule[];
}

/**
 * Alert rules as the backend reads them: a PrometheusRule labelled for the platform's Prometheus
 * (kube-prometheus-stack selects rules by its release label, ruleSelector), or Managed Prometheus'
 * ClusterRules, whose queries see every namespace's series (a namespaced Rules would see only its own).
 */
export class CertificateAlerts extends Construct {
  constructor(scope: Construct, id: string, props: CertificateAlertsProps) {
    super(scope, id);
    const groups = [{ name: props.name, rules: props.rules }];
    if (props.backend === "prometheus-operator") {
      new PrometheusRule(this, "rules", {
        metadata: { name: props.name, namespace: props.namespace, labels: { ...props.selectorLabels } },
        spec: { groups },
      });
    } else {
      new ClusterRules(this, "rules", { metadata: { name: props.name }, spec: { groups } });
    }
  }
}

/** A Certificate's series: cert-manager's `namespace` label arrives as `exported_namespace` (lib/versions/metrics.ts). */
export function certificateSeries(metric: string, namespace: string, name: string): string {
  return `${metric}{exported_namespace="${namespace}", name="${name}"}`;
}

/** An alert on one Certificate having less than `seconds` of its lifetime left. */
export function certificateExpiresWithin(props: {
  readonly alert: string;
  readonly namespace: string;
  readonly name: string;
  /** PromQL arithmetic, e.g. `60 * 86400`. */
  readonly within: string;
  readonly what: string;
  readonly why: string;
}): AlertRule {
  return {
    alert: props.alert,
    expr: `${certificateSeries("certmanager_certificate_expiration_timestamp_seconds", props.namespace, props.name)} - time() < ${props.within}`,
    for: "15m",
    labels: { severity: "critical" },
    annotations: {
      summary: `${props.what} expires in {{ $value | humanizeDuration }}`,
      description: `Certificate ${props.namespace}/${props.name} (${props.what}) expires in {{ $value | humanizeDuration }}. ${props.why}`,
    },
  };
}

/**
 * cert-manager's own alerts, for every Certificate in the cluster: a renewal that is overdue (less than
 * 90% of the renew-before window left: 3 days late for a 90-day certificate renewed 30 days early, 3
 * minutes late for a 1-hour one renewed 30 minutes early), one that is half-way through that window, a
 * Certificate not Ready, and cert-manager's metrics missing (then no other certificate alert can fire).
 * With trust-manager, a Bundle controller that keeps failing.
 */
export function certManagerAlertRules(props: { readonly trustManager: boolean }): AlertRule[] {
  const expiry = "certmanager_certificate_expiration_timestamp_seconds";
  const renewal = "certmanager_certificate_renewal_timestamp_seconds";
  const left = `(${expiry} - time())`;
  const window = `(${expiry} - ${renewal})`;
  const cert = "{{ $labels.exported_namespace }}/{{ $labels.name }}";
  // A Certificate never issued reports both timestamps as 0 (internal/collectors/certificate_collector.go
  // at v1.21.2), which would read as long overdue: CertificateNotReady covers it instead.
  const issued = `and ${expiry} > 0`;
  return [
    {
      alert: "CertificateRenewalOverdue",
      expr: `${left} < 0.9 * ${window} ${issued}`,
      for: "10m",
      labels: { severity: "warning" },
      annotations: {
        summary: `Certificate ${cert} was not renewed when due`,
        description: `Certificate ${cert} should have been renewed by now and expires in {{ $value | humanizeDuration }}: see kubectl describe certificate -n {{ $labels.exported_namespace }} {{ $labels.name }} and its CertificateRequests.`,
      },
    },
    {
      alert: "CertificateExpiringUnrenewed",
      expr: `${left} < 0.5 * ${window} ${issued}`,
      for: "10m",
      labels: { severity: "critical" },
      annotations: {
        summary: `Certificate ${cert} expires in {{ $value | humanizeDuration }}, unrenewed`,
        description: `Certificate ${cert} is half-way through its renewal window without a renewal; whatever serves or trusts it fails when it expires in {{ $value | humanizeDuration }}.`,
      },
    },
    {
      alert: "CertificateNotReady",
      expr: `certmanager_certificate_ready_status{condition!="True"} == 1`,
      for: "15m",
      labels: { severity: "warning" },
      annotations: {
        summary: `Certificate ${cert} is not Ready`,
        description: `Certificate ${cert} has been {{ $labels.condition }} for 15 minutes: cert-manager cannot issue it; see kubectl describe certificate -n {{ $labels.exported_namespace }} {{ $labels.name }}.`,
      },
    },
    {
      alert: "CertManagerMetricsAbsent",
      expr: "absent(certmanager_clock_time_seconds_gauge)",
      for: "15m",
      labels: { severity: "critical" },
      annotations: {
        summary: "cert-manager's metrics are not scraped",
        description:
          "No cert-manager metrics for 15 minutes: cert-manager is down or not scraped, and no certificate alert can fire.",
      },
    },
    ...(props.trustManager
      ? [
          {
            alert: "TrustManagerBundleSyncFailing",
            expr: `sum by (controller) (rate(controller_runtime_reconcile_errors_total{controller="bundles"}[15m])) > 0`,
            for: "15m",
            labels: { severity: "warning" },
            annotations: {
              summary: "trust-manager fails to write trust bundles",
              description:
                "trust-manager's Bundle controller has failed for 15 minutes: the mesh's trust roots are not updated; see kubectl get bundles and trust-manager's logs.",
            },
          },
        ]
      : []),
  ];
}

export interface CertManagerMonitorsProps extends AlertingTarget {
  /** cert-manager's namespace, also trust-manager's. */
  readonly namespace: string;
  /** Scrape trust-manager too. */
  readonly trustManager: boolean;
}

/** The pods and ports scraped: cert-manager's controller and trust-manager, by their charts' labels and port names. */
const scraped: readonly { name: string; selector: LabelSelector; port: string; trustManager?: true }[] = [
  {
    name: "cert-manager",
    // The controller Deployment's pod labels and metrics port (deploy/charts/cert-manager/templates/deployment.yaml at v1.21.2).
    selector: {
      matchLabels: { "app.kubernetes.io/name": "cert-manager", "app.kubernetes.io/component": "controller" },
    },
    port: "http-metrics",
  },
  {
    name: "trust-manager",
    // Its pods' label and metrics port (deploy/charts/trust-manager/templates/deployment.yaml at v0.24.0).
    selector: { matchLabels: { app: "trust-manager" } },
    port: "metrics",
    trustManager: true,
  },
];

/** Scrape targets for cert-manager's certificate metrics and trust-manager's controller metrics. */
export class CertManagerMonitors extends Construct {
  constructor(scope: Construct, id: string, props: CertManagerMonitorsProps) {
    super(scope, id);
    for (const s of scraped.filter((x) => !x.trustManager || props.trustManager)) {
      if (props.backend === "prometheus-operator") {
        new PodMonitor(this, s.name, {
          metadata: { name: s.name, namespace: props.namespace, labels: { ...props.selectorLabels } },
          // Certificate metrics change by the hour: a minute is plenty.
          spec: { selector: s.selector, podMetricsEndpoints: [{ port: s.port, interval: "60s" }] },
        });
      } else {
        new PodMonitoring(this, s.name, {
          metadata: { name: s.name, namespace: props.namespace },
          spec: { selector: s.selector, endpoints: [{ port: s.port, interval: "60s" }] },
        });
      }
    }
  }
}
