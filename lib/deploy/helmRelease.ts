import * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import {
  checkCrdClaims,
  crdCharts,
  crdChartsOf,
  crdClaims,
  crdFamilies,
  crdValues,
  ownerFor,
  releaseSkipsCrds,
  type CrdChartName,
  type CrdFamily,
  type CrdOwner,
  type CrdOwners,
} from "../crds";
import type { ChartName as PinnedChart } from "../versions";
import { ConfigError, nearest, type ConfigProblem } from "../config";
import {
  chartLocation,
  upstreamCharts,
  type ChartFrom,
  type ChartLocation,
  type ChartSource,
} from "./chartSource";
import { charts, isPlainRecord, siblingKeys, unknownValuePaths, type ChartName } from "../versions";

/** Plain JSON values for a chart. */
export type Values = Record<string, unknown>;

/** A user's values for one release, merged over the platform's (`platform:overrides.charts.<release>`). */
export interface ChartOverride {
  readonly values: Values;
  /** The user takes responsibility for CRD flags that CRD ownership decides. */
  readonly overrideCrdFlags: boolean;
}

/** What every release needs besides its own values: the CRD owners, the user's overrides, where charts come from. */
export interface ChartContext {
  readonly owners: CrdOwners;
  /** By release name. */
  readonly overrides: Readonly<Record<string, ChartOverride>>;
  /** Where the charts come from (`platform:chartSource`). @default each chart's upstream repository */
  readonly source?: ChartSource;
}

/**
 * The chart context of a component used on its own, without a plan: each chart (or CRD chart) owns the
 * CRD families named here, GKE owns the Gateway API (its standard channel) and its own CRDs, and nothing
 * is overridden. A chart that keeps a family in `crds/` (Traefik, kube-prometheus-stack) stands for the CRD
 * chart that applies it (lib/crds `crdCharts`), since Helm would never upgrade it.
 */
export function standaloneCharts(
  owned: Readonly<Partial<Record<CrdFamily, PinnedChart | CrdChartName>>>,
): ChartContext {
  const owners: Partial<Record<CrdFamily, CrdOwner>> = {
    gke: { kind: "gke", reason: "installed with every GKE cluster" },
    gatewayApi: { kind: "gke", reason: "GKE serves the Gateway API on its standard channel" },
  };
  for (const [family, chart] of Object.entries(owned) as [CrdFamily, PinnedChart | CrdChartName][]) {
    owners[family] = ownerFor(family, chart, "installed by this component");
  }
  return { owners, overrides: {} };
}

/**
 * A release's final values: the component's, then the user's override, then the CRD flags that
 * ownership decides, which win unless the user explicitly took them over (overrideCrdFlags).
 */
export function finalValues(
  chart: PinnedChart,
  componentValues: Values,
  context: ChartContext,
  release: string,
): Values {
  const override = context.overrides[release];
  const crd = crdValues(chart, context.owners);
  return override?.overrideCrdFlags
    ? deepMerge(componentValues, crd, override.values)
    : deepMerge(componentValues, override?.values ?? {}, crd);
}

export interface PinnedReleaseArgs {
  readonly chart: ChartName;
  /** Helm release name. */
  readonly name: string;
  readonly namespace: string;
  /** The component's values; the user's override and the CRD flags are merged over them (finalValues). */
  readonly values: Values;
  readonly charts: ChartContext;
  readonly provider: k8s.Provider;
  readonly parent: pulumi.Resource;
  readonly dependsOn?: readonly pulumi.Resource[];
  /** Another version of the chart than its pin (an Istio canary revision). @default the pin */
  readonly version?: string;
  /**
   * That version's upstream repository and digest, where they are not the pin's (an Istio revision at a
   * version this package does not pin yet). A mirror or folder in the chart source still applies.
   * @default the pin's repository and the chart source's digest
   */
  readonly from?: ChartFrom;
}

/**
 * A Helm release of a pinned chart (lib/versions). Its CRD flags come from the CRD ownership table,
 * its final values are checked against that table before anything is registered, and a release
 * that installs CRDs is retained on delete: removing it from the stack never deletes CRDs, nor the
 * custom resources that live in them. A chart's `crds/` never comes in through its release: Helm would
 * install those CRDs once and never upgrade them, so a CRD chart applies them (`crdChart`).
 */
export function pinnedRelease(args: PinnedReleaseArgs): k8s.helm.v3.Release {
  const pin = charts[args.chart];
  const values = finalValues(args.chart, args.values, args.charts, args.name);
  const skipCrds = releaseSkipsCrds(args.chart, values);
  checkCrdClaims(args.charts.owners, [{ release: args.name, chart: args.chart, values, skipCrds }]);
  checkValueKeys(
    args.chart,
    args.version ?? pin.version,
    args.name,
    values,
    args.charts.overrides[args.name],
  );
  const claims = crdClaims(args.chart, values, skipCrds);
  const fromCrdChart = crdChartsOf(args.charts.owners).find((c) => crdCharts[c].replaces === args.chart);
  const location = releaseChart(args);
  return new k8s.helm.v3.Release(
    args.name,
    {
      name: args.name,
      namespace: args.namespace,
      chart: location.chart,
      version: location.version,
      ...(location.repo ? { repositoryOpts: { repo: location.repo } } : {}),
      values,
      // Namespaces are the platform's own objects, with Pod Security and mesh labels.
      createNamespace: false,
      // Helm's crds/ directory only where the chart owns CRDs and keeps none there (kube-prometheus-stack
      // and Traefik keep theirs there, and their CRD charts apply them); templated CRDs follow the values.
      skipCrds,
      description:
        claims.length > 0
          ? `installs the ${claims.map((f) => crdFamilies[f].title).join(", ")} CRDs it owns; retained on delete`
          : fromCrdChart
            ? `installs no CRDs: the ${fromCrdChart} CRD chart applies the ones in its crds/, which Helm never upgrades`
            : "installs no CRDs",
      // Wait for hooks such as cert-manager's startupapicheck, so dependants start against a working API.
      waitForJobs: true,
      timeout: 600,
      maxHistory: 10,
    },
    {
      provider: args.provider,
      parent: args.parent,
      dependsOn: [...(args.dependsOn ?? [])],
      retainOnDelete: claims.length > 0,
    },
  );
}

/**
 * Where Helm finds a release's chart: the chart source's, or a revision's own repository and digest.
 * A chart it cannot find is a config error; the plan reports the same before anything is registered.
 */
export function releaseChart(
  args: Pick<PinnedReleaseArgs, "chart" | "charts" | "version" | "from">,
): ChartLocation {
  const pin = charts[args.chart];
  const source = args.charts.source ?? upstreamCharts;
  const { location, problems } = chartLocation(
    {
      name: pin.chart,
      version: args.version ?? pin.version,
      repo: args.from?.repo ?? pin.repo,
      digest: args.from ? args.from.digest : source.digests[pin.chart],
      digestPath: args.from?.configPath,
    },
    source,
  );
  if (!location) throw new ConfigError(problems);
  return location;
}

/**
 * Values the pinned chart does not have: Helm would ignore them without a word, and the setting would
 * silently not apply. Those a user's override sets are config problems naming the key; those the
 * platform sets itself are defects.
 */
export function valueKeyProblems(
  chart: ChartName,
  version: string,
  release: string,
  values: Values,
  override: ChartOverride | undefined,
): { user: ConfigProblem[]; platform: string[] } {
  const unknown = unknownValuePaths(chart, version, values) ?? [];
  const pin = charts[chart];
  const fromUser = unknown.filter((keys) => hasPath(override?.values ?? {}, keys));
  const platform = unknown.filter((keys) => !hasPath(override?.values ?? {}, keys)).map((k) => k.join("."));
  const user = fromUser.map((keys) => {
    const p = keys.join(".");
    const leaf = keys[keys.length - 1];
    const parent = keys.slice(0, -1).join(".");
    const siblings = siblingKeys(chart, keys);
    const guess = nearest(leaf, siblings);
    return {
      path: `platform:overrides.charts.${release}.values.${p}`,
      problem: `${pin.chart} ${version} has no value ${p}; Helm would ignore it and the setting would not apply`,
      allowed:
        siblings.length > 0
          ? `${parent ? `keys under ${parent}` : "top-level keys"}: ${siblings.slice(0, 12).join(", ")}${siblings.length > 12 ? ", ..." : ""}`
          : undefined,
      fix: guess
        ? `did you mean ${parent ? `${parent}.` : ""}${guess}? Use the key as the chart's values.yaml spells it (${pin.source})`
        : `use a key from the chart's values.yaml (${pin.source})`,
    };
  });
  return { user, platform };
}

/** `valueKeyProblems`, thrown: a user's key as a ConfigError, the platform's own as a defect. */
export function checkValueKeys(
  chart: ChartName,
  version: string,
  release: string,
  values: Values,
  override: ChartOverride | undefined,
): void {
  const { user, platform } = valueKeyProblems(chart, version, release, values, override);
  if (platform.length > 0) {
    throw new Error(
      `The platform sets ${platform.join(", ")} on ${charts[chart].chart} ${version}, which the chart does not have (${charts[chart].source}). This is a defect in the platform; please report it.`,
    );
  }
  if (user.length > 0) throw new ConfigError(user);
}

function hasPath(values: Values, keys: readonly string[]): boolean {
  let cur: unknown = values;
  for (const k of keys) {
    if (!isPlainRecord(cur) || !(k in cur)) return false;
    cur = cur[k];
  }
  return true;
}

/** Merges plain objects; arrays and scalars in later sources replace earlier ones. */
export function deepMerge(...sources: Values[]): Values {
  const out: Values = {};
  for (const source of sources) {
    for (const [key, value] of Object.entries(source)) {
      const prev = out[key];
      out[key] = isPlainRecord(prev) && isPlainRecord(value) ? deepMerge(prev, value) : value;
    }
  }
  return out;
}
