import { ConfigError, type ConfigProblem, type PlatformConfig } from "../config";
import { chartCrdSwitches, crdFamilies, helmFlag, type ChartName, type CrdFamily } from "../versions";
import {
  crdChartReplacing,
  crdCharts,
  isCrdChartName,
  keepsCrdsInCrdsDir,
  type CrdChartName,
} from "./crdCharts";

/** Who installs, upgrades and (never) deletes a CRD family on one cluster. */
export type CrdOwner =
  | { readonly kind: "gke"; readonly reason: string }
  | { readonly kind: "chart"; readonly chart: ChartName; readonly reason: string }
  /** The platform applies the family from a CRD chart (`crdCharts`): CRDs only, server-side, upgraded with the pin. */
  | { readonly kind: "crd-chart"; readonly crdChart: CrdChartName; readonly reason: string }
  | { readonly kind: "platform"; readonly reason: string }
  | { readonly kind: "pre-installed"; readonly reason: string };

/** The owner of every family the environment needs; a family that is absent is not needed. */
export type CrdOwners = Readonly<Partial<Record<CrdFamily, CrdOwner>>>;

/** Two owners for one family: a config problem naming both, before anything is deployed. */
function twoOwners(
  path: string,
  family: CrdFamily,
  first: string,
  second: string,
  fix: string,
): ConfigProblem {
  return {
    path,
    problem:
      `${crdFamilies[family].title} CRDs (${crdFamilies[family].groups.join(", ")}) would have two owners: ${first} and ${second}. ` +
      "Two owners means one of them deletes or downgrades the other's CRDs, and every object in them",
    fix,
  };
}

/** What CRD ownership needs to know of the environment's mesh (lib/meshes `Mesh`). */
export interface MeshCrdClaims {
  /** Families the mesh's charts own. */
  readonly crdOwners: readonly {
    readonly family: CrdFamily;
    readonly chart: ChartName;
    readonly reason: string;
  }[];
  /** Mesh identity is issued by cert-manager. */
  readonly needsCertManager: boolean;
}

export function describeOwner(owner: CrdOwner): string {
  switch (owner.kind) {
    case "gke":
      return `GKE (${owner.reason})`;
    case "chart":
      return `the ${owner.chart} chart (${owner.reason})`;
    case "crd-chart":
      return `the ${owner.crdChart} CRD chart (${owner.reason})`;
    case "platform":
      return `the platform (${owner.reason})`;
    case "pre-installed":
      return `a pre-installed copy (${owner.reason})`;
  }
}

/**
 * Decides one owner per family from the environment and its mesh; a family two would own is a problem
 * (every problem is returned, none thrown).
 */
export function crdOwnership(
  config: PlatformConfig,
  mesh: MeshCrdClaims,
): { owners: CrdOwners; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const owners: Partial<Record<CrdFamily, CrdOwner>> = {
    // GKE installs BackendConfig, FrontendConfig, the Gateway policies and PodMonitoring itself.
    gke: { kind: "gke", reason: "installed with every GKE cluster" },
  };

  const declaredGateway = config.crds.gatewayApi;
  if (config.cluster.gatewayApi === "standard") {
    if (declaredGateway) {
      problems.push(
        twoOwners(
          "platform:crds.gatewayApi",
          "gatewayApi",
          "GKE (platform:cluster.gatewayApi is standard)",
          `${declaredGateway === "platform" ? "the platform's bundle" : "a pre-installed copy"} (platform:crds.gatewayApi is ${declaredGateway})`,
          'remove platform:crds.gatewayApi while GKE owns the Gateway API, or set platform:cluster.gatewayApi to "disabled"',
        ),
      );
    }
    owners.gatewayApi = { kind: "gke", reason: "platform:cluster.gatewayApi is standard" };
  } else if (declaredGateway === "pre-installed") {
    owners.gatewayApi = { kind: "pre-installed", reason: "platform:crds.gatewayApi is pre-installed" };
  } else {
    // Without GKE's channel, the platform applies the pinned upstream standard bundle as its own resources.
    owners.gatewayApi = { kind: "platform", reason: "platform:cluster.gatewayApi is disabled" };
  }

  if (needsCertManager(config, mesh)) {
    owners.certManager = {
      kind: "chart",
      chart: "certManager",
      reason: mesh.needsCertManager
        ? "mesh identity is issued by cert-manager"
        : config.ingress.kind === "traefik" || config.ingress.kind === "ingress-nginx"
          ? "ingress certificates come from cert-manager"
          : "the Prometheus Operator's webhook certificate comes from cert-manager",
    };
  }
  if (config.ingress.kind === "traefik") {
    // Traefik keeps its CRDs in crds/, which Helm never upgrades: the platform applies them from its CRD chart.
    owners.traefik = {
      kind: "crd-chart",
      crdChart: "traefik-crds",
      reason: "platform:ingress.kind is traefik",
    };
  }
  for (const o of mesh.crdOwners) owners[o.family] = { kind: "chart", chart: o.chart, reason: o.reason };

  const declaredPrometheus = config.crds.prometheusOperator;
  if (config.monitoring.backend === "prometheus") {
    if (declaredPrometheus === "pre-installed") {
      problems.push(
        twoOwners(
          "platform:crds.prometheusOperator",
          "prometheusOperator",
          "the prometheus-operator-crds CRD chart (platform:monitoring.backend is prometheus)",
          "a pre-installed copy (platform:crds.prometheusOperator is pre-installed)",
          'set platform:monitoring.backend to "existing-prometheus" to use the Prometheus already there, or remove platform:crds.prometheusOperator',
        ),
      );
    }
    // kube-prometheus-stack keeps them in crds/, which Helm never upgrades: the platform applies them from the
    // CRD chart (the same chart, every template off), and the kube-prometheus-stack release installs none.
    owners.prometheusOperator = {
      kind: "crd-chart",
      crdChart: "prometheus-operator-crds",
      reason: "platform:monitoring.backend is prometheus",
    };
  } else if (config.monitoring.backend === "existing-prometheus" || declaredPrometheus === "pre-installed") {
    owners.prometheusOperator = { kind: "pre-installed", reason: "an existing Prometheus Operator" };
  }
  return { owners, problems };
}

/**
 * cert-manager issues mesh identity, certificates for hosts served by Traefik or ingress-nginx, and the
 * Prometheus Operator's admission webhook certificate with the platform's kube-prometheus-stack: one owner
 * of every certificate, renewed and alerted on, instead of the chart's certgen Jobs (and their ClusterRole
 * that patches webhook configurations) on the one layout that would not have cert-manager otherwise (no mesh,
 * GKE's Gateway).
 */
export function needsCertManager(
  config: Pick<PlatformConfig, "ingress" | "monitoring">,
  mesh: MeshCrdClaims,
): boolean {
  return (
    mesh.needsCertManager ||
    config.ingress.kind === "traefik" ||
    config.ingress.kind === "ingress-nginx" ||
    config.monitoring.backend === "prometheus"
  );
}

/** The chart that owns a family through its own release, if a chart does. */
function ownedByChart(owners: CrdOwners, family: CrdFamily, chart: ChartName): boolean {
  const o = owners[family];
  return o?.kind === "chart" && o.chart === chart && crdChartReplacing(family, chart) === undefined;
}

/**
 * The owner of a family as one of the platform's pieces: a chart that keeps the family in `crds/` stands
 * for its CRD chart (its release never installs them), so an owner named either way means the CRD chart.
 */
export function effectiveOwner(owners: CrdOwners, family: CrdFamily): CrdOwner | undefined {
  const o = owners[family];
  if (o?.kind !== "chart") return o;
  const crdChart = crdChartReplacing(family, o.chart);
  return crdChart ? { kind: "crd-chart", crdChart, reason: o.reason } : o;
}

/** The CRD charts the platform applies for these owners, in `crdCharts` order. */
export function crdChartsOf(owners: CrdOwners): CrdChartName[] {
  return (Object.keys(crdCharts) as CrdChartName[]).filter((c) => {
    const o = effectiveOwner(owners, crdCharts[c].family);
    return o?.kind === "crd-chart" && o.crdChart === c;
  });
}

/** The owner of a family when a component used on its own installs it: a chart, or the CRD chart that stands in for it. */
export function ownerFor(family: CrdFamily, chart: ChartName | CrdChartName, reason: string): CrdOwner {
  if (isCrdChartName(chart)) return { kind: "crd-chart", crdChart: chart, reason };
  const crdChart = crdChartReplacing(family, chart);
  return crdChart ? { kind: "crd-chart", crdChart, reason } : { kind: "chart", chart, reason };
}

/**
 * The values that make a chart install exactly the CRDs it owns and nothing else (the chart's switches,
 * `chartCrdSwitches` in lib/versions). Components merge these last: a chart's CRD flags are never written
 * by hand.
 */
export function crdValues(chart: ChartName, owners: CrdOwners): Record<string, unknown> {
  return chartCrdSwitches[chart]?.values?.((family) => ownedByChart(owners, family, chart)) ?? {};
}

/**
 * Whether a release skips its chart's `crds/` (Helm's --skip-crds): always for a chart that keeps its CRDs
 * there, since Helm would install them once and never upgrade them (the platform applies them from a CRD
 * chart instead); otherwise where its values install no CRDs.
 */
export function releaseSkipsCrds(chart: ChartName, values: Readonly<Record<string, unknown>>): boolean {
  return keepsCrdsInCrdsDir(chart) || crdClaims(chart, values).length === 0;
}

/**
 * What a release (or a CRD chart) would install, judged from its final values and whether it skips its
 * chart's `crds/` (the chart's switches, `chartCrdSwitches` in lib/versions): the check behind every override.
 */
export function crdClaims(
  chart: ChartName,
  values: Readonly<Record<string, unknown>>,
  skipCrds = false,
): CrdFamily[] {
  return chartCrdSwitches[chart]?.claims(helmFlag(values), skipCrds, values) ?? [];
}

/** A release, or a CRD chart, as the ownership check sees it. */
export interface ReleaseClaim {
  readonly release: string;
  readonly chart: ChartName;
  readonly values: Readonly<Record<string, unknown>>;
  /** The release skips its chart's crds/. @default as the platform installs it (`releaseSkipsCrds`); never for a CRD chart */
  readonly skipCrds?: boolean;
  /** It is this CRD chart, not a Helm release. @default a Helm release */
  readonly crdChart?: CrdChartName;
}

/**
 * Every family a release would install must be owned by that release's chart. A chart that would
 * install CRDs someone else owns (say linkerd-crds installing HTTPRoute while GKE owns the Gateway
 * API) is a problem before anything is deployed.
 */
export function crdClaimProblems(owners: CrdOwners, releases: readonly ReleaseClaim[]): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const r of releases) {
    const skip = r.skipCrds ?? (r.crdChart ? false : releaseSkipsCrds(r.chart, r.values));
    for (const family of crdClaims(r.chart, r.values, skip)) {
      const owner = effectiveOwner(owners, family);
      if (!r.crdChart && owner?.kind === "chart" && owner.chart === r.chart) continue;
      if (r.crdChart && owner?.kind === "crd-chart" && owner.crdChart === r.crdChart) continue;
      problems.push(
        twoOwners(
          `platform:overrides.charts.${r.release}`,
          family,
          owner ? describeOwner(owner) : "nobody (the environment does not need them)",
          r.crdChart
            ? `the ${r.crdChart} CRD chart (its values would apply them)`
            : `Helm release ${r.release} (its values would install them)`,
          `leave the ${r.chart} chart's CRD values to the platform (lib/crds derives them)`,
        ),
      );
    }
  }
  return problems;
}

/** `crdClaimProblems`, thrown as one ConfigError. */
export function checkCrdClaims(owners: CrdOwners, releases: readonly ReleaseClaim[]): void {
  const problems = crdClaimProblems(owners, releases);
  if (problems.length > 0) throw new ConfigError(problems);
}
