/** The objects each chart renders in two renders: which were added, removed, changed or replaced, and what Helm does about it. */
import { charts, kubernetesImmutableFields, replacementBehaviour, type ChartPin } from "../versions";
import { groupOf, objectName, type ChartObject, type ReleaseEntry, type Resources } from "./diffBase";
import {
  dedupe,
  fieldChanges,
  forcing,
  secretFields,
  text,
  triggered,
  type Found,
  type Trigger,
} from "./diffFields";
import type { Groups, ObjectChange } from "./diffChanges";
import { helmRelease } from "./diffResources";

interface ChartContext {
  readonly old: Resources;
  readonly now: Resources;
  readonly groups: Groups;
  readonly label: (resources: Resources, key: string | undefined) => string;
}

export function diffChartObjects(
  before: ReadonlyMap<string, ChartObject>,
  after: ReadonlyMap<string, ChartObject>,
  ctx: ChartContext,
  releases: { readonly old: readonly ReleaseEntry[]; readonly now: readonly ReleaseEntry[] },
): void {
  const groupOfRelease = (release: string): { anchor: string; label: string } => {
    const find = (resources: Resources) =>
      resources.list.find(
        (r) =>
          r.type === helmRelease &&
          `${text(r.inputs?.namespace, "default")}/${text(r.inputs?.name, r.name)}` === release,
      );
    const resource = find(ctx.now) ?? find(ctx.old);
    const anchor = ctx.label(find(ctx.now) ? ctx.now : ctx.old, resource?.parent);
    const at = (list: readonly ReleaseEntry[]) => list.find((r) => `${r.namespace}/${r.name}` === release);
    const b = at(releases.old) ?? [...before.values()].find((o) => o.release === release);
    const a = at(releases.now) ?? [...after.values()].find((o) => o.release === release);
    const version =
      b && a && b.version !== a.version ? `${b.version} -> ${a.version}` : ((a ?? b)?.version ?? "");
    return { anchor, label: `${anchor} / release ${release} (${(a ?? b)?.chart ?? ""} ${version})` };
  };
  const groups = new Map<string, { anchor: string; label: string }>();
  const groupFor = (release: string) => {
    const g = groups.get(release) ?? groupOfRelease(release);
    groups.set(release, g);
    return g;
  };
  for (const [key, a] of after) {
    const b = before.get(key);
    const { anchor, label } = groupFor(a.release);
    if (!b) {
      ctx.groups.addAfter(anchor, label, { change: "added", object: objectName(a.object), key });
      continue;
    }
    const change = compareChartObjects(b, a);
    if (change) ctx.groups.addAfter(anchor, label, change);
  }
  for (const [key, b] of before) {
    if (after.has(key)) continue;
    const { anchor, label } = groupFor(b.release);
    const annotations = ((b.object.metadata as Record<string, unknown> | undefined)?.annotations ??
      {}) as Record<string, unknown>;
    const kept = annotations["helm.sh/resource-policy"] === "keep";
    ctx.groups.addAfter(anchor, label, {
      change: "removed",
      object: objectName(b.object),
      key,
      notes: [
        kept
          ? `kept: it carries helm.sh/resource-policy: keep, so Helm leaves it in the cluster (${replacementBehaviour.helmRemoved})`
          : `Helm deletes it from the cluster (${replacementBehaviour.helmRemoved})`,
      ],
    });
  }
}

function compareChartObjects(b: ChartObject, a: ChartObject): ObjectChange | undefined {
  const secretPaths = a.object.kind === "Secret" ? secretFields : [];
  const found: Found[] = fieldChanges(b.object, a.object, secretPaths);
  if (found.length === 0) return undefined;
  const notes: string[] = [];
  const annotations = ((a.object.metadata as Record<string, unknown> | undefined)?.annotations ??
    {}) as Record<string, unknown>;
  const hook = typeof annotations["helm.sh/hook"] === "string" ? annotations["helm.sh/hook"] : undefined;
  let replacedBy: Trigger[] = [];
  if (hook !== undefined) {
    notes.push(
      `a Helm hook (${hook}): Helm creates it anew when the hook runs, never patches it (${replacementBehaviour.helmHooks})`,
    );
  } else {
    const kind = String(a.object.kind);
    replacedBy = triggered(
      kubernetesImmutableFields[`${groupOf(a.object.apiVersion)}/${kind}`] ?? [],
      b.object,
      a.object,
      {},
    );
    if (replacedBy.length > 0) {
      notes.push(
        `Helm cannot patch it (${replacementBehaviour.helmPatch}): the upgrade fails until the object is deleted, and Helm then creates it again`,
      );
    }
  }
  if (a.object.kind === "CustomResourceDefinition") {
    const pins: readonly ChartPin[] = Object.values(charts);
    const pin = pins.find((c) => c.chart === a.chart);
    if (pin?.crds?.in === "crds/") {
      notes.push(
        `${a.chart} ships its CRDs in crds/, which Helm never upgrades (${replacementBehaviour.helmCrds}): apply the new CRDs before the bump (docs/upgrades.md)`,
      );
    }
  }
  return {
    change: replacedBy.length > 0 ? "replaced" : "changed",
    object: objectName(a.object),
    key: a.key,
    fields: found.map((f) => forcing(f, replacedBy)),
    ...(replacedBy.length > 0 ? { replacedBy: dedupe(replacedBy) } : {}),
    ...(notes.length > 0 ? { notes } : {}),
  };
}
