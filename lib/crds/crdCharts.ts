import { charts, ingressControllerIdentities, type ChartName, type ChartPin } from "../versions";
import type { CrdFamily } from "../versions";

/**
 * A CRD chart: a pinned chart rendered with values that leave nothing but its CRDs, which the platform
 * applies itself (a `helm.v4.Chart`: each CRD its own resource, server-side applied, retained on delete).
 * It exists for charts that keep their CRDs in `crds/`, which Helm installs once and never upgrades
 * (HIP-0011, helm/community hips/hip-0011.md): their own release skips `crds/`, and a bump of the pin
 * upgrades the CRDs through this chart instead.
 */
export interface CrdChart {
  /** Its release name (`.Release.Name` when templated), as helm-releases.yaml lists it. */
  readonly release: string;
  /** The pinned chart it renders. */
  readonly chart: ChartName;
  /** The family it owns. */
  readonly family: CrdFamily;
  /** The chart whose `crds/` it stands in for: that chart's releases skip their `crds/`. */
  readonly replaces: ChartName;
  /** Values that render nothing but CRDs, at every supported Kubernetes version (the cluster tier checks it). */
  readonly values: Readonly<Record<string, unknown>>;
}

export const crdCharts = {
  // Traefik removed its `traefik-crds` chart in May 2026 (traefik/traefik-helm-chart fd6fca32) and tells users to
  // apply the main chart's CRDs themselves, since Helm does not update them (README.md "Upgrade the Standalone
  // Traefik Chart" at v41.3.0: `helm show crds traefik/traefik | kubectl apply --server-side --force-conflicts`).
  // So the CRD chart is the pinned traefik chart itself, every template turned off.
  "traefik-crds": {
    release: "traefik-crds",
    chart: "traefik",
    family: "traefik",
    replaces: "traefik",
    values: {
      // Each switch turns off the templates behind it (traefik v41.3.0 templates/deployment.yaml and
      // daemonset.yaml, service.yaml, rbac/*.yaml, ingressclass.yaml); every other template is off by default.
      deployment: { enabled: false },
      service: { enabled: false },
      rbac: { enabled: false },
      ingressClass: { enabled: false },
      // A named account is one the chart takes as existing, so it renders none (templates/rbac/serviceaccount.yaml:
      // `if not .Values.serviceAccount.name`); the real release's name, should a template ever use it.
      serviceAccount: { name: ingressControllerIdentities.traefik.serviceAccount },
    },
  },
  // kube-prometheus-stack keeps the Prometheus Operator's CRDs in its `crds` subchart's crds/ (charts/crds/crds at
  // 88.5.3), which Helm never upgrades: the CRD chart is the pinned kube-prometheus-stack itself, every template
  // turned off, so the CRDs are always its operator's own version and one pin moves both.
  "prometheus-operator-crds": {
    release: "prometheus-operator-crds",
    chart: "kubePrometheusStack",
    family: "prometheusOperator",
    replaces: "kubePrometheusStack",
    values: {
      // Each switch turns off the templates behind it (kube-prometheus-stack 88.5.3 values.yaml and templates/):
      // the rules, Alertmanager, Prometheus, the operator, and the grafana, kube-state-metrics and
      // prometheus-node-exporter subcharts (Chart.yaml `condition`s). kubernetesServiceMonitors.enabled gates every
      // ServiceMonitor for the Kubernetes components (templates/exporters); every other template is off by default.
      defaultRules: { create: false },
      alertmanager: { enabled: false },
      prometheus: { enabled: false },
      prometheusOperator: { enabled: false },
      grafana: { enabled: false },
      kubeStateMetrics: { enabled: false },
      nodeExporter: { enabled: false },
      kubernetesServiceMonitors: { enabled: false },
      // The crds subchart's condition (Chart.yaml `crds.enabled`), on by default: said, since it is the point.
      crds: { enabled: true },
    },
  },
} as const satisfies Record<string, CrdChart>;

export type CrdChartName = keyof typeof crdCharts;

export function isCrdChartName(name: string): name is CrdChartName {
  return Object.prototype.hasOwnProperty.call(crdCharts, name);
}

/** The CRD chart that stands in for a chart's `crds/` for one family, if one does. */
export function crdChartReplacing(family: CrdFamily, chart: ChartName): CrdChartName | undefined {
  return (Object.keys(crdCharts) as CrdChartName[]).find(
    (c) => crdCharts[c].family === family && crdCharts[c].replaces === chart,
  );
}

/** A chart keeps its CRDs in `crds/` (lib/versions `crds.in`), which Helm installs once and never upgrades. */
export function keepsCrdsInCrdsDir(chart: ChartName): boolean {
  const pin: ChartPin = charts[chart];
  return pin.crds?.in === "crds/";
}
