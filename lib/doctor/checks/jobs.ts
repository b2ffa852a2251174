import { podTemplateOf, type KubeObject } from "../../cluster";
import { meshOf } from "../../meshes";
import { meshAdmissions } from "../../meshes/models";
import type { Check, CheckResult } from "../context";
import { proxyQuitHooks } from "../../versions/doctorFacts";
import { article, at, isObj, list, listText, ref, str, strings } from "../objects";
import { resources } from "../resources";
import { admitted, controlPlaneValues, injectorsFor, injectorsOf, namespacesByName } from "./mesh";

/**
 * A Job's pod completes when its containers exit. A mesh proxy added as a classic sidecar container
 * keeps running, so the pod never completes and the Job never finishes (docs/safety.md `jobs-finish`);
 * as a native sidecar (an init container that keeps running) Kubernetes stops it when the containers are
 * done. Which the injector adds is its mesh's admission model's answer, given the pod and the control
 * plane's values (lib/meshes/<mesh>/admission.ts `proxy`).
 */

const finished = (job: KubeObject) =>
  list(at(job, "status", "conditions")).some(
    (c) => (c.type === "Complete" || c.type === "Failed") && c.status === "True",
  );
const ownedByCronJob = (job: KubeObject) =>
  list(at(job, "metadata", "ownerReferences")).some((o) => o.kind === "CronJob");

/** `label k: v` and `annotation k: v` lines of pod metadata. */
function metadataText(m: {
  labels: Readonly<Record<string, string>>;
  annotations: Readonly<Record<string, string>>;
}) {
  return listText([
    ...Object.entries(m.labels).map(([k, v]) => `label ${k}: "${v}"`),
    ...Object.entries(m.annotations).map(([k, v]) => `annotation ${k}: "${v}"`),
  ]);
}

export const jobs: Check = async (ctx): Promise<CheckResult> => {
  const namespaces = namespacesByName(await ctx.need(resources.namespaces));
  const injectors = injectorsOf(await ctx.need(resources.mutatingWebhooks));
  const cronJobs = await ctx.need(resources.cronJobs);
  const running = (await ctx.need(resources.jobs)).filter((j) => !ownedByCronJob(j) && !finished(j));
  const pods = await ctx.optional(resources.pods, "pods stuck with their proxy running");
  const releases =
    injectors.length > 0 && cronJobs.length + running.length > 0
      ? await ctx.helm("the control plane's proxy settings (native sidecars)")
      : undefined;
  const findings: CheckResult["findings"][number][] = [];

  for (const w of [...cronJobs, ...running]) {
    const template = podTemplateOf(w);
    if (!template) continue;
    const seen = admitted(template, namespaces);
    const injector = injectorsFor(injectors, seen)[0];
    if (!injector) continue;
    const { values, from } = controlPlaneValues(injector, releases);
    const proxy = injector.admission.proxy(seen, values);
    if (!proxy.containers.some((c) => c.name === injector.admission.proxyContainer)) continue;
    const commands = template.containers
      .map((c) => [...strings(at(c, "command")), ...strings(at(c, "args"))].join(" "))
      .join("\n");
    if (proxyQuitHooks.some((hook) => hook.test(commands))) continue;
    const mesh = meshOf({ kind: injector.admission.mesh });
    // Without the control plane's values the admission model's own defaults judge: said, and only a warning.
    const settings = from
      ? `Helm release ${from.namespace}/${from.name}'s values`
      : "the admission model's defaults, as no Helm release of its control plane could be read";
    findings.push({
      severity: from ? "error" : "warning",
      code: "job-never-finishes",
      objects: [ref(w), `MutatingWebhookConfiguration ${injector.configuration.metadata.name}`],
      message:
        `${ref(w)}'s pods get ${article(mesh.title)} proxy (${injector.admission.proxyContainer}) from webhook ${injector.name} as a classic sidecar container, not a native sidecar (by its pod template and ${settings}): ` +
        `when the Job's containers exit the proxy keeps running, so the pod never completes and the Job never finishes` +
        (w.kind === "CronJob"
          ? "; each run stays active, and with concurrencyPolicy Forbid no later run starts."
          : "."),
      fix: `put the mesh's Job metadata on the pod template (${mesh.title}: ${metadataText(mesh.jobPodMetadata)}; jobPodMetadata(mesh) in the platform), so the proxy is a native sidecar Kubernetes stops when the containers are done${w.kind === "Job" ? "; a running Job's pods keep their proxy: delete them after the fix" : ""}`,
      evidence: `docs/safety.md jobs-finish; lib/meshes/${injector.admission.mesh}/admission.ts proxy (the injector at its pinned tag)`,
    });
  }

  // Pods whose containers have all exited while a mesh proxy keeps running: stuck now.
  const proxies = new Map(meshAdmissions.map((a) => [a.proxyContainer, a]));
  for (const pod of pods) {
    const statuses = list(at(pod, "status", "containerStatuses"));
    const proxy = statuses.find((s) => proxies.has(str(s.name) ?? "") && isObj(at(s, "state", "running")));
    const app = statuses.filter((s) => !proxies.has(str(s.name) ?? ""));
    if (!proxy || app.length === 0 || !app.every((s) => isObj(at(s, "state", "terminated")))) continue;
    const owner = list(at(pod, "metadata", "ownerReferences"))[0];
    const ownerRef = owner
      ? `${str(owner.kind) ?? ""} ${pod.metadata.namespace ?? ""}/${str(owner.name) ?? ""}`
      : undefined;
    const admission = proxies.get(str(proxy.name) ?? "");
    findings.push({
      severity: "error",
      code: "pod-stuck-with-proxy",
      objects: [ref(pod), ...(ownerRef ? [ownerRef] : [])],
      message: `${ref(pod)}${ownerRef ? ` (of ${ownerRef})` : ""}: its containers ${listText(app.map((s) => str(s.name) ?? ""))} have exited and its ${admission ? meshOf({ kind: admission.mesh }).title : ""} proxy ${str(proxy.name) ?? ""} is still running, so the pod never completes${ownerRef?.startsWith("Job") ? " and neither does its Job" : ""}.`,
      fix: `fix the template (see job-never-finishes: the mesh's Job metadata), then delete the pod: kubectl delete pod ${pod.metadata.name} --namespace ${pod.metadata.namespace ?? "default"}`,
      evidence: "docs/safety.md jobs-finish",
    });
  }
  return { findings };
};
