import { crdClaims, crdFamilies, crdFamilyOf, type CrdFamily } from "../crds";
import { charts, type ChartName } from "../versions";
import {
  at,
  gkeCluster,
  helmChart,
  helmRelease,
  isObj,
  key,
  object,
  type ResourceView,
  type Violation,
} from "./resources";

/** CRDs have one owner, and survive the uninstall of what installed them. */

/** The pinned chart a Helm release installs, by chart name. */
function chartOf(r: ResourceView): ChartName | undefined {
  const chart = at(r.inputs, "chart");
  return (Object.keys(charts) as ChartName[]).find((c) => charts[c].chart === chart);
}

/** The families a Helm release or a helm.v4.Chart installs, from its values and whether it skips crds/. */
function releaseClaims(r: ResourceView): CrdFamily[] {
  const chart = chartOf(r);
  const values = at(r.inputs, "values");
  return chart ? crdClaims(chart, isObj(values) ? values : {}, at(r.inputs, "skipCrds") === true) : [];
}

/** Helm releases, and the charts the provider applies (CRD charts): everything that installs a chart's CRDs. */
const installsCharts = (r: ResourceView): boolean => r.type === helmRelease || r.type === helmChart;

export function singleCrdOwner(resources: readonly ResourceView[]): Violation[] {
  const out: Violation[] = [];
  const gkeOwnsGateway = resources.some(
    (r) => r.type === gkeCluster && at(r.inputs, "gatewayApiConfig", "channel") === "CHANNEL_STANDARD",
  );
  /** Per family, each owner: a Helm release, or the program's own CRD objects (a bundle), as one. */
  const owners = new Map<CrdFamily, { label: string; resources: string[] }[]>();
  const add = (family: CrdFamily, owner: { label: string; resources: string[] }) =>
    owners.set(family, [...(owners.get(family) ?? []), owner]);
  for (const r of resources.filter(installsCharts)) {
    for (const family of releaseClaims(r)) add(family, { label: key(r), resources: [key(r)] });
  }
  // Where the children of a helm.v4.Chart are seen (a policy pack), they are that chart's, not a second owner:
  // the provider names each `<chart resource name>:<object name>` (pkg/provider/yaml/v2/yaml.go Register,
  // its resource prefix the chart's name by default, pkg/provider/helm/v4/chart.go).
  const chartPrefixes = resources.filter((r) => r.type === helmChart).map((r) => `${r.name}:`);
  const handWritten = new Map<CrdFamily, string[]>();
  for (const r of resources) {
    const group = at(r.inputs, "spec", "group");
    if (object(r).kind !== "CustomResourceDefinition" || typeof group !== "string") continue;
    if (chartPrefixes.some((p) => r.name.startsWith(p))) continue;
    const family = crdFamilyOf(group);
    if (!family) continue;
    const crds = handWritten.get(family);
    if (crds) crds.push(key(r));
    else handWritten.set(family, [key(r)]);
  }
  for (const [family, crds] of handWritten) {
    add(family, {
      label: crds.length === 1 ? crds[0] : `${crds.length} CustomResourceDefinitions (${crds[0]}, ...)`,
      resources: crds,
    });
  }
  for (const [family, list] of owners) {
    if (list.length > 1) {
      out.push({
        invariant: "single-crd-owner",
        resource: list[1].resources[0],
        message: `${crdFamilies[family].title} CRDs are installed by ${list.length} owners: ${list.map((o) => o.label).join(", ")}`,
      });
    }
  }
  if (gkeOwnsGateway) {
    for (const owner of owners.get("gatewayApi") ?? []) {
      out.push({
        invariant: "single-crd-owner",
        resource: owner.resources[0],
        message: `${owner.label} installs Gateway API CRDs, but GKE owns them (gatewayApiConfig.channel CHANNEL_STANDARD); removing it would delete every route`,
      });
    }
  }
  return out;
}

export function crdReleasesRetained(resources: readonly ResourceView[]): Violation[] {
  const out: Violation[] = [];
  for (const r of resources) {
    if (object(r).kind === "CustomResourceDefinition" && r.retainOnDelete === false) {
      out.push({
        invariant: "crd-releases-retained",
        resource: key(r),
        message: `${key(r)} is not retainOnDelete: removing it from the stack would delete every object of its kind`,
      });
    }
  }
  for (const r of resources.filter((x) => x.type === helmChart)) {
    const claims = releaseClaims(r);
    // retainOnDelete does not reach a component's children (pulumi-kubernetes#3065): only its transforms retain them.
    if (claims.length === 0 || r.children === undefined || r.children.crd.retainOnDelete) continue;
    out.push({
      invariant: "crd-releases-retained",
      resource: key(r),
      message: `${key(r)} applies the ${claims.map((f) => crdFamilies[f].title).join(", ")} CRDs, but its transforms do not retain them on delete: removing it from the stack would delete them and every object in them`,
    });
  }
  for (const r of resources.filter((x) => x.type === helmRelease)) {
    const claims = releaseClaims(r);
    if (claims.length === 0) continue;
    if (r.retainOnDelete === false) {
      out.push({
        invariant: "crd-releases-retained",
        resource: key(r),
        message: `${key(r)} installs the ${claims.map((f) => crdFamilies[f].title).join(", ")} CRDs but is not retainOnDelete: removing it from the stack would delete them and every object in them`,
      });
    }
    // Charts with a keep switch keep their CRDs on uninstall (helm.sh/resource-policy: keep).
    const chart = chartOf(r);
    if (
      (chart === "certManager" || chart === "trustManager") &&
      at(r.inputs, "values", "crds", "keep") === false
    ) {
      out.push({
        invariant: "crd-releases-retained",
        resource: key(r),
        message: `${key(r)} sets crds.keep false: an uninstall would delete its CRDs`,
      });
    }
  }
  return out;
}
