import { meshAdmissions } from "../../meshes/models";
import type { ClusterFinding } from "../findings";
import { admittedPod, mutatingWebhooks, namespaceMap, proxyAskedFor, type ObjectSet } from "../objectSet";
import { nameOf, selects, type PodTemplate } from "../objects";

/** `proxies-injected`: every namespace and pod that asks for a mesh proxy is selected by an installed injection webhook. */
export function proxiesInjected(set: ObjectSet): ClusterFinding[] {
  const namespaces = namespaceMap(set.objects);
  const findings: ClusterFinding[] = [];
  for (const pod of set.pods) {
    const asked = proxyAskedFor(pod, namespaces);
    if (!asked || pod.proxy) continue;
    findings.push({
      invariant: "proxies-injected",
      object: nameOf(pod.owner),
      message: `asks for the ${asked.mesh} proxy, but no installed injection webhook selects it, so it runs outside the mesh: label it for the injector that is installed${asked.injectorHint ? ` (${asked.injectorHint})` : ""}`,
    });
  }
  // A namespace that asks for a proxy: a pod with no labels of its own there must be injected.
  for (const ns of namespaces.values()) {
    const bare: PodTemplate = {
      owner: ns,
      namespace: ns.metadata.name,
      labels: {},
      annotations: {},
      serviceAccountName: "default",
      containers: [],
      initContainers: [],
      volumes: [],
    };
    const seen = admittedPod(bare, namespaces);
    const asked = meshAdmissions.find((a) => a.asksForProxy(seen));
    if (!asked) continue;
    const injected = mutatingWebhooks(set.objects).some(
      (w) =>
        asked.isInjectionWebhook(w.name) &&
        selects(w.namespaceSelector, seen.namespaceLabels) &&
        selects(w.objectSelector, seen.labels),
    );
    if (!injected) {
      findings.push({
        invariant: "proxies-injected",
        object: nameOf(ns),
        message: `asks for the ${asked.mesh} proxy for its pods, but no installed injection webhook selects it: label it for the installed injector`,
      });
    }
  }
  return findings;
}
