import { isDeepStrictEqual } from "util";
import {
  charts,
  deletedBeforeReplaced,
  kubernetesImmutableFields,
  kubernetesReplacedFields,
  replacementBehaviour,
  typeReplacedFields,
  type ChartPin,
} from "../versions";
import {
  groupOf,
  keyOf,
  objectName,
  parseChartObjects,
  parseReleases,
  parseResources,
  type ChartObject,
  type ReleaseEntry,
  type RenderFiles,
  type ResourceEntry,
  type Resources,
} from "./diffBase";
import {
  covers,
  dedupe,
  describe,
  fieldChanges,
  forcing,
  listChange,
  overlaps,
  parsePath,
  restoreIgnored,
  secretFields,
  text,
  triggered,
  valueAt,
  type FieldChange,
  type Found,
  type PathStep,
  type Replacement,
  type Trigger,
} from "./diffFields";
import { shortType } from "./graph";
import { RenderInputError } from "./project";

export { diffInputs, earlierRender, readRenderFolder, resolveDiffBase } from "./diffBase";
export type { DiffBase, DiffInput, EarlierRenderOptions, RenderFiles } from "./diffBase";
export type { FieldChange, Replacement } from "./diffFields";

/**
 * The upgrade preview (`render --diff`): what changed between an earlier render and this one, per
 * component, and which changes replace an object rather than update it (lib/versions/replacement.ts).
 * It reads only the files a render writes, so an earlier render can be a folder, a git ref rendered
 * again, or files a test assembles. A secret's value is never printed.
 */

export type ChangeKind = "added" | "changed" | "removed" | "replaced";

export interface ObjectChange {
  readonly change: ChangeKind;
  /** `Deployment shop/shop`, `NodePool gke-dev-default`. */
  readonly object: string;
  /** The Pulumi resource (`type::name`), or a chart's object (`<group>/<Kind>/<namespace>/<name>`). */
  readonly key: string;
  readonly fields?: readonly FieldChange[];
  readonly replacedBy?: readonly Replacement[];
  /** What happens, in words: who replaces it and how, what stops it. */
  readonly notes?: readonly string[];
}

export interface ComponentChanges {
  /** The Pulumi component (`platform-app-shop-shop (App)`); a chart's objects: `<component> / release <ns>/<name> (...)`. */
  readonly component: string;
  readonly objects: readonly ObjectChange[];
}

export interface RenderDiff {
  /** Where the earlier render came from. */
  readonly before: string;
  readonly after: string;
  readonly counts: Readonly<Record<ChangeKind, number>>;
  readonly components: readonly ComponentChanges[];
  /** What could not be compared, and why. */
  readonly notes: readonly string[];
}

// ---------------------------------------------------------------------------------------------------
// The diff

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

/** Changed objects by component, in the order components first appear. */
class Groups {
  private readonly byLabel = new Map<string, ObjectChange[]>();
  /** Chart groups come right after the component their release is in. */
  private readonly after = new Map<string, string[]>();

  order(label: string): void {
    if (!this.byLabel.has(label)) this.byLabel.set(label, []);
  }

  add(label: string, change: ObjectChange): void {
    this.order(label);
    this.byLabel.get(label)?.push(change);
  }

  /** A group placed right after `anchor`. */
  addAfter(anchor: string, label: string, change: ObjectChange): void {
    const list = this.after.get(anchor) ?? [];
    if (!list.includes(label)) list.push(label);
    this.after.set(anchor, list);
    const objects = this.byLabel.get(label) ?? [];
    objects.push(change);
    if (!this.byLabel.has(label)) this.byLabel.set(label, objects);
  }

  result(): ComponentChanges[] {
    const placed = new Set([...this.after.values()].flat());
    const out: ComponentChanges[] = [];
    const emit = (label: string): void => {
      const objects = this.byLabel.get(label) ?? [];
      if (objects.length > 0) out.push({ component: label, objects });
      for (const next of this.after.get(label) ?? []) emit(next);
    };
    for (const label of this.byLabel.keys()) if (!placed.has(label)) emit(label);
    // Chart groups whose component has no other changes and was never seen: at the end.
    for (const [anchor, labels] of this.after) {
      if (!this.byLabel.has(anchor)) for (const l of labels) emit(l);
    }
    return out;
  }
}

const isProvider = (r: ResourceEntry): boolean => r.type.startsWith("pulumi:providers:");
const helmRelease = "kubernetes:helm.sh/v3:Release";
const isKubernetesObject = (r: ResourceEntry): boolean =>
  r.type.startsWith("kubernetes:") && r.type !== helmRelease && typeof r.inputs?.kind === "string";

function resourceName(r: ResourceEntry): string {
  const inputs = r.inputs ?? {};
  if (isKubernetesObject(r)) return objectName(inputs);
  if (r.type === helmRelease)
    return `Release ${text(inputs.namespace, "default")}/${text(inputs.name, r.name)}`;
  return `${shortType(r.type)} ${r.name}`;
}

function removedResource(r: ResourceEntry): ObjectChange {
  const notes: string[] = [];
  if (r.options?.protect) {
    notes.push(
      `protected: pulumi up refuses to delete it until protect is off (${replacementBehaviour.protectDelete})`,
    );
  } else if (r.options?.retainOnDelete) {
    notes.push(
      `retained on delete: Pulumi forgets it and leaves it in place (${replacementBehaviour.retainOnDelete})`,
    );
  }
  return { change: "removed", object: resourceName(r), key: keyOf(r), ...(notes.length ? { notes } : {}) };
}

/** The types of a resource's parents, outermost first: part of its URN. */
function typeChain(resources: Resources, r: ResourceEntry): string {
  const types: string[] = [];
  for (let p = r.parent; p !== undefined; p = resources.byKey.get(p)?.parent) {
    types.unshift(resources.byKey.get(p)?.type ?? p);
  }
  return types.join("$");
}

interface Context {
  readonly old: Resources;
  readonly now: Resources;
  readonly replacedProviders: ReadonlySet<string>;
}

/** One resource in both renders: what changed, and whether that replaces it. Undefined when nothing did. */
function compareResources(was: ResourceEntry, is: ResourceEntry, ctx: Context): ObjectChange | undefined {
  const beforeInputs = was.inputs ?? {};
  const afterInputs = is.inputs ?? {};
  const ignore = (is.options?.ignoreChanges ?? []).map(parsePath);
  const secretPaths = isKubernetesObject(is) && afterInputs.kind === "Secret" ? secretFields : [];
  const found: Found[] = fieldChanges(beforeInputs, afterInputs, secretPaths).map((f) => ({
    at: f.at,
    field: ignore.some((p) => covers(p, f.at)) ? { ...f.field, ignored: true } : f.field,
  }));
  const fields: FieldChange[] = [];
  const push = (path: string, change: string) => found.push({ at: [path], field: { path, change } });
  if (was.parent !== is.parent) push("parent", `${was.parent ?? "(none)"} -> ${is.parent ?? "(none)"}`);
  const moved = typeChain(ctx.old, was) !== typeChain(ctx.now, is);
  if (was.provider !== is.provider)
    push("provider", `${was.provider ?? "(default)"} -> ${is.provider ?? "(default)"}`);
  // A dependency is named by its resource name; the type is in resources.yaml.
  const named = (keys: readonly string[]) => keys.map((k) => k.slice(k.lastIndexOf("::") + 2));
  const deps = listChange(named(was.dependsOn ?? []), named(is.dependsOn ?? []));
  if (deps) push("dependsOn", deps);
  for (const option of [
    "protect",
    "retainOnDelete",
    "deleteBeforeReplace",
    "ignoreChanges",
    "replaceOnChanges",
  ] as const) {
    const b = was.options?.[option];
    const a = is.options?.[option];
    if (!isDeepStrictEqual(b ?? defaultOption(option), a ?? defaultOption(option))) {
      push(`options.${option}`, describe(b ?? defaultOption(option), a ?? defaultOption(option), false));
    }
  }
  // An object whose provider is replaced is replaced with it, changed or not.
  if (is.provider && ctx.replacedProviders.has(is.provider) && was.provider === is.provider) {
    push("provider", `${is.provider} is replaced`);
  }
  if (found.length === 0) return undefined;

  // Pulumi keeps ignored fields' old values before any provider diffs them.
  const effective = restoreIgnored(beforeInputs, afterInputs, ignore);
  const replacedBy: Trigger[] = [];
  const refused: Trigger[] = [];
  const notes: string[] = [];
  if (isKubernetesObject(is)) {
    const [group, version] = splitApiVersion(afterInputs.apiVersion);
    const kind = String(afterInputs.kind);
    const provider = is.provider ? ctx.now.byKey.get(is.provider)?.inputs : undefined;
    const facts = {
      secretMutable: isTrue(provider?.enableSecretMutable),
      configMapMutable: isTrue(provider?.enableConfigMapMutable),
    };
    const pulumiRules = [
      ...(kubernetesReplacedFields["*"] ?? []),
      ...(kubernetesReplacedFields[`${group}/${version}/${kind}`] ?? []),
    ];
    replacedBy.push(...triggered(pulumiRules, beforeInputs, effective, facts));
    const covered = (at: readonly PathStep[]) => replacedBy.some((r) => overlaps(r.at, at));
    refused.push(
      ...triggered(
        kubernetesImmutableFields[`${group}/${kind}`] ?? [],
        beforeInputs,
        effective,
        facts,
      ).filter((r) => !covered(r.at)),
    );
  } else {
    replacedBy.push(...triggered(typeReplacedFields[is.type] ?? [], beforeInputs, effective, {}));
  }
  for (const p of is.options?.replaceOnChanges ?? []) {
    if (!isDeepStrictEqual(valueAt(beforeInputs, parsePath(p)), valueAt(effective, parsePath(p)))) {
      replacedBy.push({
        field: p,
        at: parsePath(p),
        except: [],
        source: `its replaceOnChanges option (${replacementBehaviour.replaceOnChanges})`,
      });
    }
  }
  if (is.provider && ctx.replacedProviders.has(is.provider)) {
    replacedBy.push({
      field: "provider",
      at: ["provider"],
      except: [],
      source: `its provider ${is.provider} is replaced (${replacementBehaviour.providerReplaced})`,
    });
  } else if (is.provider && was.provider && is.provider !== was.provider) {
    // Another provider: Pulumi asks the new one whether the old one's config needs a replacement.
    const [from, to] = [ctx.old.byKey.get(was.provider), ctx.now.byKey.get(is.provider)];
    if (from && to && from.type === to.type) {
      for (const r of triggered(typeReplacedFields[to.type] ?? [], from.inputs ?? {}, to.inputs ?? {}, {})) {
        replacedBy.push({
          field: "provider",
          at: ["provider"],
          except: [],
          source: `its provider's ${r.field} differs (${r.source}; ${replacementBehaviour.providerReplaced})`,
        });
      }
    }
  }
  if (replacedBy.length === 0 && refused.length > 0) {
    notes.push(
      `the API server refuses to change ${refused.map((r) => r.field).join(", ")}, and the Kubernetes provider does not replace it for that: ` +
        "pulumi up fails; add the field to the resource's replaceOnChanges, or delete the object first",
    );
  }
  fields.push(...found.map((f) => forcing(f, replacedBy.length > 0 ? replacedBy : refused)));
  if (fields.every((f) => f.ignored)) {
    notes.push(
      `pulumi up applies none of this: every changed field is in ignoreChanges (${replacementBehaviour.ignoreChanges})`,
    );
  }
  if (moved) {
    notes.push(
      `its URN changes, as the types of its parents are part of it (${replacementBehaviour.urn}): ` +
        "unless it has an alias to its former parent, pulumi up creates it anew and deletes the old one",
    );
  }
  if (replacedBy.length > 0) notes.push(...replacementNotes(was, is));
  const replaced = replacedBy.length > 0 || refused.length > 0;
  return {
    change: replaced ? "replaced" : "changed",
    object: resourceName(is),
    key: keyOf(is),
    fields,
    ...(replaced ? { replacedBy: dedupe([...replacedBy, ...refused]) } : {}),
    ...(notes.length > 0 ? { notes } : {}),
  };
}

/** How Pulumi goes about replacing it, and what stops it. */
function replacementNotes(was: ResourceEntry, is: ResourceEntry): string[] {
  const notes: string[] = [];
  const b = was.inputs ?? {};
  const a = is.inputs ?? {};
  if (isKubernetesObject(is)) {
    const same = (k: "name" | "namespace") =>
      (b.metadata as Record<string, unknown> | undefined)?.[k] ===
      (a.metadata as Record<string, unknown> | undefined)?.[k];
    notes.push(
      same("name") && same("namespace")
        ? `Pulumi deletes it, then creates it again: the new object has the same name (${replacementBehaviour.kubernetesDeleteFirst})`
        : "Pulumi creates the new object, then deletes the old one",
    );
  } else if (is.options?.deleteBeforeReplace || deletedBeforeReplaced[is.type]) {
    notes.push(
      `Pulumi deletes it, then creates it again${deletedBeforeReplaced[is.type] ? ` (${deletedBeforeReplaced[is.type]})` : ""}`,
    );
  } else {
    const name = typeof a.name === "string" && a.name === b.name ? a.name : undefined;
    notes.push(
      "Pulumi creates the replacement, then deletes the old one" +
        (name
          ? `; its name stays ${name}, which the old one holds until then: set deleteBeforeReplace if the cloud refuses two of that name`
          : ""),
    );
  }
  if (was.options?.protect && is.options?.protect) {
    notes.push(
      `protected: pulumi up refuses to replace it until protect is off (${replacementBehaviour.protectReplace})`,
    );
  }
  return notes;
}

function defaultOption(option: string): unknown {
  return option === "ignoreChanges" || option === "replaceOnChanges"
    ? []
    : option === "deleteBeforeReplace"
      ? undefined
      : false;
}

function splitApiVersion(apiVersion: unknown): [string, string] {
  const v = text(apiVersion);
  return v.includes("/") ? [v.slice(0, v.indexOf("/")), v.slice(v.indexOf("/") + 1)] : ["core", v];
}

const isTrue = (v: unknown): boolean => v === true || v === "true";

// ---------------------------------------------------------------------------------------------------
// Chart objects

interface ChartContext {
  readonly old: Resources;
  readonly now: Resources;
  readonly groups: Groups;
  readonly label: (resources: Resources, key: string | undefined) => string;
}

function diffChartObjects(
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
