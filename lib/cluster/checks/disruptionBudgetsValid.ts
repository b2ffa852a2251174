import type { ClusterFinding } from "../findings";
import type { ObjectSet } from "../objectSet";
import { nameOf } from "../objects";

/** `disruption-budgets-valid`: no PodDisruptionBudget sets both minAvailable and maxUnavailable. */
export function disruptionBudgetsValid(set: ObjectSet): ClusterFinding[] {
  // policy/v1 validation refuses a budget with both (kubernetes pkg/apis/policy/validation ValidatePodDisruptionBudgetSpec).
  return set.objects
    .filter((o) => o.kind === "PodDisruptionBudget")
    .filter((o) => {
      const spec = (o.spec ?? {}) as { minAvailable?: unknown; maxUnavailable?: unknown };
      return spec.minAvailable !== undefined && spec.maxUnavailable !== undefined;
    })
    .map((o) => ({
      invariant: "disruption-budgets-valid",
      object: nameOf(o),
      message:
        "sets both minAvailable and maxUnavailable: the API server refuses it and the release that carries it fails; set one",
    }));
}
