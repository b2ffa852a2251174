import type { ClusterFinding } from "../findings";
import type { ObjectSet } from "../objectSet";
import { nameOf } from "../objects";

/** `objects-unique`: no object is rendered twice, by two releases or by a release and the platform. */
export function objectsUnique(set: ObjectSet): ClusterFinding[] {
  const seen = new Map<string, string>();
  const findings: ClusterFinding[] = [];
  for (const o of set.objects) {
    const id = `${o.apiVersion.split("/").length > 1 ? o.apiVersion.split("/")[0] : ""}/${nameOf(o)}`;
    const source = set.releaseOf.get(o)?.name ?? "the platform";
    const first = seen.get(id);
    if (first === undefined) seen.set(id, source);
    else
      findings.push({
        invariant: "objects-unique",
        object: nameOf(o),
        message: `is rendered by ${first} and by ${source}: the second install fails (Helm refuses an object another release owns) or the two fight over it; rename one or turn one off`,
      });
  }
  return findings;
}
