/** One Pulumi resource in two renders: which fields changed, whether that replaces it, and how Pulumi goes about it. */
import { isDeepStrictEqual } from "util";
import {
  deletedBeforeReplaced,
  kubernetesImmutableFields,
  kubernetesReplacedFields,
  replacementBehaviour,
  typeReplacedFields,
} from "../versions";
import { keyOf, objectName, type ResourceEntry, type Resources } from "./diffBase";
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
  type Trigger,
} from "./diffFields";
import { shortType } from "./graph";
import type { ObjectChange } from "./diffChanges";

export const isProvider = (r: ResourceEntry): boolean => r.type.startsWith("pulumi:providers:");
export const helmRelease = "kubernetes:helm.sh/v3:Release";
const isKubernetesObject = (r: ResourceEntry): boolean =>
  r.type.startsWith("kubernetes:") && r.type !== helmRelease && typeof r.inputs?.kind === "string";

export function resourceName(r: ResourceEntry): string {
  const inputs = r.inputs ?? {};
  if (isKubernetesObject(r)) return objectName(inputs);
  if (r.type === helmRelease)
    return `Release ${text(inputs.namespace, "default")}/${text(inputs.name, r.name)}`;
  return `${shortType(r.type)} ${r.name}`;
}

export function removedResource(r: ResourceEntry): ObjectChange {
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
export function compareResources(
  was: ResourceEntry,
  is: ResourceEntry,
  ctx: Context,
): ObjectChange | undefined {
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
