import type { KubeObject } from "../../cluster";
import { crdFamilies, crdFamilyOf, crdValues, type CrdFamily } from "../../crds";
import { groupBy } from "../../json";
import { charts, type ChartName } from "../../versions";
import type { Check, CheckResult } from "../context";
import { gkeCrdMarks, gkeGatewayController, helmMarks, pulumiMarks } from "../../versions/doctorFacts";
import type { HelmRelease } from "../helm";
import { annotationsOf, at, labelsOf, list, listText, str } from "../objects";
import { resources } from "../resources";

/**
 * Who owns each CRD family on the cluster, read from the marks each owner leaves: GKE's addon manager,
 * a Helm release, Pulumi's field manager, or anything else that wrote it. One owner per family
 * (docs/safety.md `single-crd-owner`); while GKE manages the Gateway API, nobody else may own a
 * Gateway API CRD: a chart that does deletes it, and every route, on uninstall or upgrade.
 */

/** One owner's mark on a CRD. */
export type CrdOwnerMark =
  | { readonly kind: "gke"; readonly label: string }
  | { readonly kind: "helm"; readonly release: string; readonly namespace: string; readonly label: string }
  | { readonly kind: "pulumi"; readonly label: string }
  | { readonly kind: "other"; readonly label: string };

/** The managers that wrote an object, not its status (the API server's own conditions on a CRD). */
function writers(o: KubeObject): string[] {
  return [
    ...new Set(
      list(at(o, "metadata", "managedFields"))
        .filter((m) => str(m.subresource) !== "status")
        .flatMap((m) => str(m.manager) ?? []),
    ),
  ].sort();
}

/** Every owner's mark on a CRD; one "other" naming its writers where no known owner marked it. */
export function crdOwnerMarks(crd: KubeObject): CrdOwnerMark[] {
  const labels = labelsOf(crd);
  const annotations = annotationsOf(crd);
  const marks: CrdOwnerMark[] = [];
  const component = annotations[gkeCrdMarks.componentName] ?? labels[gkeCrdMarks.componentName];
  if (component === gkeCrdMarks.gatewayApiComponent || labels[gkeCrdMarks.addonManagerMode] !== undefined)
    marks.push({ kind: "gke", label: "GKE" });
  const release = annotations[helmMarks.releaseName];
  if (release !== undefined || labels[helmMarks.managedByLabel] === helmMarks.managedByValue) {
    const namespace = annotations[helmMarks.releaseNamespace] ?? "";
    marks.push({
      kind: "helm",
      release: release ?? "",
      namespace,
      label: release ? `Helm release ${namespace}/${release}` : "Helm (no release named)",
    });
  }
  const pulumi = writers(crd).filter((m) => m.startsWith(pulumiMarks.fieldManagerPrefix));
  if (
    marks.length === 0 &&
    (pulumi.length > 0 || labels[helmMarks.managedByLabel] === pulumiMarks.managedByValue)
  )
    marks.push({ kind: "pulumi", label: "Pulumi" });
  if (marks.length === 0) {
    const w = writers(crd);
    marks.push({
      kind: "other",
      label: w.length > 0 ? `${listText(w)} (no owner's marks)` : "nobody's marks",
    });
  }
  return marks;
}

const familyOf = (crd: KubeObject): CrdFamily | undefined => crdFamilyOf(str(at(crd, "spec", "group")) ?? "");

const crdRef = (crd: KubeObject) => `CustomResourceDefinition ${crd.metadata.name}`;
const kindOf = (crd: KubeObject) => str(at(crd, "spec", "names", "kind")) ?? crd.metadata.name;

/** The values the platform passes a chart so it installs no CRD it does not own (lib/crds `crdValues`). */
function platformCrdValues(release: HelmRelease | undefined): string | undefined {
  if (!release) return undefined;
  const chart = (Object.keys(charts) as ChartName[]).find((c) => charts[c].chart === release.chart);
  if (!chart) return undefined;
  const flat = (v: unknown, prefix: string): string[] =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? Object.entries(v).flatMap(([k, x]) => flat(x, prefix ? `${prefix}.${k}` : k))
      : [`${prefix}=${String(v)}`];
  const values = flat(crdValues(chart, {}), "");
  return values.length > 0 ? values.join(", ") : undefined;
}

export const crdOwners: Check = async (ctx): Promise<CheckResult> => {
  const crds = await ctx.need(resources.crds);
  const classes = await ctx.optional(resources.gatewayClasses, "GKE's GatewayClasses");
  const findings: CheckResult["findings"][number][] = [];

  const byFamily = groupBy(
    crds.filter((crd) => familyOf(crd) !== undefined),
    (crd) => familyOf(crd) as CrdFamily,
  );

  // GKE manages the Gateway API where any of its CRDs carries GKE's marks, or GKE's controller has classes.
  const gateway = byFamily.get("gatewayApi") ?? [];
  const gkeCrds = gateway.filter((c) => crdOwnerMarks(c).some((m) => m.kind === "gke"));
  const gkeClasses = classes.filter((c) => str(at(c, "spec", "controllerName")) === gkeGatewayController);
  const gkeManages = gkeCrds.length > 0 || gkeClasses.length > 0;
  const gkeEvidence =
    gkeCrds.length > 0
      ? `${listText(gkeCrds.map((c) => c.metadata.name))} ${gkeCrds.length === 1 ? "carries" : "carry"} GKE's marks (${gkeCrdMarks.componentName}: ${gkeCrdMarks.gatewayApiComponent} or the ${gkeCrdMarks.addonManagerMode} label)`
      : `GatewayClass ${listText(gkeClasses.map((c) => c.metadata.name))} ${gkeClasses.length === 1 ? "is" : "are"} GKE's (controller ${gkeGatewayController})`;

  const releases = gateway.some((c) => crdOwnerMarks(c).some((m) => m.kind === "helm"))
    ? await ctx.helm("the chart values that release the Gateway API CRDs")
    : undefined;

  if (gkeManages) {
    // One finding per owner that is not GKE: a release's CRDs are fixed together.
    const byOwner = new Map<string, { marks: CrdOwnerMark[]; crds: KubeObject[] }>();
    for (const crd of gateway) {
      const marks = crdOwnerMarks(crd);
      if (marks.length === 1 && marks[0].kind === "gke") continue;
      const label = marks.map((m) => m.label).join(" and ");
      byOwner.set(label, { marks, crds: [...(byOwner.get(label)?.crds ?? []), crd] });
    }
    for (const [label, { marks, crds: owned }] of byOwner) {
      const names = owned.map((c) => c.metadata.name);
      const one = owned.length === 1;
      // Which channel and bundle each copy is, for the CRDs that say.
      const byCopy = new Map<string, string[]>();
      for (const c of owned) {
        const a = annotationsOf(c);
        const channel = a["gateway.networking.k8s.io/channel"];
        const bundle = a["gateway.networking.k8s.io/bundle-version"];
        if (!channel && !bundle) continue;
        const what = `the ${channel ?? "unknown"} channel${bundle ? `, bundle ${bundle}` : ""}${channel === "experimental" ? ", which GKE's standard channel refuses" : ""}`;
        byCopy.set(what, [...(byCopy.get(what) ?? []), c.metadata.name]);
      }
      const copy = [...byCopy]
        .map(([what, crds]) =>
          crds.length === owned.length
            ? ` ${one ? "This copy is" : "These copies are"} ${what}.`
            : ` ${listText(crds)} ${crds.length === 1 ? "is" : "are"} ${what}.`,
        )
        .join("");
      const helm = marks.find((m): m is Extract<CrdOwnerMark, { kind: "helm" }> => m.kind === "helm");
      if (helm) {
        const release = releases?.find((r) => r.name === helm.release && r.namespace === helm.namespace);
        const values = platformCrdValues(release);
        const unkept = owned.filter((c) => annotationsOf(c)[helmMarks.resourcePolicy] !== helmMarks.keep);
        findings.push({
          severity: "error",
          code: "gateway-api-crd-owned-by-helm",
          objects: [...owned.map(crdRef), `Helm release ${helm.namespace}/${helm.release}`],
          message:
            `${one ? crdRef(owned[0]) : `The CustomResourceDefinitions ${listText(names)}`} ${one ? "is" : "are"} owned by Helm release ${helm.namespace}/${helm.release} (${helmMarks.releaseName}${release ? `, chart ${release.chart} ${release.chartVersion}` : ""}), while GKE manages the Gateway API CRDs on this cluster: ${gkeEvidence}. ` +
            (unkept.length > 0
              ? `Uninstalling the release, or upgrading it with its Gateway API CRDs off, deletes ${listText(unkept.map((c) => c.metadata.name))} and every ${listText(unkept.map(kindOf))} in the cluster; until then Helm and GKE overwrite each other's version.`
              : `Their ${helmMarks.resourcePolicy}: keep spares them from an upgrade that drops them, but Helm and GKE overwrite each other's version.`) +
            copy,
          fix:
            `keep the ${one ? "CRD and its" : "CRDs and their"} objects, then take ${one ? "it" : "them"} from the release: kubectl annotate crd ${names.join(" ")} ${helmMarks.resourcePolicy}=${helmMarks.keep} --overwrite; ` +
            `upgrade ${helm.release} with its Gateway API CRDs off${values ? ` (${values}, as the platform sets them)` : ""}; then remove Helm's marks: ` +
            `kubectl annotate crd ${names.join(" ")} ${helmMarks.releaseName}- ${helmMarks.releaseNamespace}- && kubectl label crd ${names.join(" ")} ${helmMarks.managedByLabel}-. GKE then manages ${one ? "it" : "them"} alone`,
          evidence:
            "GKE owns the Gateway API CRDs (gke-gateway.md 2.3; docs/safety.md single-crd-owner); Helm deletes what a release's manifest holds without the keep policy (helm/helm v3.19.4 pkg/action/uninstall.go, pkg/kube/client.go)",
        });
      } else {
        findings.push({
          severity: "error",
          code: "gateway-api-crd-second-owner",
          objects: owned.map(crdRef),
          message:
            `${one ? crdRef(owned[0]) : `The CustomResourceDefinitions ${listText(names)}`} ${one ? "was" : "were"} written by ${label}, not GKE, while GKE manages the Gateway API CRDs on this cluster: ${gkeEvidence}. ` +
            `Two owners overwrite each other's version at every upgrade, and a rollback of either takes routes' fields away.${copy}`,
          fix: `stop applying ${one ? "it" : "them"} (remove ${one ? "it" : "them"} from the program or manifests that apply ${one ? "it" : "them"}) and let GKE manage ${one ? "it" : "them"}; for a newer version than GKE's use GKE's own upgrade (GoogleCloudPlatform/gke-gateway-api self-upgrades)`,
          evidence: "gke-gateway.md 2.3: GKE reconciles the Gateway API CRDs it installs",
        });
      }
    }
  }

  for (const [family, familyCrds] of byFamily) {
    if (family === "gke" || (family === "gatewayApi" && gkeManages)) continue;
    const owners = groupBy(familyCrds, (crd) =>
      crdOwnerMarks(crd)
        .map((m) => m.label)
        .join(" and "),
    );
    if (owners.size < 2) continue;
    findings.push({
      severity: "error",
      code: "two-owners",
      objects: familyCrds.map(crdRef),
      message:
        `The ${crdFamilies[family].title} CRDs (${crdFamilies[family].groups.join(", ")}) have ${owners.size} owners: ` +
        [...owners]
          .map(([label, crds]) => `${label} (${listText(crds.map((c) => c.metadata.name))})`)
          .join("; ") +
        ". Each owner upgrades or deletes its part on its own schedule, and a family's CRDs must move together.",
      fix: `choose one owner for the family (lib/crds: the chart or CRD chart the platform assigns it), and hand the others' CRDs to it: annotate them ${helmMarks.resourcePolicy}=${helmMarks.keep} before removing them from their current owner`,
      evidence: "docs/safety.md single-crd-owner",
    });
  }
  return { findings };
};
