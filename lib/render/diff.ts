import { Groups, type ChangeKind, type ObjectChange, type RenderDiff } from "./diffChanges";
import { diffChartObjects } from "./diffCharts";
import {
  keyOf,
  parseChartObjects,
  parseReleases,
  parseResources,
  type RenderFiles,
  type Resources,
} from "./diffBase";
import { compareResources, isProvider, removedResource, resourceName } from "./diffResources";
import { shortType } from "./graph";
import { RenderInputError } from "./project";

export { diffInputs, earlierRender, readRenderFolder, resolveDiffBase } from "./diffBase";
export type { DiffBase, DiffInput, EarlierRenderOptions, RenderFiles } from "./diffBase";
export type { FieldChange, Replacement } from "./diffFields";

export type { ChangeKind, ComponentChanges, ObjectChange, RenderDiff } from "./diffChanges";

/**
 * The upgrade preview (`render --diff`): what changed between an earlier render and this one, per
 * component, and which changes replace an object rather than update it (lib/versions/replacement.ts).
 * It reads only the files a render writes, so an earlier render can be a folder, a git ref rendered
 * again, or files a test assembles. A secret's value is never printed.
 */

/**
 * Compares two renders' files: every Pulumi resource by type and name (resources.yaml), Helm
 * releases among them; with cluster-objects.yaml on both sides, every object each chart renders, by
 * API group, kind, namespace and name. Pure: the same files give the same diff.
 */
export function diffRenders(
  before: RenderFiles,
  after: RenderFiles,
  labels: { readonly before: string; readonly after: string } = { before: "before", after: "after" },
): RenderDiff {
  if (before["resources.yaml"] === undefined || after["resources.yaml"] === undefined) {
    throw new RenderInputError(
      `a diff needs both renders' resources.yaml (${labels.before}, ${labels.after})`,
    );
  }
  const old = parseResources(before["resources.yaml"], "earlier");
  const now = parseResources(after["resources.yaml"], "new");
  const groups = new Groups();
  const label = (resources: Resources, key: string | undefined): string => {
    const parent = key === undefined ? undefined : resources.byKey.get(key);
    return parent ? `${parent.name} (${shortType(parent.type)})` : "(outside any component)";
  };

  // Providers first: a replaced provider replaces what it deploys.
  const replacedProviders = new Set<string>();
  const compared = new Map<string, ObjectChange | undefined>();
  const ordered = [...now.list].sort((a, b) => Number(!isProvider(a)) - Number(!isProvider(b)));
  for (const r of ordered) {
    if (r.component) continue;
    const was = old.byKey.get(keyOf(r));
    if (!was) continue;
    const change = compareResources(was, r, { old, now, replacedProviders });
    compared.set(keyOf(r), change);
    if (isProvider(r) && change?.change === "replaced") replacedProviders.add(keyOf(r));
  }
  for (const r of now.list) {
    if (r.component) continue;
    const key = keyOf(r);
    if (!old.byKey.has(key)) {
      groups.add(label(now, r.parent), { change: "added", object: resourceName(r), key });
      continue;
    }
    const change = compared.get(key);
    groups.order(label(now, r.parent));
    if (change) groups.add(label(now, r.parent), change);
  }
  for (const r of old.list) {
    if (r.component || now.byKey.has(keyOf(r))) continue;
    groups.add(label(old, r.parent), removedResource(r));
  }

  const notes: string[] = [];
  const beforeObjects = before["cluster-objects.yaml"];
  const afterObjects = after["cluster-objects.yaml"];
  if (beforeObjects !== undefined && afterObjects !== undefined) {
    diffChartObjects(
      parseChartObjects(beforeObjects, "earlier"),
      parseChartObjects(afterObjects, "new"),
      { old, now, groups, label },
      {
        old: parseReleases(before["helm-releases.yaml"], "earlier"),
        now: parseReleases(after["helm-releases.yaml"], "new"),
      },
    );
  } else if (beforeObjects !== undefined || afterObjects !== undefined) {
    notes.push(
      `only the ${beforeObjects ? "earlier" : "new"} render has cluster-objects.yaml, so the objects each chart renders are not compared: render both with --charts`,
    );
  } else {
    notes.push("the objects each chart renders are not compared: render with --charts to compare them too");
  }

  const components = groups.result();
  const counts: Record<ChangeKind, number> = { added: 0, changed: 0, removed: 0, replaced: 0 };
  for (const c of components) for (const o of c.objects) counts[o.change]++;
  return { before: labels.before, after: labels.after, counts, components, notes };
}
