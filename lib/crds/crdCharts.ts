import { charts, ingressControllerIdentities, type ChartName, type ChartPin } from "../versions";
import type { CrdFamily } from "./ownership";

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
  // prometheus-community's CRD-only chart at kube-prometheus-stack's operator version (lib/versions/charts.ts).
  "prometheus-operator-crds": {
    release: "prometheus-operator-crds",
    chart: "prometheusOperatorCrds",
    family: "prometheusOperator",
    replaces: "kubePrometheusStack",
    // Its defaults render all ten CRDs and nothing else (values.yaml `crds.<kind>.enabled: true`, charts/crds/templates).
    values: {},
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
