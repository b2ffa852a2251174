/**
 * Reading untyped JSON (a rendered object, a chart's values, a resource's inputs, `kubectl get -o
 * json`) defensively: each accessor answers with the type it names, or with nothing (undefined, an
 * empty object or list) where the value is missing or of another type. None throws.
 */

/** A JSON object whose values are not known yet. */
export type Json = Record<string, unknown>;

/** Whether a value is a JSON object: not null, not an array. */
export const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** The object, or an empty one for anything else. */
export const obj = (v: unknown): Json => (isObj(v) ? v : {});

/** The value at a path of keys (and array indexes), or undefined where any step is missing. */
export const at = (v: unknown, ...path: readonly (string | number)[]): unknown =>
  path.reduce<unknown>((cur, p) => {
    if (typeof p === "number") return Array.isArray(cur) ? (cur as unknown[])[p] : undefined;
    return isObj(cur) ? cur[p] : undefined;
  }, v);

export const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);

/** The objects of a list; anything else in it, or a value that is no list, gives none. */
export const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObj) : []);

/** The strings of a list; anything else in it, or a value that is no list, gives none. */
export const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];

/** The string values of an object (labels, annotations); other values, or a value that is no object, give none. */
export const record = (v: unknown): Record<string, string> =>
  isObj(v)
    ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string"))
    : {};

/**
 * The items by a key each gives, each group in the items' order: one pass, each item appended in place
 * (an index built once, then asked many times, keeps a check of 1,000 apps linear).
 */
export function groupBy<T, K>(items: Iterable<T>, keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
