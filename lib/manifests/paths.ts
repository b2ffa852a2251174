/**
 * Request paths as routes match them, without any cdk8s import, so the safety checks and the meshes'
 * admission models can share them.
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

/**
 * Whether an HTTPRoute's spec has a match a plain GET of `path` satisfies: method GET or none, no header
 * or query condition, and the path by Exact, PathPrefix (whole segments) or RegularExpression. Absent
 * rules and empty matches match every request (both HTTPRoute CRDs' defaults). A regex JavaScript cannot
 * read counts as matching: the callers report refusals, and an unread regex proves none.
 */
export function routeMatchesGet(spec: unknown, path: string): boolean {
  const rules = (spec as { rules?: unknown } | undefined)?.rules;
  const list = Array.isArray(rules) ? (rules as { matches?: unknown }[]) : [{}];
  return list.some((rule) => {
    const given = Array.isArray(rule.matches) ? (rule.matches as Record<string, unknown>[]) : [];
    return (given.length > 0 ? given : [{}]).some((m) => {
      if (m.method !== undefined && m.method !== "GET") return false;
      const conditions = (v: unknown) => Array.isArray(v) && v.length > 0;
      if (conditions(m.headers) || conditions(m.queryParams)) return false;
      const match = (m.path ?? {}) as { type?: unknown; value?: unknown };
      const type = typeof match.type === "string" ? match.type : "PathPrefix";
      const value = (typeof match.value === "string" ? match.value : "/").replace(/(.)\/+$/, "$1");
      if (type === "RegularExpression") {
        try {
          return new RegExp(`^(?:${value})$`).test(path);
        } catch {
          return true;
        }
      }
      if (type !== "Exact" && type !== "PathPrefix") return false;
      return pathCovers({ type, value }, { type: "Exact", value: path });
    });
  });
}
