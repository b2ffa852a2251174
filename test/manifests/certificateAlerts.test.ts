import { parser } from "@prometheus-io/lezer-promql";
import { App, Chart } from "cdk8s";
import type { AlertRule } from "../../lib/manifests";
import { CertManagerMonitors, CertificateAlerts, certManagerAlertRules } from "../../lib/manifests";
import { istioIdentityAlertRules, linkerdIdentityAlertRules } from "../../lib/meshes";
import { exportedMetrics, scrapeTargetLabels } from "../../lib/versions";
import { find, renderPlatform } from "../helpers";

/**
 * Every alert rule the platform ships, parsed with Prometheus' own PromQL grammar: it parses, every
 * metric it reads is one the pinned exporters define (lib/versions/metrics.ts, each citing its
 * source), every label it matches, groups by or prints is one those series carry after the scrape.
 */

interface Parsed {
  readonly errors: number[];
  readonly selectors: { metric: string; labels: string[] }[];
  readonly grouping: string[];
}

function parse(expr: string): Parsed {
  const tree = parser.parse(expr);
  const errors: number[] = [];
  const selectors: { metric: string; labels: string[] }[] = [];
  const grouping: string[] = [];
  const text = (from: number, to: number) => expr.slice(from, to);
  const cursor = tree.cursor();
  do {
    if (cursor.type.isError) errors.push(cursor.from);
    if (cursor.name === "VectorSelector") {
      const node = cursor.node;
      const metric = node.getChild("Identifier");
      const labels = node
        .getChild("LabelMatchers")
        ?.getChildren("UnquotedLabelMatcher")
        .map((m) => {
          const name = m.getChild("LabelName");
          return name ? text(name.from, name.to) : "";
        });
      selectors.push({ metric: metric ? text(metric.from, metric.to) : "", labels: labels ?? [] });
    }
    if (cursor.name === "GroupingLabels") {
      for (const l of cursor.node.getChildren("LabelName")) grouping.push(text(l.from, l.to));
    }
  } while (cursor.next());
  return { errors, selectors, grouping };
}

/** The labels a series of `metric` carries once scraped: its own (clashing ones as exported_*) and the target's. */
function scrapedLabels(metric: string): string[] {
  const own = exportedMetrics[metric]?.labels ?? [];
  const targets: readonly string[] = scrapeTargetLabels;
  return [
    ...own.map((l) => (targets.includes(l) ? `exported_${l}` : l)),
    ...targets,
    // Managed Service for Prometheus adds these to every series.
    "project_id",
    "location",
    "cluster",
  ];
}

const allRules: [string, AlertRule][] = [
  ...certManagerAlertRules({ trustManager: true }),
  ...linkerdIdentityAlertRules("cert-manager"),
  ...istioIdentityAlertRules({ namespace: "istio-system", trustNamespace: "cert-manager" }),
].map((r) => [r.alert, r]);

describe.each(allRules)("%s", (_name, rule) => {
  const parsed = parse(rule.expr);

  test("parses as PromQL", () => {
    expect(parsed.errors).toEqual([]);
    expect(parsed.selectors.length).toBeGreaterThan(0);
  });

  test("reads only metrics the pinned exporters define, and only labels their series carry", () => {
    for (const s of parsed.selectors) {
      expect({ metric: s.metric, known: s.metric in exportedMetrics }).toEqual({
        metric: s.metric,
        known: true,
      });
      for (const l of s.labels) expect(scrapedLabels(s.metric)).toContain(l);
    }
    const available = parsed.selectors.flatMap((s) => scrapedLabels(s.metric));
    for (const l of parsed.grouping) expect(available).toContain(l);
  });

  test("its annotations print only labels the alert's series carry", () => {
    const printed = [
      ...Object.values(rule.annotations)
        .join(" ")
        .matchAll(/\$labels\.(\w+)/g),
    ].map((m) => m[1]);
    // An aggregation keeps only its grouping labels.
    const available =
      parsed.grouping.length > 0 ? parsed.grouping : parsed.selectors.flatMap((s) => scrapedLabels(s.metric));
    for (const l of printed) expect(available).toContain(l);
  });

  test("has a severity, a summary and a description", () => {
    expect(["warning", "critical"]).toContain(rule.labels.severity);
    expect(Object.keys(rule.annotations).sort()).toEqual(["description", "summary"]);
    expect(rule.for).toMatch(/^\d+m$/);
  });
});

test("a certificate's renewal is overdue once less than 90% of its renew-before window is left, critical at half", () => {
  const rules = new Map(certManagerAlertRules({ trustManager: false }).map((r) => [r.alert, r]));
  expect([...rules.keys()]).toEqual([
    "CertificateRenewalOverdue",
    "CertificateExpiringUnrenewed",
    "CertificateNotReady",
    "CertManagerMetricsAbsent",
  ]);
  // A Certificate never issued reports 0 for both timestamps: it is CertificateNotReady's, not overdue.
  expect(rules.get("CertificateRenewalOverdue")?.expr).toBe(
    "(certmanager_certificate_expiration_timestamp_seconds - time()) < 0.9 * (certmanager_certificate_expiration_timestamp_seconds - certmanager_certificate_renewal_timestamp_seconds) and certmanager_certificate_expiration_timestamp_seconds > 0",
  );
  expect(rules.get("CertificateExpiringUnrenewed")?.expr).toBe(
    "(certmanager_certificate_expiration_timestamp_seconds - time()) < 0.5 * (certmanager_certificate_expiration_timestamp_seconds - certmanager_certificate_renewal_timestamp_seconds) and certmanager_certificate_expiration_timestamp_seconds > 0",
  );
  expect(rules.get("CertificateNotReady")?.expr).toBe(
    'certmanager_certificate_ready_status{condition!="True"} == 1',
  );
  expect(rules.get("CertManagerMetricsAbsent")?.expr).toBe("absent(certmanager_clock_time_seconds_gauge)");
  // trust-manager's Bundle controller only where trust-manager is installed.
  expect(certManagerAlertRules({ trustManager: true }).map((r) => r.alert)).toContain(
    "TrustManagerBundleSyncFailing",
  );
});

test("the mesh issuers and trust anchors: Linkerd's issuer as identity sees it, anchors and roots at 60 days", () => {
  expect(linkerdIdentityAlertRules("cert-manager").map((r) => [r.alert, r.expr])).toEqual([
    ["LinkerdIdentityIssuerExpiring", "issuer_cert_ttl_seconds < 24 * 3600"],
    [
      "LinkerdTrustAnchorExpiring",
      'certmanager_certificate_expiration_timestamp_seconds{exported_namespace="cert-manager", name="linkerd-trust-anchor"} - time() < 60 * 86400',
    ],
  ]);
  expect(
    istioIdentityAlertRules({ namespace: "istio-system", trustNamespace: "cert-manager" }).map((r) => [
      r.alert,
      r.expr,
    ]),
  ).toEqual([
    [
      "IstioIntermediateCaExpiring",
      'certmanager_certificate_expiration_timestamp_seconds{exported_namespace="istio-system", name="istio-intermediate-ca"} - time() < 21 * 86400',
    ],
    [
      "IstioRootCaExpiring",
      'certmanager_certificate_expiration_timestamp_seconds{exported_namespace="cert-manager", name="istio-root-ca"} - time() < 60 * 86400',
    ],
  ]);
});

test("the parser catches a broken expression and an unknown metric", () => {
  expect(parse("sum by (controller) (rate(x[5m]) > ").errors.length).toBeGreaterThan(0);
  expect(parse("certmanager_certificate_expiry_seconds < 1").selectors[0].metric in exportedMetrics).toBe(
    false,
  );
});

describe("both backends", () => {
  const rules = certManagerAlertRules({ trustManager: true });
  test("Prometheus Operator: a PrometheusRule labelled for the platform's Prometheus, PodMonitors by port name", () => {
    const chart = new Chart(new App(), "test");
    const target = {
      backend: "prometheus-operator",
      selectorLabels: { release: "kube-prometheus-stack" },
    } as const;
    new CertificateAlerts(chart, "a", { ...target, name: "certificates", namespace: "cert-manager", rules });
    new CertManagerMonitors(chart, "m", { ...target, namespace: "cert-manager", trustManager: true });
    const objects = chart.toJson() as { kind: string; metadata: { name: string }; spec: unknown }[];
    expect(objects.map((o) => [o.kind, o.metadata])).toEqual([
      [
        "PrometheusRule",
        { name: "certificates", namespace: "cert-manager", labels: { release: "kube-prometheus-stack" } },
      ],
      [
        "PodMonitor",
        { name: "cert-manager", namespace: "cert-manager", labels: { release: "kube-prometheus-stack" } },
      ],
      [
        "PodMonitor",
        { name: "trust-manager", namespace: "cert-manager", labels: { release: "kube-prometheus-stack" } },
      ],
    ]);
    expect(objects[0].spec).toEqual({ groups: [{ name: "certificates", rules }] });
    expect(objects[1].spec).toEqual({
      selector: {
        matchLabels: {
          "app.kubernetes.io/name": "cert-manager",
          "app.kubernetes.io/component": "controller",
        },
      },
      podMetricsEndpoints: [{ port: "http-metrics", interval: "60s" }],
    });
  });

  test("Managed Prometheus: ClusterRules, whose queries see every namespace, with only the fields its CRD defines", () => {
    const chart = new Chart(new App(), "test");
    const target = { backend: "managed-prometheus", selectorLabels: {} } as const;
    new CertificateAlerts(chart, "a", { ...target, name: "certificates", namespace: "cert-manager", rules });
    new CertManagerMonitors(chart, "m", { ...target, namespace: "cert-manager", trustManager: false });
    const objects = chart.toJson() as {
      apiVersion: string;
      kind: string;
      metadata: unknown;
      spec: unknown;
    }[];
    expect(objects.map((o) => [o.apiVersion, o.kind, o.metadata])).toEqual([
      ["monitoring.googleapis.com/v1", "ClusterRules", { name: "certificates" }],
      ["monitoring.googleapis.com/v1", "PodMonitoring", { name: "cert-manager", namespace: "cert-manager" }],
    ]);
    // prometheus-engine v0.17.2 pkg/operator/apis/monitoring/v1/rules_types.go: RuleGroup and Rule fields.
    const groups = (objects[0].spec as { groups: Record<string, unknown>[] }).groups;
    for (const g of groups) {
      expect(Object.keys(g).every((k) => ["name", "interval", "rules"].includes(k))).toBe(true);
      for (const r of g.rules as Record<string, unknown>[])
        expect(
          Object.keys(r).every((k) =>
            ["record", "alert", "expr", "for", "labels", "annotations"].includes(k),
          ),
        ).toBe(true);
    }
  });
});

describe("in a platform", () => {
  test("Linkerd with Prometheus: cert-manager's and Linkerd's rules, each where the Prometheus finds them", async () => {
    const result = await renderPlatform({ mesh: { kind: "linkerd" }, monitoring: { backend: "prometheus" } });
    const certificates = find(result, "PrometheusRule", "certificates", "cert-manager");
    const identity = find(result, "PrometheusRule", "linkerd-identity", "linkerd");
    for (const r of [certificates, identity])
      expect((r.inputs.metadata as { labels: unknown }).labels).toEqual({ release: "kube-prometheus-stack" });
    const alerts = (r: typeof certificates) =>
      (r.inputs.spec as { groups: { rules: AlertRule[] }[] }).groups.flatMap((g) =>
        g.rules.map((x) => x.alert),
      );
    expect(alerts(certificates)).toEqual([
      "CertificateRenewalOverdue",
      "CertificateExpiringUnrenewed",
      "CertificateNotReady",
      "CertManagerMetricsAbsent",
      "TrustManagerBundleSyncFailing",
    ]);
    expect(alerts(identity)).toEqual(["LinkerdIdentityIssuerExpiring", "LinkerdTrustAnchorExpiring"]);
    // cert-manager and trust-manager are scraped.
    expect(find(result, "PodMonitor", "cert-manager", "cert-manager").dependsOn).toEqual(
      expect.arrayContaining([expect.stringContaining("kube-prometheus-stack")]),
    );
    find(result, "PodMonitor", "trust-manager", "cert-manager");
  });

  test("Istio with Managed Prometheus: ClusterRules for cert-manager and for Istio's CAs", async () => {
    const result = await renderPlatform({
      mesh: { kind: "istio" },
      monitoring: { backend: "managed-prometheus" },
    });
    find(result, "ClusterRules", "certificates");
    const rules = (
      find(result, "ClusterRules", "istio-identity").inputs.spec as { groups: { rules: AlertRule[] }[] }
    ).groups[0].rules;
    expect(rules.map((r) => r.alert)).toEqual(["IstioIntermediateCaExpiring", "IstioRootCaExpiring"]);
    find(result, "PodMonitoring", "cert-manager", "cert-manager");
  });

  test("without monitoring, no monitors and no rules", async () => {
    const result = await renderPlatform({ mesh: { kind: "linkerd" }, monitoring: { backend: "none" } });
    expect(result.resources.filter((r) => /Rule|Monitor/.test(String(r.inputs.kind)))).toEqual([]);
  });
});
