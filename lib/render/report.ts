import { clusterInvariants } from "../cluster";
import { invariants, type CertificateEntry, type InvariantName } from "../safety";
import { clusterSummary } from "./clusterObjects";
import { certificateLines, certificatesOf, helmReleases, kubernetesObjects } from "./files";
import { criticalPath, shortType } from "./graph";
import type { RenderedResource } from "./run";
import { safetySummary } from "./safetySummary";
import type { RenderedStack } from "./stack";

/**
 * What the render command prints about one stack: as text for a person (`summaryText`) and as JSON
 * for a program (`stackReport`, `--json`). Both show resources by the names a reader knows (a
 * component by its type and what it is for, an object by its kind, namespace and name); the Pulumi
 * names, which are URNs and never change, are in resources.yaml and in the JSON.
 */

/** One component, as the summary lists it. */
export interface ReportedComponent {
  /** Its Pulumi name, such as `platform-app-shop-shop`. */
  readonly name: string;
  readonly type: string;
  /** How the summary shows it, such as `App shop/shop`. */
  readonly shown: string;
  /** The Pulumi name of the component it is in. */
  readonly parent?: string;
  /** The resources directly in it, by kind. */
  readonly resources: Readonly<Record<string, number>>;
}

/** One step of the critical path. */
export interface ReportedStep {
  /** `type::name`. */
  readonly resource: string;
  /** How the summary shows it, such as `Release cert-manager/cert-manager`. */
  readonly shown: string;
  /** The component it is in, as shown, with the components around it: `GkeCluster gke-dev / SecretsKey secrets`. */
  readonly component?: string;
}

export interface ReportedInvariant {
  readonly name: string;
  readonly description: string;
  readonly holds: boolean;
  readonly violations: readonly { readonly resource: string; readonly message: string }[];
}

/** What `render --json` prints for one stack. */
export interface StackReport {
  readonly program: string;
  readonly stack: string;
  /** `render --check`: nothing was written. */
  readonly checkOnly: boolean;
  /** Where the files went (as given on the command line). */
  readonly outDir?: string;
  readonly files: readonly string[];
  readonly seconds: number;
  readonly counts: {
    /** Custom resources: an object in the cloud or the cluster each. */
    readonly resources: number;
    /** Components, which group resources. */
    readonly components: number;
    readonly kubernetesObjects: number;
    readonly helmReleases: number;
  };
  readonly components: readonly ReportedComponent[];
  readonly criticalPath: readonly ReportedStep[];
  readonly certificates: readonly CertificateEntry[];
  readonly warnings: readonly string[];
  readonly invariants: readonly ReportedInvariant[];
  /** With a chart folder: what the cluster receives and the cluster invariants. */
  readonly cluster?: {
    readonly objects: readonly { readonly kubernetesVersion: string; readonly count: number }[];
    readonly invariants: readonly ReportedInvariant[];
  };
  /** Violated invariants, safety and cluster: a render with any fails. */
  readonly findings: number;
}

/** The JSON report of a rendered stack. */
export function stackReport(
  rendered: RenderedStack,
  options: { outDir?: string; checkOnly?: boolean } = {},
): StackReport {
  const { result } = rendered;
  const names = namer(result.resources);
  const safety = (Object.keys(invariants) as InvariantName[]).map((name) => {
    const violations = rendered.violations
      .filter((v) => v.invariant === name)
      .map((v) => ({ resource: v.resource, message: v.message }));
    return { name, description: invariants[name], holds: violations.length === 0, violations };
  });
  const cluster = rendered.cluster;
  const clusterReport = cluster && {
    objects: cluster.sets.map((s) => ({ kubernetesVersion: s.kubeVersion, count: s.objects.length })),
    invariants: Object.entries(clusterInvariants).map(([name, description]) => {
      const violations = cluster.findings
        .filter((f) => f.finding.invariant === name)
        .map((f) => ({
          resource: f.finding.object,
          message: `${f.finding.message} (Kubernetes ${f.kubeVersion})`,
        }));
      return { name, description, holds: violations.length === 0, violations };
    }),
  };
  return {
    program: result.project,
    stack: result.stack,
    checkOnly: options.checkOnly ?? false,
    ...(options.checkOnly ? {} : { outDir: options.outDir ?? rendered.outDir }),
    files: rendered.files,
    seconds: Math.round(rendered.milliseconds / 100) / 10,
    counts: {
      resources: result.resources.filter((r) => r.custom).length,
      components: result.resources.filter((r) => !r.custom).length,
      kubernetesObjects: kubernetesObjects(result).length,
      helmReleases: helmReleases(result).length,
    },
    components: result.resources
      .filter((r) => !r.custom)
      .map((c) => ({
        name: c.name,
        type: c.type,
        shown: names.component(c),
        ...(c.parent ? { parent: names.byKey.get(c.parent)?.name ?? c.parent } : {}),
        resources: Object.fromEntries(byKind(names.ownResources(c.key))),
      })),
    criticalPath: criticalPath(result.order).map((key) => {
      const r = names.byKey.get(key);
      const within = r?.parent ? names.chain(r.parent) : undefined;
      return { resource: key, shown: r ? names.step(r) : key, ...(within ? { component: within } : {}) };
    }),
    certificates: certificatesOf(result),
    warnings: result.warnings,
    invariants: safety,
    ...(clusterReport ? { cluster: clusterReport } : {}),
    findings: rendered.violations.length + (cluster?.findings.length ?? 0),
  };
}

/**
 * The summary a person reads: what was rendered (or checked) and where it went, the files, every
 * component with the resources in it, the critical path one component a line, the certificates, the
 * warnings, the safety invariants and, with a chart folder, the cluster's.
 */
export function summaryText(rendered: RenderedStack, report: StackReport): string {
  const { result } = rendered;
  const names = namer(result.resources);
  const c = report.counts;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const what = `${plural(c.resources, "resource")} in ${plural(c.components, "component")} (${plural(c.kubernetesObjects, "Kubernetes object")}, ${plural(c.helmReleases, "Helm release")})`;
  const lines = report.checkOnly
    ? [`Checked ${report.program}/${report.stack} in ${report.seconds} s, writing nothing: ${what}`]
    : [
        `Rendered ${report.program}/${report.stack} in ${report.seconds} s: ${what}`,
        `  wrote ${report.files.join(", ")} to ${report.outDir ?? rendered.outDir}/`,
      ];

  lines.push("  components, with the resources directly in each:");
  const own = names.ownResources(undefined);
  if (own.length > 0) lines.push(`    (outside any component): ${countsText(own)}`);
  const list = (parent: string | undefined, indent: string): void => {
    const kids = names.childComponents(parent);
    const byType = new Map<string, RenderedResource[]>();
    for (const k of kids) {
      const same = byType.get(k.type);
      if (same) same.push(k);
      else byType.set(k.type, [k]);
    }
    for (const k of kids) {
      const same = byType.get(k.type) ?? [];
      if (same.length > foldAbove) {
        // Thousands of apps read better as one line per type than as thousands of lines.
        if (same[0] !== k) continue;
        lines.push(
          `${indent}${same.length} ${shortType(k.type)} components: ${countsText(same.flatMap((s) => names.ownResources(s.key)))}`,
        );
        continue;
      }
      lines.push(`${indent}${names.component(k)}: ${countsText(names.ownResources(k.key))}`);
      list(k.key, `${indent}  `);
    }
  };
  list(undefined, "    ");

  const steps = report.criticalPath;
  lines.push(
    `  critical path: ${plural(steps.length, "step")}, the longest chain pulumi up creates one after another, by component:`,
  );
  for (let i = 0; i < steps.length;) {
    let j = i;
    while (j < steps.length && steps[j].component === steps[i].component) j++;
    lines.push(
      `    ${steps[i].component ?? "(outside any component)"}: ${steps
        .slice(i, j)
        .map((s) => s.shown)
        .join(", ")}`,
    );
    i = j;
  }

  lines.push(...certificateLines(report.certificates, report.checkOnly));
  if (report.warnings.length > 0) {
    lines.push(`  warnings (${report.warnings.length}):`);
    for (const w of report.warnings) lines.push(`    - ${w}`);
  }
  lines.push(safetySummary(rendered.violations));
  if (rendered.cluster) lines.push(clusterSummary(rendered.cluster));
  return lines.join("\n");
}

/** Sibling components of one type beyond this many are summed up in one line. */
const foldAbove = 8;

/** A resource's kind: a Kubernetes object's own, else the last part of its type. */
function kindOf(r: RenderedResource): string {
  return typeof r.inputs.kind === "string" ? r.inputs.kind : shortType(r.type);
}

function byKind(list: readonly RenderedResource[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const r of list) counts.set(kindOf(r), (counts.get(kindOf(r)) ?? 0) + 1);
  return [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function countsText(list: readonly RenderedResource[]): string {
  return (
    byKind(list)
      .map(([k, n]) => `${n} ${k}`)
      .join(", ") || "no resources of its own"
  );
}

/** `CertManager` → `cert-manager`, `GkeCluster` → `gke-cluster`. */
function kebab(type: string): string {
  return shortType(type)
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .toLowerCase();
}

/** A Kubernetes object's `namespace/name` (or name), from its inputs. */
function objectName(r: RenderedResource): string | undefined {
  const metadata = r.inputs.metadata as { name?: unknown; namespace?: unknown } | undefined;
  const name = typeof metadata?.name === "string" ? metadata.name : undefined;
  if (name === undefined) return undefined;
  return typeof metadata?.namespace === "string" ? `${metadata.namespace}/${name}` : name;
}

/** How the report names each component and resource of one render. */
function namer(resources: readonly RenderedResource[]) {
  const byKey = new Map(resources.map((r) => [r.key, r]));
  const children = new Map<string | undefined, RenderedResource[]>();
  for (const r of resources) {
    const list = children.get(r.parent);
    if (list) list.push(r);
    else children.set(r.parent, [r]);
  }
  const ownResources = (key: string | undefined) => (children.get(key) ?? []).filter((r) => r.custom);
  const childComponents = (key: string | undefined) => (children.get(key) ?? []).filter((r) => !r.custom);
  /** A name without its parent's as prefix: `gke-dev-apis` in `gke-dev` is `apis`. */
  const local = (r: RenderedResource): string => {
    const parent = r.parent ? byKey.get(r.parent) : undefined;
    return parent && r.name.startsWith(`${parent.name}-`) ? r.name.slice(parent.name.length + 1) : r.name;
  };

  /**
   * A component as its type and what it is for: `Linkerd`, `GkeCluster gke-dev`, `App shop/shop`. Its
   * local name is dropped where it only repeats the type (`platform-linkerd`), and read as an object's
   * `namespace/name` where one of its objects is named so (`platform-app-shop-shop`).
   */
  const component = (c: RenderedResource): string => {
    const type = shortType(c.type);
    let label = local(c);
    const prefix = kebab(c.type);
    if (label === prefix) return type;
    if (label.startsWith(`${prefix}-`)) label = label.slice(prefix.length + 1);
    const named = ownResources(c.key)
      .map(objectName)
      .find((n) => n !== undefined && n.includes("/") && n.replace("/", "-") === label);
    return `${type} ${named ?? label}`;
  };

  /** The components a resource is in, outermost first, without the one at the top when it holds everything. */
  const chain = (key: string): string => {
    const path: RenderedResource[] = [];
    for (let cur = byKey.get(key); cur; cur = cur.parent ? byKey.get(cur.parent) : undefined)
      path.unshift(cur);
    const roots = childComponents(undefined);
    const shown =
      roots.length === 1 && ownResources(undefined).length === 0 && path.length > 1 ? path.slice(1) : path;
    return shown.map(component).join(" / ");
  };

  /** A resource as a reader knows it: `Release cert-manager/cert-manager`, `Namespace shop`, `CryptoKey key`. */
  const step = (r: RenderedResource): string => {
    if (r.type === "kubernetes:helm.sh/v3:Release") {
      const i = r.inputs as { name?: unknown; namespace?: unknown };
      if (typeof i.name === "string")
        return `Release ${typeof i.namespace === "string" ? `${i.namespace}/` : ""}${i.name}`;
    }
    const object = r.type.startsWith("kubernetes:") ? objectName(r) : undefined;
    if (object !== undefined && typeof r.inputs.kind === "string") return `${r.inputs.kind} ${object}`;
    if (r.type.startsWith("pulumi:providers:"))
      return `${r.type.slice("pulumi:providers:".length)} provider ${local(r)}`;
    return `${shortType(r.type)} ${local(r)}`;
  };

  return { byKey, ownResources, childComponents, component, chain, step };
}
