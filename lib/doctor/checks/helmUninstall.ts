import { crdFamilies } from "../../crds";
import type { Check, CheckResult } from "../context";
import { helmMarks } from "../../versions/doctorFacts";
import { annotationsOf, capped, listText } from "../objects";
import { resources } from "../resources";

/**
 * What `helm uninstall` of each release would delete: every object of its stored manifest without
 * `helm.sh/resource-policy: keep` (helm/helm v3.19.4 pkg/action/uninstall.go deleteRelease,
 * pkg/action/resource_policy.go). A CRD among them takes every object of its kind with it. The manifest
 * is read from Helm's release record; only kinds and names are kept, never values.
 */
export const helmUninstall: Check = async (ctx): Promise<CheckResult> => {
  const releases = await ctx.helm("what each release's uninstall deletes");
  if (!releases) return { findings: [] };
  const crds = new Map(
    (await ctx.optional(resources.crds, "whether a deleted CRD is kept on the cluster")).map((c) => [
      c.metadata.name,
      c,
    ]),
  );
  const gatewayGroups = crdFamilies.gatewayApi.groups as readonly string[];
  const findings: CheckResult["findings"][number][] = [];
  const notes: NonNullable<CheckResult["notes"]>[number][] = [];
  for (const r of releases) {
    const release = `Helm release ${r.namespace}/${r.name}`;
    const deleted = r.manifest.filter((o) => !o.keep);
    const kept = r.manifest.filter((o) => o.keep);
    const byKind = new Map<string, number>();
    for (const o of deleted) byKind.set(o.kind, (byKind.get(o.kind) ?? 0) + 1);
    notes.push({
      objects: [release],
      message:
        `helm uninstall ${r.name} --namespace ${r.namespace} (chart ${r.chart} ${r.chartVersion}, revision ${r.revision}, ${r.status}) deletes ${deleted.length} object${deleted.length === 1 ? "" : "s"}` +
        (byKind.size > 0
          ? ` (${[...byKind]
              .sort(([a], [b]) => (a < b ? -1 : 1))
              .map(([k, n]) => `${n} ${k}`)
              .join(", ")})`
          : "") +
        (kept.length > 0
          ? ` and keeps ${kept.length} (${helmMarks.resourcePolicy}: keep): ${listText(capped(kept.map((o) => `${o.kind} ${o.name}`)))}`
          : ""),
    });
    const deletedCrds = deleted.filter((o) => o.kind === "CustomResourceDefinition");
    if (deletedCrds.length === 0) continue;
    const names = deletedCrds.map((o) => o.name);
    const gateway = names.filter((n) => gatewayGroups.some((g) => n.endsWith(`.${g}`)));
    const liveKeep = names.filter((n) => {
      const live = crds.get(n);
      return live !== undefined && annotationsOf(live)[helmMarks.resourcePolicy] === helmMarks.keep;
    });
    findings.push({
      severity: gateway.length > 0 ? "error" : "warning",
      code: "uninstall-deletes-crds",
      objects: [release, ...names.map((n) => `CustomResourceDefinition ${n}`)],
      message:
        `helm uninstall ${r.name} --namespace ${r.namespace} deletes ${deletedCrds.length} CustomResourceDefinition${deletedCrds.length === 1 ? "" : "s"} its manifest holds without ${helmMarks.resourcePolicy}: keep (${listText(capped(names))}), and with each every object of its kind in the cluster` +
        (gateway.length > 0 ? `, the Gateway API's routes among them (${listText(gateway)})` : "") +
        "." +
        (liveKeep.length > 0
          ? ` ${listText(liveKeep)} ${liveKeep.length === 1 ? "is" : "are"} annotated keep on the cluster, which spares ${liveKeep.length === 1 ? "it" : "them"} from an upgrade that drops ${liveKeep.length === 1 ? "it" : "them"}, not from helm uninstall: it reads the release's stored manifest.`
          : ""),
      fix:
        `never uninstall ${r.name} to remove what it serves; to make it safe, annotate the live CRDs (kubectl annotate crd ${names.join(" ")} ${helmMarks.resourcePolicy}=${helmMarks.keep}) ` +
        "and upgrade the release either with the chart's keep switch on (cert-manager and trust-manager: crds.keep=true) or with its CRDs off, so its manifest no longer deletes them",
      evidence:
        "helm/helm v3.19.4 pkg/action/uninstall.go (the stored manifest decides), pkg/kube/client.go (an upgrade reads the live keep annotation)",
    });
  }
  return { findings, notes };
};
