import type { ChartName } from "./charts";
import recorded from "./values-keys.json";

/**
 * The keys each pinned chart's values.yaml has at its pinned version, recorded by
 * `npm run record-values-keys` at every bump. Helm ignores a value the chart does not read, without
 * a word; checking every release's values against this record turns that into an error.
 */
export interface RecordedValuesKeys {
  readonly chart: string;
  readonly version: string;
  /** The values.yaml the keys were read from. */
  readonly source: string;
  /** Every key path, commented-out keys included. */
  readonly known: readonly string[];
  /** Key paths below which the chart takes any shape: lists, empty maps, pass-through maps. */
  readonly open: readonly string[];
}

const byChart = recorded as Partial<Record<ChartName, RecordedValuesKeys>>;
const sets = new Map<ChartName, { known: Set<string>; open: Set<string> }>();

/** The recorded keys of a chart at a version, if that version was recorded. */
export function valuesKeysOf(chart: ChartName, version: string): RecordedValuesKeys | undefined {
  const r = byChart[chart];
  return r && r.version === version ? r : undefined;
}

/**
 * Value paths the chart at that version does not have, each as its keys (a key may hold dots, like
 * `cloud.google.com/gke-nodepool`); undefined when no key list was recorded.
 */
export function unknownValuePaths(
  chart: ChartName,
  version: string,
  values: Readonly<Record<string, unknown>>,
): string[][] | undefined {
  const r = valuesKeysOf(chart, version);
  if (!r) return undefined;
  let s = sets.get(chart);
  if (!s) {
    s = { known: new Set(r.known), open: new Set(r.open) };
    sets.set(chart, s);
  }
  const { known, open } = s;
  const missing: string[][] = [];
  const walk = (v: Readonly<Record<string, unknown>>, at: readonly string[]): void => {
    for (const [k, child] of Object.entries(v)) {
      const keys = [...at, k];
      const p = keys.join(".");
      if (!known.has(p)) missing.push(keys);
      else if (!open.has(p) && isPlainRecord(child)) walk(child, keys);
    }
  };
  walk(values, []);
  return missing;
}

/** A plain map of values; a Pulumi Output, an array or a scalar is one value. */
export function isPlainRecord(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** The recorded keys beside a path, for a suggestion. */
export function siblingKeys(chart: ChartName, keys: readonly string[]): string[] {
  const r = byChart[chart];
  if (!r) return [];
  const parent = keys.length > 1 ? `${keys.slice(0, -1).join(".")}.` : "";
  return r.known
    .filter((k) => k.startsWith(parent) && !k.slice(parent.length).includes("."))
    .map((k) => k.slice(parent.length));
}
