import * as YAML from "yaml";
import {
  HelmTemplater,
  caKeyReaders,
  checkClusterInvariants,
  clusterInvariants,
  findHelm,
  nameOf,
  objectSetOf,
  type ClusterFinding,
  type ObjectSet,
} from "../cluster";
import type { Tier } from "../config";
import { supportedKubernetes } from "../versions";
import { clusterInputOf } from "./clusterInput";
import type { RenderResult } from "./run";

/** Where the charts are, and the helm that templates them. */
export interface ClusterObjectsOptions {
  /** A folder holding every pinned chart the render installs (`helm pull --untar`; see the README). */
  readonly chartsDir: string;
  /** The helm binary. @default HELM, else helm on PATH */
  readonly helm?: string;
  /** The environment's tier: production sizing is judged in prod only. @default "dev" */
  readonly tier?: Tier;
}

/** What a cluster would receive from a render, at each supported Kubernetes version, and what fails there. */
export interface ClusterObjects {
  /** One object set per supported Kubernetes version, lowest first. */
  readonly sets: readonly ObjectSet[];
  readonly findings: readonly { readonly kubeVersion: string; readonly finding: ClusterFinding }[];
  /** `cluster-objects.yaml`: the whole object set at the highest supported version. */
  readonly file: string;
}

/**
 * Templates every Helm release of a render with the charts in `chartsDir` and a real helm, joins them
 * with the program's own objects and the proxies admission adds, at the lowest and highest Kubernetes
 * version the platform supports, and checks every cluster invariant on each.
 */
export async function clusterObjectsOf(
  label: string,
  result: RenderResult,
  opts: ClusterObjectsOptions,
): Promise<ClusterObjects> {
  const helm = opts.helm ?? findHelm();
  if (!helm) throw new Error("no helm binary: install Helm 3 (helm.sh) or set HELM to its path");
  const templater = new HelmTemplater(helm);
  const input = clusterInputOf(label, opts.tier ?? "dev", result);
  const sets: ObjectSet[] = [];
  for (const kubeVersion of [supportedKubernetes.lowest, supportedKubernetes.highest])
    sets.push(await objectSetOf(input, { templater, chartsDir: opts.chartsDir, kubeVersion }));
  return {
    sets,
    findings: sets.flatMap((set) =>
      checkClusterInvariants(set).map((finding) => ({ kubeVersion: set.kubeVersion, finding })),
    ),
    file: objectSetYaml(sets[sets.length - 1]),
  };
}

/** The object set as multi-document YAML: the program's objects, then each release's, each document naming its source. */
export function objectSetYaml(set: ObjectSet): string {
  const docs = set.objects.map((o) => {
    const release = set.releaseOf.get(o);
    const doc = new YAML.Document(o, { aliasDuplicateObjects: false });
    doc.commentBefore = release
      ? ` ${nameOf(o)} from release ${release.namespace}/${release.name} (${release.chart} ${release.version})`
      : ` ${nameOf(o)} from the program`;
    return doc.toString({ lineWidth: 0, minContentWidth: 0 });
  });
  const injected = set.pods.filter((p) => p.proxy).map((p) => `#   ${nameOf(p.owner)}: ${p.proxy}`);
  return (
    [
      `# What the cluster receives at Kubernetes ${set.kubeVersion}: the program's objects and every Helm release templated with its pinned chart.`,
      `# API versions served: ${set.apiVersions.join(", ")}`,
      ...(injected.length > 0 ? ["# Pods a mesh proxy is added to at admission:", ...injected] : []),
      "",
    ].join("\n") + docs.join("---\n")
  );
}

/** The cluster check's lines for the render summary. */
export function clusterSummary(check: ClusterObjects): string {
  const releases = check.sets[0]?.releases.length ?? 0;
  const lines = [
    `  cluster objects: ${check.sets.map((s) => `${s.objects.length} at Kubernetes ${s.kubeVersion}`).join(", ")}; ${releases} releases templated`,
    `  cluster invariants (${Object.keys(clusterInvariants).length}): ${check.findings.length === 0 ? "all hold" : `${check.findings.length} violated`}`,
  ];
  const seen = new Set<string>();
  for (const { kubeVersion, finding } of check.findings) {
    const key = `${finding.invariant} ${finding.object} ${finding.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    lines.push(
      `    - [${finding.invariant}] ${finding.object} (Kubernetes ${kubeVersion}): ${finding.message}`,
    );
  }
  const set = check.sets[check.sets.length - 1];
  const keys = set ? caKeyReaders(set) : [];
  if (keys.length > 0) {
    lines.push(
      `  CA keys and who may read them (docs/safety.md, "Who may read a CA key"; Kubernetes' own identities aside):`,
    );
    for (const { key, readers } of keys)
      lines.push(`    - ${key.namespace}/${key.name}: ${readers.join(", ") || "none"}`);
  }
  return lines.join("\n");
}
