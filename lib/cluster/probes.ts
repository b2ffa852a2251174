import { meshAdmissions, refusedProbes } from "../meshes/models";
import { nameOf } from "./objects";
import type { ObjectSet } from "./objectSet";
import type { CrossingFinding } from "./crossings";

/**
 * Kubelet's probes of every meshed pod in the set, the charts' own included, get through the mesh's
 * inbound policy: the same check the render's `probes-authorized` runs (lib/meshes/probes.ts), over
 * the whole object set, with the control planes' values as the platform passes them.
 */
export function probesAuthorized(set: ObjectSet): CrossingFinding[] {
  const values = (chart: string) => set.releases.filter((r) => r.chart === chart).map((r) => r.values);
  return refusedProbes(meshAdmissions, set.objects, values).map((p) => ({
    object: nameOf(p.owner),
    message: p.message,
  }));
}
