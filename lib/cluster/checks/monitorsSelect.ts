import type { MeshAdmission } from "../../meshes";
import { meshAdmissions } from "../../meshes/models";
import type { ClusterFinding } from "../findings";
import type { ObjectSet } from "../objectSet";
import { nameOf, type KubeObject, type PodTemplate } from "../objects";
import { monitorKinds, scrapeTargets } from "../scrapes";

/** `monitors-select`: every monitor selects a pod exposing the port it scrapes; every mesh part is scraped. */
export function monitorsSelect(set: ObjectSet): ClusterFinding[] {
  const findings: ClusterFinding[] = [];
  const monitors = set.objects.filter((o) => monitorKinds.has(o.kind));
  const targets = scrapeTargets(set);
  // A mesh's monitor of every proxy is a catch-all for the workloads users add later: a render may have
  // none yet, and the mesh-parts rule below judges it by what it must cover.
  for (const m of monitors.filter((o) => !isProxyCatchAll(o))) {
    endpointPorts(m).forEach((port, endpoint) => {
      if (targets.some((t) => t.monitorObject === m && t.endpoint === endpoint)) return;
      findings.push({
        invariant: "monitors-select",
        object: nameOf(m),
        message: `selects no pod exposing port ${JSON.stringify(port ?? "(any)")} that its relabelings keep, so it never scrapes anything: match the selector, namespace, port and relabelings to what the workload's pods carry, or drop the monitor where the workload is not installed`,
      });
    });
  }
  if (monitors.length === 0) return findings;
  // Where monitoring is on, every mesh part is scraped: control planes, ztunnel, and every proxy itself.
  for (const pod of set.pods.filter((p) => isMeshPart(set, p))) {
    const onPod = targets.filter((t) => t.pod === pod);
    const proxy = meshAdmissions.find((a) => a.mesh === pod.proxy);
    const part = meshPartOf(set, pod);
    const gaps = [
      // The proxy's metrics come from its own container, not from the init containers the injector adds.
      ...(proxy &&
      !onPod.some((t) => t.container?.injectedBy === proxy.mesh && t.container.name === proxy.proxyContainer)
        ? [`its ${proxy.mesh} proxy`]
        : []),
      // A control plane's own metrics come from its own containers: a Linkerd controller's chart-rendered
      // proxy is not one; ztunnel's only container is named as the sidecar is (ztunnel chart
      // templates/daemonset.yaml).
      ...(part &&
      !onPod.some(
        (t) =>
          t.container !== undefined &&
          t.container.injectedBy === undefined &&
          (t.container.name !== part.mesh.proxyContainer || part.chart === part.mesh.nodeProxyChart),
      )
        ? ["its own metrics"]
        : []),
    ];
    if (gaps.length > 0) {
      findings.push({
        invariant: "monitors-select",
        object: nameOf(pod.owner),
        message: `is part of the mesh, but no monitor scrapes ${gaps.join(" or ")}: add a monitor that selects its pods, port and container`,
      });
    }
  }
  return findings;
}

/** Each endpoint's port, by name or number (`undefined` where it names none), in the monitor's order. */
function endpointPorts(m: KubeObject): (string | number | undefined)[] {
  const spec = (m.spec ?? {}) as {
    podMetricsEndpoints?: { port?: string; portNumber?: number }[];
    endpoints?: { port?: string | number }[];
  };
  if (m.kind === "PodMonitor") return (spec.podMetricsEndpoints ?? [{}]).map((e) => e.port ?? e.portNumber);
  return (spec.endpoints ?? [{}]).map((e) => e.port);
}

/** One of the meshes' monitors of every proxy, over every namespace. */
function isProxyCatchAll(m: KubeObject): boolean {
  const everyNamespace =
    m.kind === "ClusterPodMonitoring" ||
    (m.spec as { namespaceSelector?: { any?: boolean } } | undefined)?.namespaceSelector?.any === true;
  return (
    everyNamespace && meshAdmissions.some((a) => a.proxyMonitors.includes(`${m.kind} ${m.metadata.name}`))
  );
}

/** A pod of a mesh chart whose own metrics monitoring must cover: a control plane, ztunnel. */
function meshPartOf(set: ObjectSet, pod: PodTemplate): { mesh: MeshAdmission; chart: string } | undefined {
  const chart = set.releaseOf.get(pod.owner)?.chart;
  const mesh = chart === undefined ? undefined : meshAdmissions.find((m) => m.scrapedCharts.includes(chart));
  return mesh && chart !== undefined ? { mesh, chart } : undefined;
}

/** Control planes, ztunnel, and every pod with a proxy: what the mesh's monitors must cover. */
function isMeshPart(set: ObjectSet, pod: PodTemplate): boolean {
  // Jobs run and finish; only what keeps running is scraped.
  if (pod.owner.kind === "Job" || pod.owner.kind === "CronJob") return false;
  return pod.proxy !== undefined || meshPartOf(set, pod) !== undefined;
}
