/** `render --diff`: field-level changes between two versions of one object, and which of them force a replacement. */
import { isDeepStrictEqual } from "util";
import { type ReplacementRule } from "../versions";
import { secretText } from "./run";

export interface FieldChange {
  /** In Pulumi's property-path syntax; a list element with a name is shown by it (`containers[web]`). */
  readonly path: string;
  /** What changed, in words (`1 -> 3`, `added`, `changed (secret)`); never a secret's value. */
  readonly change: string;
  /** In the resource's ignoreChanges: Pulumi keeps the old value. */
  readonly ignored?: true;
  /** This change forces the replacement: the upstream code that makes it so. */
  readonly forcesReplacement?: string;
}

/** A changed field that forces a replacement, and the upstream code that makes it so. */
export interface Replacement {
  readonly field: string;
  readonly source: string;
}

// ---------------------------------------------------------------------------------------------------
// Field paths

/** A step in a path: a key, a list index, or a list element matched by its name. */
export type Step = string | number | { readonly name: string; readonly index: number };
/** A step of a rule's or option's path: a key, an index, or `*` for any element. */
export type PathStep = string | number | { readonly any: true };

/** A Secret's fields whose values are never shown. */
export const secretFields: readonly string[] = ["data", "stringData"];

interface RawChange {
  readonly at: readonly Step[];
  readonly before: unknown;
  readonly after: unknown;
}

export function fieldChanges(
  before: unknown,
  after: unknown,
  secretPaths: readonly string[],
): { at: readonly Step[]; field: FieldChange }[] {
  const raw: RawChange[] = [];
  diffValue(before, after, [], raw);
  return raw.map((c) => {
    const secret =
      (typeof c.at[0] === "string" && secretPaths.includes(c.at[0])) ||
      holdsSecret(c.before) ||
      holdsSecret(c.after);
    return { at: c.at, field: { path: showPath(c.at), change: describe(c.before, c.after, secret) } };
  });
}

function diffValue(b: unknown, a: unknown, at: readonly Step[], out: RawChange[]): void {
  if (isDeepStrictEqual(b, a)) return;
  if (isRecord(b) && isRecord(a)) {
    for (const k of [...new Set([...Object.keys(b), ...Object.keys(a)])].sort())
      diffValue(b[k], a[k], [...at, k], out);
    return;
  }
  if (Array.isArray(b) && Array.isArray(a)) {
    const named = namedElements(b, a);
    if (named) {
      const [bn, an] = named;
      const names = [...new Set([...an.keys(), ...bn.keys()])];
      for (const name of names) {
        const index = an.get(name)?.index ?? bn.get(name)?.index ?? 0;
        diffValue(bn.get(name)?.value, an.get(name)?.value, [...at, { name, index }], out);
      }
      return;
    }
    if (b.length === a.length && b.some((x) => isRecord(x) || Array.isArray(x))) {
      b.forEach((x, i) => diffValue(x, a[i], [...at, i], out));
      return;
    }
  }
  out.push({ at, before: b, after: a });
}

/** Elements by name, where every element of both lists is an object with its own name. */
function namedElements(
  b: readonly unknown[],
  a: readonly unknown[],
):
  | [Map<string, { value: unknown; index: number }>, Map<string, { value: unknown; index: number }>]
  | undefined {
  const byName = (list: readonly unknown[]) => {
    const map = new Map<string, { value: unknown; index: number }>();
    for (const [index, value] of list.entries()) {
      if (!isRecord(value) || typeof value.name !== "string" || map.has(value.name)) return undefined;
      map.set(value.name, { value, index });
    }
    return map;
  };
  if (b.length + a.length === 0) return undefined;
  const bn = byName(b);
  const an = byName(a);
  return bn && an ? [bn, an] : undefined;
}

/** A scalar input as text (names, namespaces, API versions). */
export function text(v: unknown, fallback = ""): string {
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? String(v) : fallback;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Anything the render shows as a secret, or a private key. */
function holdsSecret(v: unknown): boolean {
  if (typeof v === "string") return v === secretText || /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(v);
  if (Array.isArray(v)) return v.some(holdsSecret);
  if (isRecord(v)) return Object.values(v).some(holdsSecret);
  return false;
}

// Longer values (certificates, scripts, whole documents) are summarised: a diff line stays readable.
const maxShown = 80;

/** A change in words, with short values; a secret's only as "changed (secret)". */
export function describe(b: unknown, a: unknown, secret: boolean): string {
  if (secret)
    return b === undefined ? "added (secret)" : a === undefined ? "removed (secret)" : "changed (secret)";
  if (b === undefined) return short(a) !== undefined ? `added: ${short(a)}` : "added";
  if (a === undefined) return short(b) !== undefined ? `removed (was ${short(b)})` : "removed";
  if (Array.isArray(b) && Array.isArray(a)) return listChange(b, a) ?? "reordered";
  const [sb, sa] = [short(b), short(a)];
  if (sb !== undefined && sa !== undefined) return `${sb} -> ${sa}`;
  if (typeof b === "string" && typeof a === "string") {
    return `changed (${textChange(b, a)})`;
  }
  return "changed";
}

/** How a long text changed: its length, or for a multi-line one (a config file in a ConfigMap) its lines. */
function textChange(b: string, a: string): string {
  const [bl, al] = [b.split("\n"), a.split("\n")];
  if (bl.length === 1 && al.length === 1) return `${b.length} -> ${a.length} characters`;
  const gone = new Map<string, number>();
  for (const line of bl) gone.set(line, (gone.get(line) ?? 0) + 1);
  let differ = 0;
  for (const line of al) {
    const left = gone.get(line) ?? 0;
    if (left > 0) gone.set(line, left - 1);
    else differ++;
  }
  return `${bl.length} -> ${al.length} lines, ${differ} new or changed`;
}

/** A list's change: items added and removed where they are short, else the counts. */
export function listChange(b: readonly unknown[], a: readonly unknown[]): string | undefined {
  if (isDeepStrictEqual(b, a)) return undefined;
  const added = a.filter((x) => !b.some((y) => isDeepStrictEqual(x, y)));
  const removed = b.filter((x) => !a.some((y) => isDeepStrictEqual(x, y)));
  if (added.length + removed.length === 0) return "reordered";
  const shown = (list: readonly unknown[]) => list.map(short);
  const parts = [
    ...(added.length > 0 ? [`added ${shown(added).join(", ")}`] : []),
    ...(removed.length > 0 ? [`removed ${shown(removed).join(", ")}`] : []),
  ];
  if (
    [...added, ...removed].every((x) => short(x) !== undefined) &&
    parts.join("; ").length <= 3 * maxShown
  ) {
    return parts.join("; ");
  }
  return `${b.length} -> ${a.length} items (${added.length} added, ${removed.length} removed)`;
}

/** A scalar as shown, or undefined for one too long to show. */
function short(v: unknown): string | undefined {
  if (v === null) return "null";
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (typeof v !== "string") return undefined;
  const plain = v !== "" && !/^\s|\s$|\n/.test(v) && !v.includes(" -> ");
  const text = plain ? v : JSON.stringify(v);
  return text.length <= maxShown ? text : undefined;
}

/** A path as Pulumi writes property paths (`a.b[0]["x.y"]`), a named list element as `[name]`. */
function showPath(at: readonly Step[]): string {
  let out = "";
  for (const s of at) {
    if (typeof s === "number") out += `[${s}]`;
    else if (typeof s !== "string") out += `[${s.name}]`;
    else if (/^[A-Za-z_$][-\w$]*$/.test(s)) out += out === "" ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

/** Parses a Pulumi property path (`spec.template`, `a[0].b`, `containers[*].image`, `metadata.labels["x.y"]`). */
export function parsePath(text: string): PathStep[] {
  const steps: PathStep[] = [];
  const re = /([^.[\]]+)|\[(\d+)\]|\[\*\]|\["((?:[^"\\]|\\.)*)"\]/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[1] !== undefined) steps.push(m[1] === "*" ? { any: true } : m[1]);
    else if (m[2] !== undefined) steps.push(Number(m[2]));
    else if (m[3] !== undefined) steps.push(JSON.parse(`"${m[3]}"`) as string);
    else steps.push({ any: true });
  }
  return steps;
}

const stepMatches = (p: PathStep, s: Step): boolean =>
  typeof p === "object"
    ? typeof s !== "string"
    : typeof p === "number"
      ? (typeof s === "number" ? s : typeof s === "object" ? s.index : -1) === p
      : s === p;

/** Whether a path (an ignoreChanges entry) is at or above a change. */
export function covers(path: readonly PathStep[], at: readonly Step[]): boolean {
  return path.length <= at.length && path.every((p, i) => stepMatches(p, at[i]));
}

/** Whether one path is at, above or below the other. */
export function overlaps(a: readonly PathStep[], b: readonly PathStep[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const [x, y] = [a[i], b[i]];
    if (typeof x === "object" || typeof y === "object") continue;
    if (x !== y) return false;
  }
  return true;
}

/** The value at a path; with `*`, the list of values at every element. */
export function valueAt(value: unknown, path: readonly PathStep[]): unknown {
  if (path.length === 0) return value;
  const [step, ...rest] = path;
  if (typeof step === "object") return Array.isArray(value) ? value.map((v) => valueAt(v, rest)) : undefined;
  if (typeof step === "number") return Array.isArray(value) ? valueAt(value[step], rest) : undefined;
  return isRecord(value) ? valueAt(value[step], rest) : undefined;
}

/** A copy of `value` without what is at `path`. */
function without(value: unknown, path: readonly PathStep[]): unknown {
  if (path.length === 0) return undefined;
  const [step, ...rest] = path;
  if (Array.isArray(value)) {
    return (value as unknown[]).map((v, i) =>
      typeof step === "object" || step === i ? without(v, rest) : v,
    );
  }
  if (!isRecord(value) || typeof step !== "string" || !(step in value)) return value;
  const copy: Record<string, unknown> = { ...value };
  const inner = without(value[step], rest);
  if (inner === undefined) delete copy[step];
  else copy[step] = inner;
  return copy;
}

/** `after`, with each ignoreChanges path set back to its value in `before`, as Pulumi does before diffing. */
export function restoreIgnored(
  before: unknown,
  after: unknown,
  paths: readonly (readonly PathStep[])[],
): Record<string, unknown> {
  let out = after;
  for (const p of paths) out = restore(before, out, p);
  return isRecord(out) ? out : {};
}

function restore(before: unknown, after: unknown, path: readonly PathStep[]): unknown {
  if (path.length === 0) return before;
  const [step, ...rest] = path;
  if (Array.isArray(after)) {
    return (after as unknown[]).map((v, i) =>
      typeof step === "object" || step === i
        ? restore(Array.isArray(before) ? (before as unknown[])[i] : undefined, v, rest)
        : v,
    );
  }
  if (!isRecord(after) || typeof step !== "string") return after;
  const inner = restore(isRecord(before) ? before[step] : undefined, after[step], rest);
  const copy: Record<string, unknown> = { ...after };
  if (inner === undefined) delete copy[step];
  else copy[step] = inner;
  return copy;
}

interface Facts {
  readonly secretMutable?: boolean;
  readonly configMapMutable?: boolean;
}

/** The fields of the rules whose change (under their condition) replaces the object, each with its source. */
export function triggered(
  rules: readonly ReplacementRule[],
  before: unknown,
  after: unknown,
  facts: Facts,
): Trigger[] {
  const out: Trigger[] = [];
  for (const rule of rules) {
    if (!holds(rule, before, after, facts)) continue;
    for (const field of rule.fields) {
      const at = parsePath(field);
      // What may change anyway is left out of both sides.
      const trim = (v: unknown) =>
        (rule.except ?? [])
          .map(parsePath)
          .filter((e) => e.length > at.length && isDeepStrictEqual(e.slice(0, at.length), at))
          .reduce<unknown>((acc, e) => without(acc, e.slice(at.length)), valueAt(v, at));
      const [b, a] = [trim(before), trim(after)];
      if (isDeepStrictEqual(b, a)) continue;
      if (rule.when === "cidr-shrinks" && !cidrShrinks(b, a)) continue;
      out.push({ field, source: rule.source, at, except: (rule.except ?? []).map(parsePath) });
    }
  }
  return out;
}

function holds(rule: ReplacementRule, before: unknown, after: unknown, facts: Facts): boolean {
  const b = isRecord(before) ? before : {};
  const a = isRecord(after) ? after : {};
  const spec = (o: Record<string, unknown>) => (isRecord(o.spec) ? o.spec : {});
  switch (rule.when) {
    case undefined:
    case "cidr-shrinks":
      return true;
    case "secret-not-mutable":
      return !facts.secretMutable || a.immutable === true;
    case "configmap-not-mutable":
      return !facts.configMapMutable || a.immutable === true;
    case "was-immutable":
      return b.immutable === true;
    case "not-indexed":
      return spec(a).completionMode !== "Indexed";
    case "not-suspended":
      return spec(b).suspend !== true;
    case "not-external-name":
      return spec(b).type !== "ExternalName" && spec(a).type !== "ExternalName";
  }
}

/** Whether the new IPv4 range leaves out part of the old one (terraform-provider-google's IsShrinkageIpCidr). */
function cidrShrinks(before: unknown, after: unknown): boolean {
  const range = (v: unknown): [number, number] | undefined => {
    const m = typeof v === "string" ? /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(v) : null;
    if (!m) return undefined;
    const ip = m.slice(1, 5).reduce((acc, o) => acc * 256 + Number(o), 0);
    const size = 2 ** (32 - Number(m[5]));
    const start = ip - (ip % size);
    return [start, start + size - 1];
  };
  const [b, a] = [range(before), range(after)];
  // Unparseable ranges are no shrink, as upstream decides.
  if (!b || !a) return false;
  return !(a[0] <= b[0] && b[1] <= a[1]);
}

/** The replacements, each field and source once. */
export function dedupe(list: readonly Trigger[]): Replacement[] {
  const seen = new Set<string>();
  const out: Replacement[] = [];
  for (const { field, source } of list) {
    const k = `${field} ${source}`;
    if (!seen.has(k)) out.push({ field, source });
    seen.add(k);
  }
  return out;
}

/** A changed field with its path. */
export interface Found {
  readonly at: readonly Step[];
  readonly field: FieldChange;
}

/** A rule's field that changed: where, and which paths below it may change anyway. */
export interface Trigger extends Replacement {
  readonly at: readonly PathStep[];
  readonly except: readonly (readonly PathStep[])[];
}

/** The field, marked with what it forces where a replacement's field covers it (and it is not excepted). */
export function forcing(found: Found, triggers: readonly Trigger[]): FieldChange {
  const at = found.at.map((s): PathStep => (typeof s === "object" ? s.index : s));
  const by = triggers.find((t) => overlaps(t.at, at) && !t.except.some((e) => covers(e, found.at)));
  return by && !found.field.ignored ? { ...found.field, forcesReplacement: by.source } : found.field;
}
