import { crdClaims, crdFamilies, crdFamilyOf, type CrdFamily } from "../crds";
import { charts, type ChartName } from "../versions";
import type { CrossingFinding } from "./crossings";
import { str, obj } from "../json";
import type { ObjectSet, TemplatedRelease } from "./objectSet";

/**
 * The CRD ownership model's chart facts (`crdClaims` in lib/crds/ownership.ts: which CRD families a
 * release installs, judged from its values and whether it skips its chart's crds/), held to the CRDs each
 * release's pinned chart really renders with the platform's values. The model decides every owner and
 * refuses every override that would give a family two owners; a family the chart renders that the model
 * does not predict would be installed by an owner nobody chose, and a family it predicts that the chart
 * does not render would leave the platform waiting for CRDs that never come.
 */

/** What one release's claims and its templated CRDs disagree on. */
function disagreements(release: TemplatedRelease, chart: ChartName): string[] {
  const predicted = new Set(crdClaims(chart, release.values, release.crdsOnly ? false : release.skipCrds));
  const groups = release.objects
    .filter((o) => o.kind === "CustomResourceDefinition")
    .map((o) => str(obj(o.spec).group) ?? "");
  const rendered = new Set<CrdFamily>();
  const out: string[] = [];
  for (const group of [...new Set(groups)].sort()) {
    const family = crdFamilyOf(group);
    if (family) rendered.add(family);
    else out.push(`renders CRDs of API group ${group}, which no CRD family of lib/crds names`);
  }
  for (const f of rendered)
    if (!predicted.has(f))
      out.push(`renders the ${crdFamilies[f].title} CRDs, and crdClaims says its values install none`);
  for (const f of predicted)
    if (!rendered.has(f))
      out.push(
        `crdClaims says its values install the ${crdFamilies[f].title} CRDs, and the chart renders none`,
      );
  return out;
}

/** Every release whose templated CRDs differ from what the ownership model claims for it. */
export function crdClaimsHold(set: ObjectSet): CrossingFinding[] {
  return set.releases.flatMap((release) => {
    if (release.error) return [];
    const chart = (Object.keys(charts) as ChartName[]).find((c) => charts[c].chart === release.chart);
    if (!chart) return [];
    return disagreements(release, chart).map((message) => ({
      object: `release ${release.namespace}/${release.name}`,
      message: `${message}: correct crdClaims in lib/crds/ownership.ts (from the chart's templates and crds/ at ${release.chart} ${release.version}), so CRD ownership judges what the chart installs`,
    }));
  });
}
