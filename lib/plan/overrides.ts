import type { ConfigProblem, PlatformConfig } from "../config";
import { crdClaimProblems, crdValues, type CrdOwners } from "../crds";
import type { ReliedOnValue } from "../meshes";
import { finalValues, valueKeyProblems, type ChartContext } from "../deploy";
import { charts, type ChartName } from "../versions";

/**
 * The chart context, with every override checked before any resource exists: it names a release this
 * environment installs; every key it sets is one the pinned chart has; it leaves CRD flags alone
 * unless it says so; and even then, the values it produces must not install CRDs another owner has.
 * Every problem is returned.
 */
export function chartContext(
  config: PlatformConfig,
  owners: CrdOwners,
  releases: Readonly<
    Record<
      string,
      { readonly chart: ChartName; readonly version?: string; readonly reliedOn?: readonly ReliedOnValue[] }
    >
  >,
): { context: ChartContext; problems: ConfigProblem[] } {
  const context: ChartContext = { owners, overrides: config.overrides.charts, source: config.chartSource };
  const problems: ConfigProblem[] = [];
  for (const [release, override] of Object.entries(config.overrides.charts)) {
    const at = `platform:overrides.charts.${release}`;
    const planned = releases[release];
    if (!planned) {
      problems.push({
        path: at,
        problem: `names no Helm release of this environment`,
        allowed: Object.keys(releases).join(", ") || "none: this environment installs no chart",
        fix: "use one of those release names, or remove the override",
      });
      continue;
    }
    const chart = planned.chart;
    // An istiod revision may run another Istio version than the pin (a canary upgrade).
    const version = planned.version ?? charts[chart].version;
    const keyProblems = valueKeyProblems(chart, version, release, override.values, override);
    problems.push(...keyProblems.user);
    const owned = pathsOf(crdValues(chart, owners));
    const touched = pathsOf(override.values).filter((p) => owned.includes(p));
    if (touched.length > 0 && !override.overrideCrdFlags) {
      problems.push(
        ...touched.map((path) => ({
          path: `${at}.values.${path}`,
          problem: `is decided by CRD ownership (lib/crds), so the platform would overwrite it`,
          allowed: `values other than ${owned.join(", ")}`,
          fix: `remove it, or set ${at}.overrideCrdFlags to true to take responsibility for the CRDs`,
        })),
      );
    }
    for (const relied of planned.reliedOn ?? []) {
      const set = valueAt(override.values, relied.path.split("."));
      if (set === undefined || set === relied.value) continue;
      problems.push({
        path: `${at}.values.${relied.path}`,
        problem: `is ${JSON.stringify(set)}, but ${relied.reason}`,
        allowed: JSON.stringify(relied.value),
        fix: `remove ${at}.values.${relied.path}`,
      });
    }
    problems.push(
      ...crdClaimProblems(owners, [{ release, chart, values: finalValues(chart, {}, context, release) }]),
    );
  }
  return { context, problems };
}

function valueAt(values: Record<string, unknown>, keys: readonly string[]): unknown {
  let cur: unknown = values;
  for (const k of keys) {
    if (cur === null || typeof cur !== "object" || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

function pathsOf(values: Record<string, unknown>, prefix = ""): string[] {
  return Object.entries(values).flatMap(([k, v]) =>
    v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length > 0
      ? pathsOf(v as Record<string, unknown>, `${prefix}${k}.`)
      : [`${prefix}${k}`],
  );
}
