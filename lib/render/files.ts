import * as YAML from "yaml";
import { certificateInventory, type CertificateEntry } from "../safety";
import { goDurationSeconds } from "../versions";
import { viewsOf } from "./views";
import { criticalPath, mermaid, shortType } from "./graph";
import type { RenderResult, RenderedOptions, RenderedResource } from "./run";

/** The files a render writes, by name. Pure: the same result always gives the same bytes. */
export function renderFiles(result: RenderResult): Record<string, string> {
  return {
    "resources.yaml": resourcesYaml(result),
    "manifests.yaml": manifestsYaml(result),
    "helm-releases.yaml": helmReleasesYaml(result),
    "graph.mmd": mermaid(result),
    "certificates.yaml": certificatesYaml(result),
  };
}

/** The certificate inventory of a render (lib/safety/certificates.ts). */
export function certificatesOf(result: RenderResult): CertificateEntry[] {
  return certificateInventory(viewsOf(result));
}

function certificatesYaml(result: RenderResult): string {
  const certificates = certificatesOf(result).map((e) => ({
    certificate: e.certificate,
    purpose: e.purpose,
    source: e.source,
    lifetime: e.lifetime,
    ...(e.renewBefore ? { renewBefore: e.renewBefore } : {}),
    issuer: e.issuer,
    renewer: e.renewer ?? "NOTHING RENEWS IT",
    ...(e.evidence ? { evidence: e.evidence } : {}),
  }));
  return (
    header(
      "Every certificate the program's components make, mount or reference: lifetime, renewal, issuer chain and renewer.",
    ) + stringify({ certificates })
  );
}

/** A Go duration (`87600h0m0s`, `30m`) in words where it is one; anything else as it is. */
export function durationText(text: string): string {
  const seconds = goDurationSeconds(text);
  if (seconds === undefined) return text;
  const units: [number, string][] = [
    [365 * 86400, "year"],
    [86400, "day"],
    [3600, "hour"],
    [60, "minute"],
    [1, "second"],
  ];
  for (const [size, unit] of units) {
    if (seconds >= size && seconds % size === 0) {
      const n = seconds / size;
      return `${n} ${unit}${n === 1 ? "" : "s"}`;
    }
  }
  return text;
}

/** The certificate inventory in a summary: one line each, with what renews it (nothing, in capitals). */
export function certificateLines(entries: readonly CertificateEntry[], checkOnly = false): string[] {
  if (entries.length === 0) return [];
  const unrenewed = entries.filter((e) => e.renewer === undefined);
  const lines = [
    `  certificates (${entries.length}, ${unrenewed.length === 0 ? "each with a renewer" : `${unrenewed.length} WITHOUT A RENEWER`}${checkOnly ? "" : "; all in certificates.yaml"}):`,
  ];
  for (const e of entries) {
    const renewal = e.renewBefore ? `, renewed ${durationText(e.renewBefore)} before expiry` : "";
    const chain = e.issuer.length > 0 ? `; issuer: ${e.issuer.join(" <- ")}` : "";
    lines.push(
      `    ${e.certificate}: ${durationText(e.lifetime)}${renewal}; renewer: ${e.renewer ?? "NOTHING"}${chain}`,
    );
  }
  return lines;
}

const helmReleaseType = "kubernetes:helm.sh/v3:Release";
const helmChartType = "kubernetes:helm.sh/v4:Chart";
const crdChartNote = "CRDs only, server-side applied, upgraded with the pin";

/** Kubernetes objects the program creates itself (not through a Helm chart), in apply order. */
export function kubernetesObjects(result: RenderResult): RenderedResource[] {
  return result.order.filter(
    (r) => r.type.startsWith("kubernetes:") && r.type !== helmReleaseType && !r.remote && !r.read,
  );
}

export function helmReleases(result: RenderResult): RenderedResource[] {
  return result.order.filter((r) => r.type === helmReleaseType);
}

/**
 * The charts the provider renders and applies object by object (helm.v4.Chart, server-side), in apply
 * order: the platform's CRD charts.
 */
export function helmCharts(result: RenderResult): RenderedResource[] {
  return result.order.filter((r) => r.type === helmChartType);
}

/** What a CRD chart is: its transforms keep only CRDs, retain them and force the apply. */
export function isCrdChart(r: RenderedResource): boolean {
  const c = r.children;
  return (
    r.type === helmChartType &&
    c !== undefined &&
    c.crdsOnly &&
    c.crd.retainOnDelete &&
    c.crd.annotations[patchForceAnnotation] === "true"
  );
}

// pulumi-kubernetes provider v4.25.0 pkg/metadata/annotations.go AnnotationPatchForce (lib/deploy/crdChart.ts sets it).
const patchForceAnnotation = "pulumi.com/patchForce";

function resourcesYaml(result: RenderResult): string {
  const order = new Map(result.order.map((r, i) => [r.key, i]));
  const byPosition = [...result.resources].sort(
    (a, b) => (order.get(a.key) ?? -1) - (order.get(b.key) ?? -1) || compareText(a.key, b.key),
  );
  const doc = {
    project: result.project,
    stack: result.stack,
    resources: byPosition.map((r) => ({
      type: r.type,
      name: r.name,
      ...(r.parent ? { parent: r.parent } : {}),
      ...(r.custom ? {} : { component: true }),
      ...(r.remote ? { remote: true } : {}),
      ...(r.read ? { read: true } : {}),
      ...(r.provider ? { provider: r.provider } : {}),
      ...nonDefaultOptions(r),
      ...(r.dependsOn.length > 0 ? { dependsOn: r.dependsOn } : {}),
      ...(r.children ? { children: sortKeys(r.children) } : {}),
      ...(r.custom ? { inputs: sortKeys(r.inputs) } : {}),
    })),
    outputs: sortKeys(result.outputs),
  };
  return header("Every resource the program registers, with its options and inputs.") + stringify(doc);
}

/**
 * Only the options a program changed from Pulumi's defaults (not protected, deleted with the stack,
 * replaced create-before-delete, every change applied): a default says nothing to a reviewer.
 */
function nonDefaultOptions(r: RenderedResource): { options?: Partial<RenderedOptions> } {
  const o = r.options;
  const options: Partial<RenderedOptions> = {
    ...(o.protect ? { protect: true } : {}),
    ...(o.retainOnDelete ? { retainOnDelete: true } : {}),
    ...(o.deleteBeforeReplace ? { deleteBeforeReplace: true } : {}),
    ...(o.ignoreChanges.length > 0 ? { ignoreChanges: o.ignoreChanges } : {}),
    ...(o.replaceOnChanges.length > 0 ? { replaceOnChanges: o.replaceOnChanges } : {}),
  };
  return Object.keys(options).length > 0 ? { options } : {};
}

function manifestsYaml(result: RenderResult): string {
  const docs = kubernetesObjects(result).map((r) => {
    const doc = new YAML.Document(manifestKeyOrder(r.inputs), { aliasDuplicateObjects: false });
    doc.commentBefore = ` ${r.key}`;
    return doc.toString(yamlOptions);
  });
  return header("Kubernetes objects the program creates itself, in apply order.") + docs.join("---\n");
}

function helmReleasesYaml(result: RenderResult): string {
  const charts = new Set(helmCharts(result));
  const listed = result.order.filter((r) => r.type === helmReleaseType || charts.has(r));
  const releases = listed.map((r) => {
    const i = r.inputs as {
      name?: string;
      namespace?: string;
      chart?: string;
      version?: string;
      repositoryOpts?: { repo?: string };
      values?: Record<string, unknown>;
      skipCrds?: boolean;
      description?: string;
    };
    // A helm.v4.Chart: each object its own resource, its CRDs' options from the chart's transforms.
    const chart = r.type === helmChartType;
    const note = chart
      ? isCrdChart(r)
        ? crdChartNote
        : "each object server-side applied as its own resource"
      : i.description;
    return {
      name: i.name ?? r.name,
      namespace: i.namespace ?? "default",
      repository: i.repositoryOpts?.repo ?? "",
      chart: i.chart ?? "",
      version: i.version ?? "",
      ...(chart ? { resource: "helm.v4.Chart" } : {}),
      crds: {
        installedByChart: i.skipCrds !== true,
        retainOnDelete: chart ? (r.children?.crd.retainOnDelete ?? false) : r.options.retainOnDelete,
        ...(note ? { note } : {}),
      },
      values: sortKeys(i.values ?? {}),
    };
  });
  return header("Helm releases, with their pinned charts and values.") + stringify({ releases });
}

/**
 * A short report for the terminal: totals, then every component with the resources directly in it
 * (siblings of one type past a handful folded into one line), the critical path and the warnings.
 */
export function summary(result: RenderResult, outDir: string): string {
  const customs = result.resources.filter((r) => r.custom);
  const components = result.resources.filter((r) => !r.custom);
  const children = new Map<string | undefined, RenderedResource[]>();
  for (const r of result.resources) {
    const list = children.get(r.parent);
    if (list) list.push(r);
    else children.set(r.parent, [r]);
  }
  const counts = (list: readonly RenderedResource[]): string => {
    const byKind = new Map<string, number>();
    for (const r of list) byKind.set(kindOf(r), (byKind.get(kindOf(r)) ?? 0) + 1);
    const parts = [...byKind.entries()].sort(([a], [b]) => compareText(a, b)).map(([k, n]) => `${n} ${k}`);
    return parts.join(", ") || "no resources of its own";
  };
  const lines = [
    `Rendered ${result.project}/${result.stack} to ${outDir}/: ` +
      `${customs.length} resources in ${components.length} components, ` +
      `${kubernetesObjects(result).length} Kubernetes objects, ${helmReleases(result).length} Helm releases`,
  ];
  const own = (key: string | undefined) => (children.get(key) ?? []).filter((r) => r.custom);
  const top = own(undefined);
  if (top.length > 0) lines.push(`  (outside any component): ${counts(top)}`);
  const list = (parent: string | undefined, indent: string): void => {
    const kids = (children.get(parent) ?? []).filter((r) => !r.custom);
    const byType = new Map<string, RenderedResource[]>();
    for (const c of kids) {
      const same = byType.get(c.type);
      if (same) same.push(c);
      else byType.set(c.type, [c]);
    }
    for (const c of kids) {
      const same = byType.get(c.type) ?? [];
      if (same.length > foldAbove) {
        // Thousands of apps read better as one line per type than as thousands of lines.
        if (same[0] !== c) continue;
        const under = same.flatMap((s) => own(s.key));
        lines.push(`${indent}${same.length} ${shortType(c.type)} components: ${counts(under)}`);
        continue;
      }
      lines.push(`${indent}${c.name} (${shortType(c.type)}): ${counts(own(c.key))}`);
      list(c.key, `${indent}  `);
    }
  };
  list(undefined, "  ");
  const path = criticalPath(result.order);
  lines.push(`  critical path (${path.length} steps): ${path.map((k) => k.split("::")[1]).join(" -> ")}`);
  lines.push(...certificateLines(certificatesOf(result)));
  if (result.warnings.length > 0) {
    lines.push(`  warnings (${result.warnings.length}):`);
    for (const w of result.warnings) lines.push(`    - ${w}`);
  }
  return lines.join("\n");
}

/** Sibling components of one type beyond this many are summed up in one line. */
const foldAbove = 8;

function kindOf(r: RenderedResource): string {
  return typeof r.inputs.kind === "string" ? r.inputs.kind : shortType(r.type);
}

// No line folding, and repeated values written out rather than as YAML anchors.
const yamlOptions: YAML.ToStringOptions = { lineWidth: 0, minContentWidth: 0 };

function stringify(value: unknown): string {
  return YAML.stringify(value, { ...yamlOptions, aliasDuplicateObjects: false });
}

function header(what: string): string {
  return `# ${what}\n# Written by the offline render (gke-mesh-platform render); do not edit.\n`;
}

/** Keys sorted at every level, so the output does not depend on the order a program set them. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort(compareText)) {
    out[k] = sortKeys((value as Record<string, unknown>)[k]);
  }
  return out;
}

/** apiVersion, kind, metadata first, as manifests are conventionally written; the rest sorted. */
function manifestKeyOrder(object: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const sorted = sortKeys(object) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of ["apiVersion", "kind", "metadata"]) if (k in sorted) out[k] = sorted[k];
  for (const [k, v] of Object.entries(sorted)) if (!(k in out)) out[k] = v;
  return out;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
