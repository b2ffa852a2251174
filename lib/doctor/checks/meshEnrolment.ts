import { podTemplateOf, selects, type KubeObject } from "../../cluster";
import { meshOf } from "../../meshes";
import { meshAdmissions } from "../../meshes/models";
import type { Check, CheckResult } from "../context";
import { article, at, capped, isObj, list, listText, ref, str } from "../objects";
import { resources } from "../resources";
import {
  admitted,
  admittedNamespace,
  enrolmentKeys,
  hasProxy,
  injectorsOf,
  namespacesByName,
  type Injector,
} from "./mesh";

/**
 * A namespace enrolled in a mesh needs an installed injector that selects it and answers (its Service has
 * a ready endpoint), and its pods need the proxy: a pod created before the namespace was enrolled, or
 * while the injector was down (failurePolicy Ignore), runs without one, and a mesh that demands mTLS or
 * denies by default refuses its traffic. An Istio namespace labelled with a revision no istiod serves is
 * the common case of the first (docs/istio.md, "Canary upgrades").
 */

/** Whether a Service has an endpoint that is ready (EndpointSlices labelled with its name). */
function readyEndpoint(slices: readonly KubeObject[], namespace: string, service: string): boolean {
  return slices
    .filter(
      (s) =>
        s.metadata.namespace === namespace && s.metadata.labels?.["kubernetes.io/service-name"] === service,
    )
    .some((s) => list(s.endpoints).some((e) => at(e, "conditions", "ready") !== false));
}

const phaseDone = (pod: KubeObject) =>
  ["Succeeded", "Failed"].includes(str(at(pod, "status", "phase")) ?? "");

export const meshEnrolment: Check = async (ctx): Promise<CheckResult> => {
  const namespaceList = await ctx.need(resources.namespaces);
  const namespaces = namespacesByName(namespaceList);
  const injectors = injectorsOf(await ctx.need(resources.mutatingWebhooks));
  const services = await ctx.optional(resources.services, "whether each injector's Service exists");
  const slices = await ctx.optional(resources.endpointSlices, "whether each injector has a ready endpoint");
  const pods = await ctx.optional(resources.pods, "pods without their proxy");
  const replicaSets = await ctx.optional(
    resources.replicaSets,
    "the Deployments of pods without their proxy",
  );
  const findings: CheckResult["findings"][number][] = [];

  for (const ns of namespaceList) {
    if (str(at(ns, "status", "phase")) === "Terminating") continue;
    const seen = admittedNamespace(ns);
    for (const admission of meshAdmissions.filter((a) => a.asksForProxy(seen))) {
      const mesh = meshOf({ kind: admission.mesh }).title;
      const keys = enrolmentKeys(admission, seen);
      const own = injectors.filter((i) => i.admission === admission);
      const selecting = own.filter((i) => selects(i.namespaceSelector, seen.namespaceLabels));
      const asks = `Namespace ${ns.metadata.name} asks for ${article(mesh)} proxy (${listText(keys)})`;
      if (selecting.length === 0) {
        findings.push({
          severity: "error",
          code: "no-injector",
          objects: [
            ref(ns),
            ...own.map((i) => `MutatingWebhookConfiguration ${i.configuration.metadata.name}`),
          ],
          message:
            `${asks}, and no installed injector selects it` +
            (own.length > 0
              ? ` (${listText(own.map((i) => `${i.name} selects ${JSON.stringify(i.namespaceSelector ?? {})}`))})`
              : ` (no ${mesh} injection webhook is installed)`) +
            ": every pod created there starts without a proxy, and meshed peers that require mTLS refuse it.",
          fix: `enrol the namespace with labels an installed injector selects (for a revisioned control plane, a revision that is installed), or install the control plane its labels name; then restart its workloads`,
          evidence: `lib/meshes/${admission.mesh}/admission.ts (which namespaces and pods ask, and which webhook injects)`,
        });
        continue;
      }
      const up = (i: Injector) => {
        const svc = i.service;
        return (
          !svc ||
          (services.some((s) => s.metadata.namespace === svc.namespace && s.metadata.name === svc.name) &&
            readyEndpoint(slices, svc.namespace, svc.name))
        );
      };
      if (!selecting.some(up)) {
        const down = selecting[0];
        findings.push({
          severity: "error",
          code: "injector-down",
          objects: [
            ref(ns),
            `MutatingWebhookConfiguration ${down.configuration.metadata.name}`,
            ...(down.service ? [`Service ${down.service.namespace}/${down.service.name}`] : []),
          ],
          message:
            `${asks}; its injector ${down.name} calls Service ${down.service?.namespace ?? ""}/${down.service?.name ?? ""}, which ${services.some((s) => s.metadata.namespace === down.service?.namespace && s.metadata.name === down.service?.name) ? "has no ready endpoint" : "does not exist"}: ` +
            (down.failurePolicy === "Ignore"
              ? "with failurePolicy Ignore, pods are created without a proxy and nothing says so."
              : "with failurePolicy Fail, no pod can be created in the namespace."),
          fix: `start the injector's control plane (kubectl get pods --namespace ${down.service?.namespace ?? ""}), then restart the namespace's workloads that started without a proxy`,
        });
      }
    }
  }

  // Pods that ask for a proxy and have none.
  /** Per namespace: the pods, the workloads to restart, pods a controller makes again, and bare pods. */
  const missing = new Map<
    string,
    { pods: KubeObject[]; owners: Set<string>; owned: string[]; bare: string[]; mesh: string }
  >();
  for (const pod of pods) {
    if (phaseDone(pod) || at(pod, "spec", "hostNetwork") === true) continue;
    const template = podTemplateOf(pod);
    if (!template) continue;
    const seen = admitted(template, namespaces);
    const admission = meshAdmissions.find((a) => a.asksForProxy(seen) && a.injects(seen));
    if (!admission || hasProxy(template, admission)) continue;
    const ns = pod.metadata.namespace ?? "default";
    const entry = missing.get(ns) ?? {
      pods: [],
      owners: new Set<string>(),
      bare: [],
      owned: [],
      mesh: meshOf({ kind: admission.mesh }).title,
    };
    entry.pods.push(pod);
    const owner = list(at(pod, "metadata", "ownerReferences"))[0];
    if (isObj(owner)) {
      const rs =
        owner.kind === "ReplicaSet"
          ? replicaSets.find((r) => r.metadata.namespace === ns && r.metadata.name === owner.name)
          : undefined;
      const top = rs ? list(at(rs, "metadata", "ownerReferences"))[0] : owner;
      const workload = `${str(top?.kind)?.toLowerCase() ?? "pod"}/${str(top?.name) ?? pod.metadata.name}`;
      if (/^(deployment|statefulset|daemonset)\//.test(workload)) entry.owners.add(workload);
      else entry.owned.push(pod.metadata.name);
    } else entry.bare.push(pod.metadata.name);
    missing.set(ns, entry);
  }
  for (const [ns, entry] of missing) {
    const n = entry.pods.length;
    const restartable = [...entry.owners].sort();
    findings.push({
      severity: "error",
      code: "pods-without-proxy",
      objects: capped(entry.pods.map(ref)),
      message:
        `${n} pod${n === 1 ? "" : "s"} in namespace ${ns} ask${n === 1 ? "s" : ""} for ${article(entry.mesh)} proxy and ${n === 1 ? "has" : "have"} none ` +
        `(${listText(capped(entry.pods.map((p) => p.metadata.name)))}): created before the namespace was enrolled, or while the injector was down. ` +
        "Meshed peers that require mTLS or deny by default refuse their traffic, and they are outside the mesh's metrics and policy.",
      fix: [
        ...(restartable.length > 0
          ? [
              `restart their workloads so the injector adds the proxy: kubectl rollout restart --namespace ${ns} ${restartable.join(" ")}`,
            ]
          : []),
        ...(entry.owned.length > 0
          ? [
              `delete ${listText(entry.owned)}, which ${entry.owned.length === 1 ? "its controller creates" : "their controllers create"} again with the proxy`,
            ]
          : []),
        ...(entry.bare.length > 0
          ? [
              `create ${listText(entry.bare)} again (nothing owns ${entry.bare.length === 1 ? "it" : "them"}): delete and apply ${entry.bare.length === 1 ? "it" : "them"}`,
            ]
          : []),
      ].join("; "),
    });
  }
  return { findings };
};
