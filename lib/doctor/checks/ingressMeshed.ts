import { podTemplateOf } from "../../cluster";
import { meshOf } from "../../meshes";
import { meshAdmissions } from "../../meshes/models";
import { ingressControllerIdentities } from "../../versions";
import type { Check, CheckResult } from "../context";
import { at, list, listText, ref } from "../objects";
import { resources } from "../resources";
import { admitted, admittedNamespace, hasProxy, injectorsFor, injectorsOf, namespacesByName } from "./mesh";

/**
 * Where a mesh runs, the in-cluster ingress controllers (Traefik, ingress-nginx: their identities in
 * lib/versions/ingress.ts) join it, so their requests reach meshed apps with a mesh identity the apps'
 * authorization names, over mTLS, balanced by the proxy (docs/ingress.md). A controller left out sends
 * plain text that a namespace requiring mTLS or denying by default refuses.
 */
export const ingressMeshed: Check = async (ctx): Promise<CheckResult> => {
  const namespaceList = await ctx.need(resources.namespaces);
  const namespaces = namespacesByName(namespaceList);
  const injectors = injectorsOf(await ctx.need(resources.mutatingWebhooks));
  if (injectors.length === 0) return { findings: [] };
  // The meshes whose apps it would send to: some namespace is enrolled.
  const enrolled = meshAdmissions.filter((a) =>
    namespaceList.some((ns) => a.asksForProxy(admittedNamespace(ns))),
  );
  if (enrolled.length === 0) return { findings: [] };
  const workloads = [...(await ctx.need(resources.deployments)), ...(await ctx.need(resources.daemonSets))];
  const pods = await ctx.optional(resources.pods, "whether the ingress controllers' pods have a proxy");
  const findings: CheckResult["findings"][number][] = [];
  for (const [controller, identity] of Object.entries(ingressControllerIdentities)) {
    for (const w of workloads.filter((x) => x.metadata.namespace === identity.namespace)) {
      const template = podTemplateOf(w);
      if (!template || template.serviceAccountName !== identity.serviceAccount) continue;
      const seen = admitted(template, namespaces);
      const injected = injectorsFor(injectors, seen).filter((i) => i.admission.asksForProxy(seen));
      const live = pods.filter(
        (p) =>
          p.metadata.namespace === identity.namespace &&
          at(p, "spec", "serviceAccountName") === identity.serviceAccount &&
          list(at(p, "metadata", "ownerReferences")).length > 0,
      );
      const unmeshedPods = live.filter((p) => !enrolled.some((a) => hasProxy(p, a)));
      if (injected.length > 0 && unmeshedPods.length === 0) continue;
      const meshes = listText(enrolled.map((a) => meshOf({ kind: a.mesh }).title));
      findings.push({
        severity: "error",
        code: "ingress-controller-not-meshed",
        objects: [ref(w), ...unmeshedPods.map(ref)],
        message:
          (injected.length === 0
            ? `${ref(w)} (the ${controller} ingress controller) does not ask for a proxy, though ${meshes} runs and meshes app namespaces`
            : `${ref(w)} (the ${controller} ingress controller) asks for a proxy, and ${listText(unmeshedPods.map((p) => p.metadata.name))} run${unmeshedPods.length === 1 ? "s" : ""} without one`) +
          ": its requests reach the apps without a mesh identity, so namespaces that require mTLS or deny by default refuse them, and the mesh does not balance them.",
        fix:
          injected.length === 0
            ? `install ${controller} through the platform (Traefik or IngressNginx with the mesh), which puts the mesh's pod metadata on it (lib/meshes ingressControllerPod), then restart it`
            : `restart it so its pods get the proxy: kubectl rollout restart --namespace ${identity.namespace} ${w.kind.toLowerCase()}/${w.metadata.name}`,
        evidence: "docs/ingress.md (ingress controllers join the mesh); lib/versions/ingress.ts",
      });
    }
  }
  return { findings };
};
