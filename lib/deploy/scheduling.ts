import { containerResources, type ResourceSizing, type WorkloadSizing } from "../config";

export { containerResources };

/**
 * Topology spread for a replicated workload: at most one replica more in any zone (and on any node)
 * than in another. `ScheduleAnyway`: a zone that is full or down delays nothing, the scheduler only
 * prefers the spread (a zonal dev cluster has one zone).
 */
export function zoneSpread(matchLabels: Readonly<Record<string, string>>): Record<string, unknown>[] {
  return ["topology.kubernetes.io/zone", "kubernetes.io/hostname"].map((topologyKey) => ({
    maxSkew: 1,
    topologyKey,
    whenUnsatisfiable: "ScheduleAnyway",
    labelSelector: { matchLabels: { ...matchLabels } },
  }));
}

/**
 * Replicas, resources, a disruption budget that keeps one replica through a drain and the zone spread,
 * in the shape the jetstack charts (cert-manager, trust-manager, istio-csr) share. The budget is
 * `maxUnavailable: 1`, which with two or more replicas keeps one as cert-manager's best-practice.md's
 * `minAvailable: 1` does: istio-csr's chart defaults `maxUnavailable: 1` and renders both keys when both
 * are set (templates/poddisruptionbudget.yaml at v0.17.0), which the API server refuses.
 */
export function jetstackWorkload(
  s: WorkloadSizing,
  podLabels: Readonly<Record<string, string>>,
  replicasKey = "replicaCount",
): Record<string, unknown> {
  const replicated = s.replicas > 1;
  return {
    [replicasKey]: s.replicas,
    resources: containerResources(s),
    ...(replicated
      ? {
          podDisruptionBudget: { enabled: true, maxUnavailable: 1 },
          topologySpreadConstraints: zoneSpread(podLabels),
        }
      : {}),
  };
}

/** The sizing of a Deployment used on its own: the profile's resources, one replica. */
export function single(s: ResourceSizing): WorkloadSizing {
  return { ...s, replicas: 1 };
}
