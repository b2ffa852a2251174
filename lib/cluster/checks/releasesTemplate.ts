import type { ClusterFinding } from "../findings";
import type { ObjectSet } from "../objectSet";

/** `releases-template`: every release templates, no chart refusing the platform's values. */
export function releasesTemplate(set: ObjectSet): ClusterFinding[] {
  return set.releases
    .filter((r) => r.error)
    .map((r) => ({
      invariant: "releases-template",
      object: `release ${r.namespace}/${r.name}`,
      message: `${r.chart} ${r.version} refuses the platform's values at Kubernetes ${set.kubeVersion}: ${r.error}; the install would fail, so the config must set what the chart requires or refuse it`,
    }));
}
