import type { KubeObject } from "../cluster";
import { at, list, record, str } from "../json";

/** Reading live objects: plain JSON from `kubectl get -o json`, read defensively (lib/json). */

export { at, isObj, list, num, record, str, strings, type Json } from "../json";

export const labelsOf = (o: KubeObject): Record<string, string> => record(o.metadata.labels);
export const annotationsOf = (o: KubeObject): Record<string, string> => record(o.metadata.annotations);
export const namespaceOf = (o: KubeObject): string => o.metadata.namespace ?? "";

/** `Kind namespace/name` (or `Kind name` for a cluster-scoped object): how findings name an object. */
export function ref(o: Pick<KubeObject, "kind" | "metadata">): string {
  return `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}`;
}

/** An object's API group: "" for the core group. */
export function groupOf(apiVersion: string): string {
  return apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
}

/** The word with its indefinite article: `a Linkerd`, `an Istio`. */
export const article = (word: string): string => `${/^[aeiou]/i.test(word) ? "an" : "a"} ${word}`;

/** `a, b and c`. */
export function listText(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** At most `max` items, then how many more. */
export function capped(items: readonly string[], max = 10): string[] {
  return items.length <= max ? [...items] : [...items.slice(0, max), `and ${items.length - max} more`];
}

/** Every field manager of an object (metadata.managedFields). */
export function fieldManagers(o: KubeObject): string[] {
  return [...new Set(list(at(o, "metadata", "managedFields")).flatMap((m) => str(m.manager) ?? []))].sort();
}

/** Whether a managedFields entry owns a field, given as the path of `f:` keys in fieldsV1. */
export function managersOf(o: KubeObject, ...path: readonly string[]): string[] {
  return [
    ...new Set(
      list(at(o, "metadata", "managedFields"))
        .filter((m) => at(m, "fieldsV1", ...path.map((p) => `f:${p}`)) !== undefined)
        .flatMap((m) => str(m.manager) ?? []),
    ),
  ].sort();
}

/** Days from `now` to `date`, rounded down (negative once it has passed). */
export function daysUntil(date: Date, now: Date): number {
  return Math.floor((date.getTime() - now.getTime()) / 86_400_000);
}

/** A date as the report prints it: ISO 8601, to the second, UTC. */
export function dateText(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}
