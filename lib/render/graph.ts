/**
 * What ordering and drawing read of a rendered resource (`GraphResource`, lib/render/run.ts): the
 * render's own records, or any with these fields.
 */
export interface GraphResource {
  readonly key: string;
  readonly type: string;
  readonly name: string;
  readonly custom: boolean;
  readonly parent?: string;
  readonly dependencies: readonly string[];
  readonly inputs: Readonly<Record<string, unknown>>;
}

/** Resources with their apply order, as a render returns them (`RenderResult`). */
export interface OrderedResources {
  readonly resources: readonly GraphResource[];
  /** The custom resources in apply order (`applyOrder`). */
  readonly order: readonly GraphResource[];
}

/**
 * The order `pulumi up` may create resources in: every resource after everything it depends on.
 * Among resources that are ready together, Kubernetes objects follow Helm's install order by kind
 * (CRDs and Namespaces first) and then their key, so the order is stable across renders.
 */
export function applyOrder<R extends GraphResource>(resources: readonly R[]): R[] {
  const customs = resources.filter((r) => r.custom);
  const byKey = new Map(customs.map((r) => [r.key, r]));
  const waiting = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  for (const r of customs) {
    const deps = r.dependencies.filter((d) => byKey.has(d));
    waiting.set(r.key, deps.length);
    // Appended in place: a provider or control plane has thousands of dependents.
    for (const d of deps) {
      const list = dependents.get(d);
      if (list) list.push(r.key);
      else dependents.set(d, [r.key]);
    }
  }
  const ready = new MinHeap<R>(compareForApply);
  for (const r of customs) if (waiting.get(r.key) === 0) ready.push(r);
  const order: R[] = [];
  while (ready.size > 0) {
    const next = ready.pop() as R;
    order.push(next);
    for (const d of dependents.get(next.key) ?? []) {
      const left = (waiting.get(d) ?? 0) - 1;
      waiting.set(d, left);
      if (left === 0) ready.push(byKey.get(d) as R);
    }
  }
  if (order.length !== customs.length) {
    const stuck = customs.filter((r) => (waiting.get(r.key) ?? 0) > 0).map((r) => r.key);
    throw new Error(`dependency cycle among: ${stuck.join(", ")}`);
  }
  return order;
}

/**
 * The longest chain of dependencies: the least number of sequential steps `pulumi up` needs. From a
 * render's apply order (`RenderResult.order`).
 */
export function criticalPath(order: readonly GraphResource[]): string[] {
  const longest = new Map<string, { length: number; previous?: string }>();
  for (const r of order) {
    let best: { length: number; previous?: string } = { length: 1 };
    for (const d of r.dependencies) {
      const via = longest.get(d);
      if (via && via.length + 1 > best.length) best = { length: via.length + 1, previous: d };
    }
    longest.set(r.key, best);
  }
  let end: string | undefined;
  let endLength = 0;
  for (const r of order) {
    const l = longest.get(r.key)?.length ?? 0;
    if (l > endLength) {
      end = r.key;
      endLength = l;
    }
  }
  const path: string[] = [];
  for (let cur = end; cur; cur = longest.get(cur)?.previous) path.unshift(cur);
  return path;
}

/** The dependency graph as a Mermaid flowchart: components as nested subgraphs, arrows from prerequisite to dependent. */
export function mermaid({ resources, order }: OrderedResources): string {
  const ids = new Map<string, string>();
  resources.forEach((r, i) => ids.set(r.key, `${r.custom ? "r" : "c"}${i}`));
  const childrenOf = new Map<string | undefined, GraphResource[]>();
  const position = new Map(order.map((r, i) => [r.key, i]));
  for (const r of resources) {
    const list = childrenOf.get(r.parent);
    if (list) list.push(r);
    else childrenOf.set(r.parent, [r]);
  }

  const lines = ["flowchart LR"];
  const emit = (parent: string | undefined, indent: string): void => {
    const children = [...(childrenOf.get(parent) ?? [])].sort(
      (a, b) => (position.get(a.key) ?? -1) - (position.get(b.key) ?? -1) || a.key.localeCompare(b.key),
    );
    for (const r of children) {
      if (r.custom) {
        lines.push(`${indent}${ids.get(r.key)}["${label(r)}"]`);
      } else {
        lines.push(`${indent}subgraph ${ids.get(r.key)}["${label(r)}"]`);
        emit(r.key, `${indent}  `);
        lines.push(`${indent}end`);
      }
    }
  };
  emit(undefined, "  ");
  for (const r of order) {
    for (const d of r.dependencies) {
      if (ids.has(d)) lines.push(`  ${ids.get(d)} --> ${ids.get(r.key)}`);
    }
  }
  return lines.join("\n") + "\n";
}

function label(r: GraphResource): string {
  const kind = shortType(r.type);
  const objectName = objectNameOf(r);
  return `${kind}<br/>${escape(objectName ?? r.name)}`;
}

/** `gcp:container/cluster:Cluster` → `Cluster`; `pulumi:providers:kubernetes` → `Provider (kubernetes)`. */
export function shortType(type: string): string {
  if (type.startsWith("pulumi:providers:")) return `Provider (${type.slice("pulumi:providers:".length)})`;
  return type.split(":").pop() ?? type;
}

function objectNameOf(r: GraphResource): string | undefined {
  const metadata = r.inputs.metadata as { name?: unknown; namespace?: unknown } | undefined;
  if (typeof metadata?.name !== "string") return undefined;
  // The kind is the label's first line already.
  const ns = typeof metadata.namespace === "string" ? `${metadata.namespace}/` : "";
  return `${ns}${metadata.name}`;
}

function escape(text: string): string {
  return text.replace(/"/g, "#quot;").replace(/</g, "#lt;").replace(/>/g, "#gt;");
}

// Helm's install order (helm/pkg/releaseutil/kind_sorter.go), CRDs first as Helm installs them before templates.
const kindOrder = [
  "CustomResourceDefinition",
  "Namespace",
  "NetworkPolicy",
  "ResourceQuota",
  "LimitRange",
  "PodDisruptionBudget",
  "ServiceAccount",
  "Secret",
  "ConfigMap",
  "StorageClass",
  "PersistentVolume",
  "PersistentVolumeClaim",
  "ClusterRole",
  "ClusterRoleBinding",
  "Role",
  "RoleBinding",
  "Service",
  "DaemonSet",
  "Pod",
  "ReplicaSet",
  "Deployment",
  "HorizontalPodAutoscaler",
  "StatefulSet",
  "Job",
  "CronJob",
  "IngressClass",
  "Ingress",
  "APIService",
];

function rank(r: GraphResource): number {
  const kind = typeof r.inputs.kind === "string" ? r.inputs.kind : undefined;
  const i = kind ? kindOrder.indexOf(kind) : -1;
  // Cloud resources first, then known kinds in Helm's order, then custom resources.
  if (!r.type.startsWith("kubernetes:")) return -1;
  return i === -1 ? kindOrder.length : i;
}

function compareForApply(a: GraphResource, b: GraphResource): number {
  return rank(a) - rank(b) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

/** A binary heap, so ordering thousands of resources stays O(n log n). */
class MinHeap<T> {
  private readonly items: T[] = [];
  constructor(private readonly compare: (a: T, b: T) => number) {}
  get size(): number {
    return this.items.length;
  }
  push(item: T): void {
    const a = this.items;
    a.push(item);
    for (let i = a.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (this.compare(a[i], a[p]) >= 0) break;
      [a[i], a[p]] = [a[p], a[i]];
      i = p;
    }
  }
  pop(): T | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      a[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.compare(a[l], a[m]) < 0) m = l;
        if (r < a.length && this.compare(a[r], a[m]) < 0) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m], a[i]];
        i = m;
      }
    }
    return top;
  }
}

/**
 * The deployment at a glance: every resource folded into its part of the stack (the components
 * directly under the top-level component, and "apps" for the objects it deploys itself), with an
 * arrow wherever something in one part waits for something in another. Rendered from the real
 * dependency graph, so it cannot drift from what `pulumi up` does.
 */
export function stageGraph({ resources, order }: OrderedResources): string {
  const byKey = new Map(resources.map((r) => [r.key, r]));
  const root = resources.find((r) => !r.parent && !r.custom);
  const partOf = (key: string): string | undefined => {
    let cur = byKey.get(key);
    while (cur?.parent && cur.parent !== root?.key) cur = byKey.get(cur.parent);
    if (!cur) return undefined;
    return cur.custom ? "apps" : shortType(cur.type);
  };
  const parts: string[] = [];
  const edges = new Set<string>();
  for (const r of order) {
    const to = partOf(r.key);
    if (!to) continue;
    if (!parts.includes(to)) parts.push(to);
    for (const d of r.dependencies) {
      const from = partOf(d);
      if (from && from !== to) edges.add(`${from} --> ${to}`);
    }
  }
  const id = (part: string) => part.replace(/[^A-Za-z0-9]/g, "");
  const lines = ["flowchart LR", ...parts.map((p) => `  ${id(p)}["${p}"]`)];
  for (const e of [...edges].sort()) {
    const [from, to] = e.split(" --> ");
    lines.push(`  ${id(from)} --> ${id(to)}`);
  }
  return lines.join("\n") + "\n";
}
