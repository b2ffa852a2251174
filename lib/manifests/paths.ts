/**
 * Request paths as routes match them, without any cdk8s import, so the safety checks can share them.
 */

/** A Gateway API path match. */
export interface PathMatch {
  readonly type: "Exact" | "PathPrefix";
  readonly value: string;
}

/** `/authors.json` is that exact path; `/authors/*` is the prefix `/authors` (whole segments); `/*` is every path. */
export function pathMatch(path: string): PathMatch {
  if (!path.endsWith("/*")) return { type: "Exact", value: path };
  const value = path.slice(0, -2);
  return { type: "PathPrefix", value: value === "" ? "/" : value };
}

/** Whether every request `inner` matches, `outer` matches too. */
export function pathCovers(outer: PathMatch, inner: PathMatch): boolean {
  if (outer.type === "Exact") return inner.type === "Exact" && inner.value === outer.value;
  return outer.value === "/" || inner.value === outer.value || inner.value.startsWith(`${outer.value}/`);
}
