/** `render --diff`: diff.yaml and the summary printed under the render. */
import * as YAML from "yaml";
import type { FieldChange } from "./diffFields";
import type { ObjectChange, RenderDiff } from "./diff";

// ---------------------------------------------------------------------------------------------------
// Output

/** diff.yaml: the whole diff, deterministic. */
export function diffYaml(diff: RenderDiff): string {
  const doc = {
    before: diff.before,
    after: diff.after,
    summary: diff.counts,
    ...(diff.notes.length > 0 ? { notes: diff.notes } : {}),
    components: diff.components.map((c) => ({
      component: c.component,
      objects: c.objects.map((o) => ({
        object: o.object,
        change: o.change,
        key: o.key,
        ...(o.fields ? { fields: o.fields } : {}),
        ...(o.replacedBy ? { replacedBy: o.replacedBy } : {}),
        ...(o.notes ? { notes: o.notes } : {}),
      })),
    })),
  };
  return (
    "# What changed from an earlier render to this one, per component: objects added, changed (the field paths),\n" +
    "# removed, and replaced (the field that forces it, and the upstream code that makes it so). No secret's value.\n" +
    "# Written by the offline render (gke-mesh-platform render --diff); do not edit.\n" +
    YAML.stringify(doc, { lineWidth: 0, minContentWidth: 0, aliasDuplicateObjects: false })
  );
}

/**
 * Past these, the terminal says how many more there are; diff.yaml has them all. A chart bump touches
 * dozens of objects: the terminal shows what to look at, the file everything.
 */
const fieldsShown = 6;
const objectsShown = 25;

/** The diff for the terminal. */
export function diffSummary(diff: RenderDiff, file = "diff.yaml"): string {
  const total = diff.counts.added + diff.counts.changed + diff.counts.removed + diff.counts.replaced;
  if (total === 0) {
    return [`  changes from ${diff.before}: none`, ...diff.notes.map((n) => `  note: ${n}`)].join("\n");
  }
  const counts = (["added", "changed", "replaced", "removed"] as const)
    .map((k) => `${diff.counts[k]} ${k}`)
    .join(", ");
  const lines = [`  changes from ${diff.before} (${counts}; all in ${file}):`];
  const indent = " ".repeat(18);
  const fieldLine = (f: FieldChange) =>
    `${f.path}: ${f.change}${f.ignored ? " (ignored: ignoreChanges)" : ""}` +
    (f.forcesReplacement ? ` [forces replacement: ${f.forcesReplacement}]` : "");
  for (const c of diff.components) {
    lines.push(`    ${c.component}`);
    // A chart bump changes the same labels on every object: said once, then each object's own changes.
    const common = commonFields(c.objects);
    const isCommon = (f: FieldChange) => common.some((x) => x.path === f.path && x.change === f.change);
    if (common.length > 0) {
      lines.push(`      on every changed object here: ${common.map(fieldLine).join("; ")}`);
    }
    const onlyCommon = c.objects.filter(
      (o) => common.length > 0 && o.change === "changed" && !o.notes && (o.fields ?? []).every(isCommon),
    );
    const listed = c.objects.filter((o) => !onlyCommon.includes(o));
    for (const o of listed.slice(0, objectsShown)) {
      lines.push(`      ${o.change.padEnd(8)}  ${o.object}`);
      const own = (o.fields ?? []).filter((f) => !isCommon(f));
      for (const f of own.slice(0, fieldsShown)) lines.push(`${indent}${fieldLine(f)}`);
      const more = own.length - fieldsShown;
      if (more > 0) lines.push(`${indent}... and ${more} more field${more === 1 ? "" : "s"}`);
      const sources = new Set(own.slice(0, fieldsShown).map((f) => f.forcesReplacement));
      for (const r of o.replacedBy ?? []) {
        if (!sources.has(r.source)) lines.push(`${indent}replaced for ${r.field}: ${r.source}`);
      }
      for (const n of o.notes ?? []) lines.push(`${indent}(${n})`);
    }
    const more = listed.length - objectsShown;
    if (more > 0) lines.push(`      ... and ${more} more object${more === 1 ? "" : "s"}`);
    if (onlyCommon.length > 0) {
      const names = onlyCommon.slice(0, 4).map((o) => o.object);
      const rest = onlyCommon.length - names.length;
      lines.push(
        `      changed   ${onlyCommon.length} more with only that change: ${names.join(", ")}${rest > 0 ? `, and ${rest} more` : ""}`,
      );
    }
  }
  for (const n of diff.notes) lines.push(`  note: ${n}`);
  return lines.join("\n");
}

/**
 * The field changes every changed object of a group shares (a chart's version labels), where there
 * are three or more: fewer read as easily one by one.
 */
function commonFields(objects: readonly ObjectChange[]): FieldChange[] {
  const changed = objects.filter((o) => o.change !== "added" && o.change !== "removed" && o.fields);
  if (changed.length < 3) return [];
  const [first, ...rest] = changed;
  return (first.fields ?? []).filter((f) =>
    rest.every((o) => (o.fields ?? []).some((g) => g.path === f.path && g.change === f.change)),
  );
}
