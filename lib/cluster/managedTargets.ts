/** Managed Prometheus' scrape targets: a PodMonitoring's and a ClusterPodMonitoring's, as its collectors make them. */
import { nameOf, selects, type KubeObject, type LabelSelector, type PodTemplate } from "./objects";
import { compile } from "./relabel";
import { podName, podPorts, sanitize, type Target } from "./scrapeDiscovery";

/**
 * Managed Prometheus' targets (prometheus-engine pod_config.go at v0.17.2): a port name scrapes the
 * container port of that name, a number the pod at that port (declared or served); job is the monitor's
 * name; a PodMonitoring adds `namespace` always, a ClusterPodMonitoring only where its metadata lists it
 * (default: container, namespace, pod, top_level_controller_*); `fromPod` copies pod labels.
 */
export function managedTargets(pods: readonly PodTemplate[], m: KubeObject): Target[] {
  const spec = (m.spec ?? {}) as {
    selector?: LabelSelector;
    endpoints?: { port: string | number; path?: string }[];
    targetLabels?: { metadata?: string[]; fromPod?: { from: string; to?: string }[] };
  };
  const cluster = m.kind === "ClusterPodMonitoring";
  // The CRD defaults `metadata` only inside a `targetLabels` the object has; without one the operator
  // adds none, but a ClusterPodMonitoring still gets `namespace` (pod_config.go).
  const metadata = spec.targetLabels
    ? (spec.targetLabels.metadata ??
      (cluster
        ? ["container", "namespace", "pod", "top_level_controller_name", "top_level_controller_type"]
        : ["container", "pod", "top_level_controller_name", "top_level_controller_type"]))
    : cluster
      ? ["namespace"]
      : [];
  const selected = pods.filter(
    (p) => (cluster || p.namespace === m.metadata.namespace) && selects(spec.selector, p.labels),
  );
  const out: Target[] = [];
  (spec.endpoints ?? []).forEach((ep, endpoint) => {
    // A port name is an anchored regex over the container ports' names; each port it matches is a target.
    // A number is the pod's address at that port, one target per pod, without a container label; one
    // nothing serves scrapes nothing, so a container must declare it or be known to listen on it.
    const named = typeof ep.port === "string" ? compile(ep.port) : undefined;
    for (const pod of selected) {
      const served =
        typeof ep.port === "string"
          ? podPorts(pod).filter(({ port }) => port?.name !== undefined && named?.test(port.name) === true)
          : podPorts(pod)
              .filter(
                ({ container, port }) =>
                  port?.containerPort === ep.port || (container.listens ?? []).includes(Number(ep.port)),
              )
              .slice(0, 1);
      // The instance is the pod's name, or its node's for a DaemonSet's pod.
      const instance = pod.owner.kind === "DaemonSet" ? "node-1" : podName(pod);
      for (const at of served) {
        const labels: Record<string, string> = {
          job: m.metadata.name,
          instance: `${instance}:${typeof ep.port === "string" ? (at.port?.name ?? "") : ep.port}`,
          ...(cluster && !metadata.includes("namespace") ? {} : { namespace: pod.namespace }),
          ...(metadata.includes("pod") ? { pod: podName(pod) } : {}),
          ...(metadata.includes("container") && typeof ep.port === "string"
            ? { container: at.container.name }
            : {}),
          ...(metadata.includes("top_level_controller_name")
            ? { top_level_controller_name: pod.owner.metadata.name }
            : {}),
          ...(metadata.includes("top_level_controller_type")
            ? { top_level_controller_type: pod.owner.kind }
            : {}),
          ...(metadata.includes("node") ? { node: "node-1" } : {}),
        };
        for (const f of spec.targetLabels?.fromPod ?? []) {
          if (pod.labels[f.from] !== undefined) labels[sanitize(f.to ?? f.from)] = pod.labels[f.from];
        }
        out.push({
          monitor: nameOf(m),
          monitorObject: m,
          endpoint,
          labels,
          path: ep.path ?? "/metrics",
          podLabels: pod.labels,
          honorLabels: false,
          pod,
          container: at.container,
          port: typeof ep.port === "number" ? ep.port : at.port?.containerPort,
        });
      }
    }
  });
  return out;
}
