import {
  podTemplateOf,
  scrapeTargets,
  selects,
  type KubeObject,
  type LabelSelector,
  type ObjectSet,
} from "../../cluster";
import { meshAdmissions } from "../../meshes/models";
import type { Check, CheckResult } from "../context";
import { at, isObj, listText, ref, str } from "../objects";
import { resources } from "../resources";

/**
 * Every monitor must scrape something live: its targets are computed the way Prometheus's service
 * discovery and the operator's relabelings make them (lib/cluster/scrapes.ts, the cluster tier's model),
 * over the pods and Services running now. A monitor with no target scrapes nothing, and an alert built on
 * its series never fires (docs/safety.md `monitors-select`). The meshes' monitors of every proxy are
 * catch-alls for workloads added later, and are left out.
 */
export const monitors: Check = async (ctx): Promise<CheckResult> => {
  const list = [
    ...(await ctx.need(resources.podMonitors)),
    ...(await ctx.need(resources.serviceMonitors)),
    ...(await ctx.need(resources.podMonitorings)),
    ...(await ctx.need(resources.clusterPodMonitorings)),
  ];
  if (list.length === 0) return { findings: [] };
  // Prometheus drops pods that have finished (the operator's generated keep on the pod phase).
  const pods = (await ctx.need(resources.pods)).filter(
    (p) => !["Succeeded", "Failed"].includes(str(at(p, "status", "phase")) ?? ""),
  );
  const services = await ctx.optional(resources.services, "ServiceMonitors' Services");
  const set: ObjectSet = {
    label: "live cluster",
    tier: "dev",
    kubeVersion: "",
    apiVersions: [],
    releases: [],
    objects: [...services, ...list],
    releaseOf: new Map(),
    pods: pods.flatMap((p) => podTemplateOf(p) ?? []),
  };
  const catchAll = new Set(meshAdmissions.flatMap((a) => a.proxyMonitors));
  const findings: CheckResult["findings"][number][] = [];
  for (const m of list) {
    if (catchAll.has(`${m.kind} ${m.metadata.name}`)) continue;
    if (scrapeTargets(set, { monitor: m }).length > 0) continue;
    const selector = isObj(at(m, "spec", "selector"))
      ? (at(m, "spec", "selector") as LabelSelector)
      : undefined;
    const inNs = (o: KubeObject) =>
      m.kind === "ClusterPodMonitoring" ||
      at(m, "spec", "namespaceSelector", "any") === true ||
      (
        (at(m, "spec", "namespaceSelector", "matchNames") as string[] | undefined) ?? [m.metadata.namespace]
      ).includes(o.metadata.namespace);
    const selected = (m.kind === "ServiceMonitor" ? services : pods).filter(
      (o) => inNs(o) && selects(selector, o.metadata.labels ?? {}),
    );
    findings.push({
      severity: "warning",
      code: "monitor-scrapes-nothing",
      objects: [ref(m)],
      message:
        `${ref(m)} scrapes nothing: ` +
        (selected.length === 0
          ? `its selector ${JSON.stringify(selector ?? {})} matches no live ${m.kind === "ServiceMonitor" ? "Service" : "pod"} in the namespaces it reads`
          : `it selects ${listText(selected.slice(0, 5).map(ref))}${selected.length > 5 ? ` and ${selected.length - 5} more` : ""}, and none serves the port its endpoints name`) +
        ". Its series are absent, and alerts and dashboards on them stay silent.",
      fix: "match the monitor's selector and port to the workload (kubectl get pods --show-labels; the container's port names), or delete the monitor",
      evidence:
        "lib/cluster/scrapes.ts (targets as Prometheus's service discovery and the operator make them); docs/safety.md monitors-select",
    });
  }
  return { findings };
};
