import { meshAdmissions } from "../meshes/models";
import { managedTargets } from "./managedTargets";
import type { KubeObject, PodTemplate } from "./objects";
import type { ObjectSet } from "./objectSet";
import { podMonitorTargets, serviceMonitorTargets } from "./operatorTargets";
import type { Target } from "./scrapeDiscovery";

/**
 * The scrape targets a render's monitors produce, computed as the Prometheus Operator and Managed
 * Prometheus configure Prometheus's Kubernetes service discovery: one candidate per pod and container
 * port, the operator's own relabelings, then the monitor's. What a monitor scrapes, which container and
 * port each scrape reaches, and the labels its series carry all come from here.
 */

export type { Target };

/**
 * The render's pods, and for each meshed pod the same pod owned by every other kind of workload: the
 * labels a monitor maps from a Job's or a StatefulSet's pods are checked though the render runs none.
 */
function everyOwnerKind(pods: readonly PodTemplate[]): PodTemplate[] {
  return pods.flatMap((p) => {
    const ownerLabels = meshAdmissions.find((a) =>
      a.ownerLabels.some((l) => p.labels[l] !== undefined),
    )?.ownerLabels;
    const own = ownerLabels?.find((l) => p.labels[l] !== undefined);
    if (!ownerLabels || !own) return [p];
    return [
      p,
      ...ownerLabels
        .filter((l) => l !== own)
        .map((l) => {
          const labels = Object.fromEntries(Object.entries(p.labels).filter(([k]) => k !== own));
          return { ...p, labels: { ...labels, [l]: p.owner.metadata.name } };
        }),
    ];
  });
}

/** The monitor kinds, Prometheus Operator's and Managed Prometheus's. */
export const monitorKinds: ReadonlySet<string> = new Set([
  "PodMonitor",
  "ServiceMonitor",
  "PodMonitoring",
  "ClusterPodMonitoring",
]);

/** Managed Prometheus' monitor kinds, whose collectors run in gmp-system. */
export const managedMonitorKinds: ReadonlySet<string> = new Set(["PodMonitoring", "ClusterPodMonitoring"]);

/**
 * The targets of one monitor, or of every monitor of the set. With `everyOwnerKind`, each meshed pod is
 * also tried as owned by every other kind of workload (for checking the labels a monitor maps).
 */
export function scrapeTargets(
  set: ObjectSet,
  options: { readonly monitor?: KubeObject; readonly everyOwnerKind?: boolean } = {},
): Target[] {
  const pods = options.everyOwnerKind ? everyOwnerKind(set.pods) : set.pods;
  const monitors = options.monitor ? [options.monitor] : set.objects.filter((o) => monitorKinds.has(o.kind));
  return monitors.flatMap((o) => {
    switch (o.kind) {
      case "PodMonitor":
        return podMonitorTargets(pods, o);
      case "ServiceMonitor":
        return serviceMonitorTargets(set, pods, o);
      case "PodMonitoring":
      case "ClusterPodMonitoring":
        return managedTargets(pods, o);
      default:
        return [];
    }
  });
}
