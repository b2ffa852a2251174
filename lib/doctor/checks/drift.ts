import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { KubeObject } from "../../cluster";
import type { Check, CheckResult } from "../context";
import { helmMarks, pulumiMarks } from "../../versions/doctorFacts";
import { clusterScopedKinds } from "../helm";
import { capped, fieldManagers, groupOf, isObj, labelsOf, listText, ref } from "../objects";
import type { ResourceType } from "../resources";

/**
 * The cluster against what a stack would deploy, from the project's offline render (lib/render
 * `renderStack`): each object the program applies itself, missing or changed in the fields the render
 * sets; objects Pulumi applied (its field manager) in the render's namespaces that the render no longer
 * has; and each Helm release, missing or at another chart version. Values the render cannot know
 * (`<known after deploy, ...>`, `[secret]`) and Secrets' data are never compared or printed.
 */

/** What a stack's render puts in the cluster, as drift compares it. */
export interface StackRender {
  /** `<program folder> (<stack>)`, for messages. */
  readonly label: string;
  /** The objects the program applies itself (manifests.yaml). */
  readonly objects: readonly KubeObject[];
  /** Its Helm releases (helm-releases.yaml). */
  readonly releases: readonly {
    readonly name: string;
    readonly namespace: string;
    readonly chart: string;
    readonly version: string;
  }[];
}

/** A field that differs: its path, and each side as short JSON. */
export interface FieldDrift {
  readonly path: string;
  readonly rendered: string;
  readonly live: string;
}

const unknowable = (v: unknown) =>
  typeof v === "string" && (v.includes("<known after deploy") || v === "[secret]");

const short = (v: unknown): string => {
  const text = v === undefined ? "absent" : JSON.stringify(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
};

const units: Readonly<Record<string, number>> = {
  m: 1e-3,
  "": 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 1024,
  Mi: 1024 ** 2,
  Gi: 1024 ** 3,
  Ti: 1024 ** 4,
};

/** A Kubernetes quantity as a number (`100m` is 0.1, `1Gi` is 1073741824), or undefined. */
function quantity(v: unknown): number | undefined {
  if (typeof v === "number") return v;
  const m = typeof v === "string" ? /^(\d+(?:\.\d+)?)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(v) : null;
  return m ? Number(m[1]) * units[m[2] ?? ""] : undefined;
}

/** Whether two scalars mean the same: equal as text, or as quantities under `resources`. */
function sameScalar(a: unknown, b: unknown, path: string): boolean {
  if (String(a) === String(b)) return true;
  if (!/\bresources\b/.test(path)) return false;
  const qa = quantity(a);
  const qb = quantity(b);
  return qa !== undefined && qb !== undefined && Math.abs(qa - qb) < 1e-9;
}

/** The fields the render sets that the live object does not have as rendered. */
export function fieldDrift(rendered: unknown, live: unknown, path = ""): FieldDrift[] {
  if (unknowable(rendered)) return [];
  if (Array.isArray(rendered)) {
    const items = rendered as unknown[];
    if (!Array.isArray(live)) return [{ path, rendered: short(rendered), live: short(live) }];
    const liveItems = live as unknown[];
    const named = (xs: unknown[]) => xs.every((x) => isObj(x) && typeof x.name === "string");
    if (items.length > 0 && named(items) && named(liveItems)) {
      return items.flatMap((r) => {
        const name = (r as { name: string }).name;
        const match = liveItems.find((l) => (l as { name: string }).name === name);
        return match === undefined
          ? [{ path: `${path}[${name}]`, rendered: short(r), live: "absent" }]
          : fieldDrift(r, match, `${path}[${name}]`);
      });
    }
    if (items.length !== liveItems.length) return [{ path, rendered: short(items), live: short(liveItems) }];
    return items.flatMap((r, i) => fieldDrift(r, liveItems[i], `${path}[${i}]`));
  }
  if (isObj(rendered)) {
    if (!isObj(live)) return [{ path, rendered: short(rendered), live: short(live) }];
    return Object.entries(rendered).flatMap(([k, v]) => fieldDrift(v, live[k], path ? `${path}.${k}` : k));
  }
  if (rendered === undefined || rendered === null) return [];
  return sameScalar(rendered, live, path) ? [] : [{ path, rendered: short(rendered), live: short(live) }];
}

/** The parts of an object the comparison reads: what the program sets, less what it cannot know or must not print. */
function comparable(o: KubeObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === "apiVersion" || k === "kind" || k === "status") continue;
    // A Secret's values are never compared or printed.
    if (o.kind === "Secret" && (k === "data" || k === "stringData")) continue;
    if (k === "metadata") {
      const own = (m: unknown) =>
        isObj(m)
          ? Object.fromEntries(Object.entries(m).filter(([key]) => !key.startsWith("pulumi.com/")))
          : undefined;
      out.metadata = {
        ...(o.metadata.labels ? { labels: own(o.metadata.labels) } : {}),
        ...(o.metadata.annotations ? { annotations: own(o.metadata.annotations) } : {}),
      };
      continue;
    }
    out[k] = v;
  }
  return out;
}

/** The type kubectl lists for an apiVersion and kind: `Kind.version.group`, or the Kind for the core group. */
export function typeOf(apiVersion: string, kind: string): ResourceType {
  const group = groupOf(apiVersion);
  const version = apiVersion.slice(apiVersion.indexOf("/") + 1);
  return { group, resource: group ? `${kind}.${version}` : kind, kind };
}

const appliedByPulumi = (o: KubeObject) =>
  fieldManagers(o).some((m) => m.startsWith(pulumiMarks.fieldManagerPrefix)) ||
  labelsOf(o)[helmMarks.managedByLabel] === pulumiMarks.managedByValue;

export function driftCheck(render: StackRender): Check {
  return async (ctx): Promise<CheckResult> => {
    const findings: CheckResult["findings"][number][] = [];
    const types = new Map<string, { type: ResourceType; objects: KubeObject[] }>();
    for (const o of render.objects) {
      const type = typeOf(o.apiVersion, o.kind);
      const key = `${o.apiVersion} ${o.kind}`;
      types.set(key, { type, objects: [...(types.get(key)?.objects ?? []), o] });
    }
    const renderNamespaces = new Set(
      render.objects.filter((o) => o.kind === "Namespace").map((o) => o.metadata.name),
    );
    const inRender = new Set<string>();
    for (const { type, objects } of types.values()) {
      const served = await ctx.served(type);
      const live = served === false ? [] : await ctx.optional(type, `drift of ${type.kind} objects`);
      if (served === undefined) continue;
      const namespaced = !clusterScopedKinds.has(type.kind);
      const find = (ns: string | undefined, name: string) =>
        live.find((l) => (l.metadata.namespace ?? undefined) === ns && l.metadata.name === name);
      for (const o of objects) {
        if (unknowable(o.metadata.name)) continue;
        const ns = namespaced ? (o.metadata.namespace ?? "default") : undefined;
        const name = ref({ kind: o.kind, metadata: { name: o.metadata.name, namespace: ns } });
        inRender.add(name);
        const l = find(ns, o.metadata.name);
        if (!l) {
          findings.push({
            severity: "error",
            code: "missing",
            objects: [name],
            message: `${name} is in ${render.label}'s render and not in the cluster${served ? "" : ` (the cluster does not serve ${o.apiVersion} ${o.kind}: its CRD is not installed)`}: pulumi up would create it, or someone deleted it.`,
            fix: "pulumi up the stack (after a pulumi preview), or find who deleted it",
          });
          continue;
        }
        const drift = fieldDrift(comparable(o), l);
        if (drift.length === 0) continue;
        findings.push({
          severity: "warning",
          code: "changed",
          objects: [name],
          message: `${name} differs from ${render.label}'s render in ${drift.length} field${drift.length === 1 ? "" : "s"} the render sets: ${capped(
            drift.map((d) => `${d.path} is ${d.live}, the render has ${d.rendered}`),
            8,
          ).join("; ")}.`,
          fix: "pulumi preview --diff shows the same change; pulumi up puts the render's values back, or change the program if the cluster's are right (pulumi refresh records them)",
        });
      }
      // Objects Pulumi applied in the render's own namespaces that the render no longer has.
      for (const l of live) {
        const ns = l.metadata.namespace;
        if (!ns || !renderNamespaces.has(ns) || !appliedByPulumi(l) || inRender.has(ref(l))) continue;
        findings.push({
          severity: "warning",
          code: "extra",
          objects: [ref(l)],
          message: `${ref(l)} was applied by Pulumi (field manager ${listText(fieldManagers(l).filter((m) => m.startsWith(pulumiMarks.fieldManagerPrefix)))}) in namespace ${ns}, which ${render.label}'s render creates, and the render does not have it: left from an earlier version of the stack, or applied by another program.`,
          fix: `if no stack owns it any more, delete it (kubectl delete ${l.kind.toLowerCase()} ${l.metadata.name} --namespace ${ns}); if another stack does, leave it`,
        });
      }
    }
    if (render.releases.length > 0) {
      const releases = await ctx.helm("drift of the stack's Helm releases");
      for (const r of releases === undefined ? [] : render.releases) {
        const live = releases?.find((x) => x.name === r.name && x.namespace === r.namespace);
        const name = `Helm release ${r.namespace}/${r.name}`;
        if (!live) {
          findings.push({
            severity: "error",
            code: "release-missing",
            objects: [name],
            message: `${name} (${r.chart} ${r.version}) is in ${render.label}'s render and not installed in the cluster.`,
            fix: "pulumi up the stack (after a pulumi preview)",
          });
        } else if (live.chart !== r.chart || live.chartVersion !== r.version) {
          findings.push({
            severity: "warning",
            code: "release-version",
            objects: [name],
            message: `${name} runs ${live.chart} ${live.chartVersion} (revision ${live.revision}, ${live.status}); ${render.label}'s render pins ${r.chart} ${r.version}.`,
            fix: "pulumi up the stack to move it to the pin (docs/upgrades.md), or find who upgraded it by hand (helm history)",
          });
        } else if (live.status !== "deployed") {
          findings.push({
            severity: "warning",
            code: "release-not-deployed",
            objects: [name],
            message: `${name}'s newest revision (${live.revision}) is ${live.status}, not deployed.`,
            fix: `helm history ${r.name} --namespace ${r.namespace} shows what failed; pulumi up the stack again once it is fixed`,
          });
        }
      }
    }
    return { findings };
  };
}

/**
 * A stack's render, as drift compares it: renders the program offline into a temporary folder (removed
 * afterwards) and keeps its objects and releases.
 */
export async function renderForDrift(options: {
  readonly program: string;
  readonly stack: string;
  readonly registerTypeScript?: boolean;
  readonly label?: string;
}): Promise<StackRender> {
  // The render loads the Pulumi SDK: only a drift check pays for it.
  const { renderStack, kubernetesObjects, helmReleases } = await import("../../render");
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "render-doctor-"));
  try {
    const rendered = await renderStack({
      program: options.program,
      stack: options.stack,
      out,
      registerTypeScript: options.registerTypeScript,
    });
    const str = (v: unknown) => (typeof v === "string" ? v : "");
    return {
      label: options.label ?? `${path.relative(process.cwd(), options.program) || "."} (${options.stack})`,
      objects: kubernetesObjects(rendered.result)
        .map((r) => r.inputs as unknown as KubeObject)
        .filter((o) => typeof o.kind === "string" && isObj(o.metadata)),
      releases: helmReleases(rendered.result).map((r) => ({
        name: str(r.inputs.name),
        namespace: str(r.inputs.namespace) || "default",
        chart: str(r.inputs.chart),
        version: str(r.inputs.version),
      })),
    };
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}
