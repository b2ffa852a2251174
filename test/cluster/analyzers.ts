import { execFile } from "child_process";
import * as crypto from "crypto";
import * as fs from "fs";
import * as http from "http";
import * as os from "os";
import * as path from "path";
import * as YAML from "yaml";
import {
  HelmTemplater,
  admittedPod,
  findHelm,
  mutatingWebhooks,
  namespaceMap,
  objectSetOf,
  parseManifests,
  selects,
  type KubeObject,
  type ObjectSet,
} from "../../lib/cluster";
import { ConfigError } from "../../lib/config";
import { meshAdmissions } from "../../lib/meshes/models";
import { clusterInputOf } from "../../lib/render";
import { charts, gkeGatewayApiBundles, supportedKubernetes, type KubernetesMinor } from "../../lib/versions";
import {
  clusterModeTargets,
  combinationTargets,
  extraTargets,
  projectTargets,
  teamTargets,
  type RenderTarget,
} from "../matrix";
import { requireTools, type Tool } from "../real/tools";
import * as reference from "../upstream/reference";

/**
 * Real analyzers over the whole object set of every stack, example and matrix combination the cluster
 * tier builds (test/cluster/tier.ts's targets, at the lowest and highest supported Kubernetes version):
 * kube-score, checkov (`--framework kubernetes`) and Istio's own analyzers (`istioctl analyze`, on the
 * renders that install istiod). Their findings must be exactly the reviewed baseline
 * (test/cluster/analyzers-baseline.yaml, each entry with its reason): a finding it does not accept fails
 * the run, and so does an entry that matches nothing any more, so the list only shrinks.
 *
 * Objects repeat across renders, so each analyzer sees each distinct object (by the hash of its canonical
 * JSON) once, in as few runs as it allows, and its findings are mapped back to every render holding it:
 * - kube-score's checks read one object, or the objects of its namespace (Services and pods,
 *   NetworkPolicies, PodDisruptionBudgets, autoscalers; score/*: every match compares namespaces), so it
 *   runs once over each distinct namespace of each render, each given a namespace of its own;
 * - checkov's resource checks read one object: one run over every distinct object, one JSON file each (its
 *   YAML reader drops a whole file that contains `{{ .Values.` or `{{ .Release.`,
 *   checkov/kubernetes/parser/k8_yaml.py); its graph checks (CKV2_K8S_*) join a binding to the roles of its
 *   name and a pod to the NetworkPolicies that select it, across namespaces and files
 *   (checkov/kubernetes/graph_builder), so they run over units made per render (a binding with its roles,
 *   a workload with the NetworkPolicies of its namespace), renamed apart;
 * - Istio's analyzers need the whole render, and read Pods, Services, Namespaces and Secrets, which
 *   `istioctl analyze --use-kube=false` drops from files (istio 1.30.3
 *   pkg/config/analysis/local/istiod_analyze.go AddReaderKubeSource removes
 *   kuberesource.DefaultExcludedSchemas, so the 21 analyzers that take them are skipped); so each distinct
 *   render is served to `istioctl analyze` as a cluster, by a read-only API server in this process, with
 *   the pods its workloads make (injected by `istioctl kube-inject` with the istiod release's own injector
 *   ConfigMaps where an installed injection webhook selects them) and the Gateway API CRDs GKE serves.
 *
 * `npm run test:analyzers` runs it; `-- --write-baseline-draft <file>` also writes every finding the
 * baseline does not accept as a draft entry whose reason is TODO, for a human to review (a TODO reason is
 * refused); `-- --write-findings <file>` writes every finding with the reason that accepts it. ANALYZERS_ONLY=<text> runs only the renders whose label contains it (no entry is then stale);
 * ANALYZERS_KEEP=1 keeps the files the analyzers read, and says where.
 * The tools come from `bash scripts/tools/build.sh kube-score checkov istioctl` (or `<TOOL>_BIN`), the
 * charts and the Gateway API CRDs from the reference folder the cluster tier reads (test/upstream/reference.ts:
 * `npm run reference` makes it; CHARTS_DIR and PLATFORM_REFERENCE_DIR name others); where one is missing the
 * run skips and says why, and with CI=true it fails instead.
 */

const root = path.resolve(__dirname, "../..");
export const baselineFile = path.join(__dirname, "analyzers-baseline.yaml");

export type AnalyzerName = "kube-score" | "checkov" | "istioctl";

/** One finding of one analyzer on one object. */
export interface AnalyzerFinding {
  readonly analyzer: AnalyzerName;
  /** The check: kube-score's id, checkov's CKV id, Istio's message code (IST0118). */
  readonly check: string;
  /** What the check says within it: kube-score's comment, checkov's check name, Istio's message. */
  readonly detail: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /** The chart the object comes from, or `platform` for the platform's own objects. */
  readonly from: string;
  /** The renders it occurs in (`label @ Kubernetes version`). */
  readonly renders: readonly string[];
}

/** An accepted finding, as the baseline file lists it: each field a glob (`*` for any run of characters, `|` between alternatives). */
export interface BaselineEntry {
  readonly analyzer: AnalyzerName;
  readonly check: string;
  /** Only findings whose detail matches. @default any */
  readonly detail?: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly from: string;
  /** Why it is accepted, in one line. */
  readonly reason: string;
}

const entryFields = ["analyzer", "check", "detail", "kind", "namespace", "name", "from", "reason"] as const;
const analyzerNames: readonly AnalyzerName[] = ["kube-score", "checkov", "istioctl"];

/** A glob: `*` for any run of characters, `|` between alternatives (`cni|linkerd2-cni`). */
function glob(pattern: string): RegExp {
  const alternative = (a: string) =>
    a
      .split("*")
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*");
  return new RegExp(`^(${pattern.split("|").map(alternative).join("|")})$`, "s");
}

/** Whether a baseline entry accepts a finding. */
export function accepts(entry: BaselineEntry, f: AnalyzerFinding): boolean {
  return (
    entry.analyzer === f.analyzer &&
    glob(entry.check).test(f.check) &&
    (entry.detail === undefined || glob(entry.detail).test(f.detail)) &&
    glob(entry.kind).test(f.kind) &&
    glob(entry.namespace).test(f.namespace) &&
    glob(entry.name).test(f.name) &&
    glob(entry.from).test(f.from)
  );
}

/** The baseline file's entries; every problem of the file in one error. */
export function parseBaseline(text: string, file = baselineFile): BaselineEntry[] {
  const parsed: unknown = YAML.parse(text) ?? [];
  if (!Array.isArray(parsed)) throw new Error(`${file}: must be a list of entries`);
  const problems: string[] = [];
  const entries = parsed.map((raw: unknown, i) => {
    const e = (raw ?? {}) as Record<string, unknown>;
    const where = `${file}: entry ${i + 1}`;
    for (const k of Object.keys(e))
      if (!(entryFields as readonly string[]).includes(k)) problems.push(`${where}: unknown field ${k}`);
    // A cluster-scoped object's namespace is empty; every other field names something.
    for (const k of entryFields.filter((f) => f !== "detail"))
      if (typeof e[k] !== "string" || (e[k] === "" && k !== "namespace"))
        problems.push(`${where}: ${k} must be a non-empty string`);
    if (e.detail !== undefined && typeof e.detail !== "string")
      problems.push(`${where}: detail must be a string`);
    if (!analyzerNames.includes(e.analyzer as AnalyzerName))
      problems.push(`${where}: analyzer must be one of ${analyzerNames.join(", ")}`);
    if (typeof e.reason === "string" && /^\s*TODO\b/i.test(e.reason))
      problems.push(`${where}: reason is TODO: a human must review the finding and say why it is accepted`);
    return e as unknown as BaselineEntry;
  });
  if (problems.length > 0) throw new Error(problems.join("\n"));
  return entries;
}

/** The findings no entry accepts, and the entries that accept no finding (stale). */
export function compareWithBaseline(
  findings: readonly AnalyzerFinding[],
  baseline: readonly BaselineEntry[],
): { readonly unexpected: AnalyzerFinding[]; readonly stale: BaselineEntry[] } {
  return {
    unexpected: findings.filter((f) => !baseline.some((e) => accepts(e, f))),
    stale: baseline.filter((e) => !findings.some((f) => accepts(e, f))),
  };
}

/** Draft entries for findings, one per distinct object and check, each with the reason TODO. */
export function baselineDraft(findings: readonly AnalyzerFinding[]): string {
  const seen = new Set<string>();
  const entries: BaselineEntry[] = [];
  for (const f of [...findings].sort(byIdentity)) {
    const entry: BaselineEntry = {
      analyzer: f.analyzer,
      check: f.check,
      detail: f.detail,
      kind: f.kind,
      namespace: f.namespace,
      name: f.name,
      from: f.from,
      reason: `TODO (in ${f.renders.length} renders, e.g. ${f.renders[0]})`,
    };
    const key = JSON.stringify(entry).replace(/"reason":.*$/, "");
    if (seen.has(key)) continue;
    seen.add(key);
    entries.push(entry);
  }
  return [
    "# Unreviewed: every reason is TODO. Generalize each entry (a `*` in any field), give it a one-line",
    "# reason, and move it into test/cluster/analyzers-baseline.yaml; a TODO reason is refused.",
    YAML.stringify(entries, { lineWidth: 0 }),
  ].join("\n");
}

/** Every finding, with the reason of the first baseline entry that accepts it (none where none does). */
export function findingsList(
  findings: readonly AnalyzerFinding[],
  baseline: readonly BaselineEntry[],
): string {
  return YAML.stringify(
    [...findings].sort(byIdentity).map((f) => ({
      ...f,
      renders: `${f.renders.length} renders, e.g. ${f.renders[0]}`,
      acceptedBecause: baseline.find((e) => accepts(e, f))?.reason ?? null,
    })),
    { lineWidth: 0 },
  );
}

const identity = (f: AnalyzerFinding) =>
  [f.analyzer, f.check, f.from, f.kind, f.namespace, f.name, f.detail].join("\u0000");
const byIdentity = (a: AnalyzerFinding, b: AnalyzerFinding) => identity(a).localeCompare(identity(b));

// ---------------------------------------------------------------------------------------------------
// The distinct objects of every render

/** A hash of a value's canonical JSON (keys sorted), memoized per object: objects repeat across renders. */
const digests = new WeakMap<object, string>();
export function digest(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  const known = digests.get(value);
  if (known) return known;
  const h = crypto.createHash("sha256");
  if (Array.isArray(value)) {
    h.update("[");
    for (const v of value as unknown[]) h.update(`${digest(v)},`);
  } else {
    h.update("{");
    const o = value as Record<string, unknown>;
    for (const k of Object.keys(o).sort())
      if (o[k] !== undefined) h.update(`${JSON.stringify(k)}:${digest(o[k])},`);
  }
  const d = `#${h.digest("base64url").slice(0, 24)}`;
  digests.set(value, d);
  return d;
}

/** One distinct object, and where it comes from. */
interface Distinct {
  readonly id: number;
  readonly object: KubeObject;
  readonly from: string;
}

/** One render's object set at one Kubernetes version, by the ids of its distinct objects. */
interface Render {
  readonly label: string;
  readonly kubeVersion: string;
  readonly objects: readonly number[];
  /** Its Istio analysis input, where it installs istiod. */
  readonly istio?: IstioInput;
}

/** A pod a render's workload makes, and the injector that adds a sidecar to it (the injector's release). */
interface PodSource {
  readonly owner: number;
  /** ztunnel captures it: istio-cni's node agent annotates it so (istio 1.30.3 cni/pkg/util/podutil.go). */
  readonly ambient?: boolean;
  readonly injector?: { readonly config: number; readonly mesh: number };
}

interface IstioInput {
  /** The objects Istio's analyzers read: every kind they take as input, and every Istio and Gateway API object. */
  readonly objects: readonly number[];
  readonly pods: readonly PodSource[];
  /** The standard-channel Gateway API bundle GKE serves, where the render relies on GKE's. */
  readonly gkeGatewayBundle?: string;
  readonly istioNamespace: string;
}

class Objects {
  readonly all: Distinct[] = [];
  private readonly byDigest = new Map<string, Distinct>();
  add(object: KubeObject, from: string): number {
    const d = digest(object);
    const known = this.byDigest.get(d);
    if (known) return known.id;
    const entry = { id: this.all.length, object, from };
    this.all.push(entry);
    this.byDigest.set(d, entry);
    return entry.id;
  }
  get(id: number): Distinct {
    return this.all[id];
  }
}

/** The kinds Istio's analyzers take as input besides Istio's and the Gateway API's own (istio 1.30.3 pkg/config/analysis/analyzers). */
const istioInputKinds = new Set([
  "Namespace",
  "Service",
  "Pod",
  "Deployment",
  "Secret",
  "ConfigMap",
  "MutatingWebhookConfiguration",
  "ValidatingWebhookConfiguration",
  "CustomResourceDefinition",
]);
const istioGroups = /^([a-z.]*istio\.io|gateway\.networking\.k8s\.io|gateway\.networking\.x-k8s\.io)\//;

function istioInput(set: ObjectSet, ids: Map<KubeObject, number>): IstioInput | undefined {
  const istiods = set.releases.filter((r) => r.chart === charts.istiod.chart && !r.error);
  if (istiods.length === 0) return undefined;
  const objects = set.objects.filter((o) => istioInputKinds.has(o.kind) || istioGroups.test(o.apiVersion));
  // The pods each workload makes; a sidecar where an installed Istio injection webhook selects it.
  const namespaces = namespaceMap(set.objects);
  const configurations = set.objects.filter((o) => o.kind === "MutatingWebhookConfiguration");
  const pods: PodSource[] = [];
  for (const pod of set.pods) {
    const owner = ids.get(pod.owner);
    if (owner === undefined) continue;
    // Only Istio's sidecars: Linkerd's proxy is not Istio's analyzers' business, and ambient adds none.
    if (pod.proxy !== "istio") {
      pods.push(pod.captured === "istio" ? { owner, ambient: true } : { owner });
      continue;
    }
    const seen = admittedPod(pod, namespaces);
    const configuration = configurations.find((c) =>
      mutatingWebhooks([c]).some((w) => {
        const admission = meshAdmissions.find((a) => a.isInjectionWebhook(w.name));
        return (
          admission !== undefined &&
          admission.mesh === pod.proxy &&
          selects(w.namespaceSelector, seen.namespaceLabels) &&
          selects(w.objectSelector, seen.labels) &&
          admission.injects(seen)
        );
      }),
    );
    // The injector's templates and mesh config: the ConfigMaps its own istiod release renders.
    const release = configuration ? set.releaseOf.get(configuration) : undefined;
    const own = set.objects.filter((o) => o.kind === "ConfigMap" && set.releaseOf.get(o) === release);
    const config = own.find(
      (o) => typeof (o.data as Record<string, unknown> | undefined)?.config === "string",
    );
    const mesh = own.find((o) => typeof (o.data as Record<string, unknown> | undefined)?.mesh === "string");
    const configId = config ? ids.get(config) : undefined;
    const meshId = mesh ? ids.get(mesh) : undefined;
    pods.push(
      configId !== undefined && meshId !== undefined
        ? { owner, injector: { config: configId, mesh: meshId } }
        : { owner },
    );
  }
  const servesGateway = set.apiVersions.includes("gateway.networking.k8s.io/v1");
  const ownsGateway = set.objects.some(
    (o) =>
      o.kind === "CustomResourceDefinition" &&
      (o.spec as { group?: string } | undefined)?.group === "gateway.networking.k8s.io",
  );
  const minor = set.kubeVersion.split(".").slice(0, 2).join(".") as KubernetesMinor;
  return {
    objects: objects.flatMap((o) => {
      const id = ids.get(o);
      return id === undefined ? [] : [id];
    }),
    pods,
    gkeGatewayBundle: servesGateway && !ownsGateway ? gkeGatewayApiBundles[minor]?.bundle : undefined,
    istioNamespace: istiods[0].namespace,
  };
}

/** Every render of every target, at each supported Kubernetes version, as distinct objects. */
async function collect(
  targets: readonly RenderTarget[],
  opts: { readonly helm: string; readonly chartsDir: string },
): Promise<{
  readonly objects: Objects;
  readonly renders: Render[];
  readonly failures: string[];
  readonly helmRuns: number;
}> {
  const templater = new HelmTemplater(opts.helm, 2);
  const objects = new Objects();
  const renders: Render[] = [];
  const failures: string[] = [];
  for (const [i, target] of targets.entries()) {
    let result;
    try {
      result = await target.render();
    } catch (err) {
      // The cluster tier holds refusals to their reasons; a render failing here is its finding too.
      failures.push(
        `${target.label}: ${err instanceof ConfigError ? "refused" : "failed"}: ${err instanceof Error ? err.message : String(err)}`,
      );
      continue;
    }
    const input = clusterInputOf(target.label, target.tier, result);
    for (const kubeVersion of [supportedKubernetes.lowest, supportedKubernetes.highest]) {
      const set = await objectSetOf(input, { templater, chartsDir: opts.chartsDir, kubeVersion });
      const ids = new Map<KubeObject, number>();
      for (const o of set.objects) ids.set(o, objects.add(o, set.releaseOf.get(o)?.chart ?? "platform"));
      renders.push({
        label: `${target.label} @ ${kubeVersion}`,
        kubeVersion,
        objects: set.objects.map((o) => ids.get(o) ?? -1),
        istio: istioInput(set, ids),
      });
    }
    if ((i + 1) % 200 === 0)
      console.log(`  rendered ${i + 1}/${targets.length} targets, ${objects.all.length} distinct objects`);
  }
  return { objects, renders, failures, helmRuns: templater.runs };
}

/** A unit of analysis (objects analyzed together) and the renders it stands for. */
interface Unit {
  readonly ids: readonly number[];
  readonly renders: string[];
}

/** Units keyed by their content, each with every render it occurs in. */
class Units {
  readonly all: Unit[] = [];
  private readonly byKey = new Map<string, number>();
  add(key: string, ids: readonly number[], render: string): number {
    const known = this.byKey.get(key);
    if (known !== undefined) {
      const renders = this.all[known].renders;
      if (renders[renders.length - 1] !== render) renders.push(render);
      return known;
    }
    this.all.push({ ids, renders: [render] });
    this.byKey.set(key, this.all.length - 1);
    return this.all.length - 1;
  }
}

function runTool(
  file: string,
  args: readonly string[],
  opts: {
    readonly cwd?: string;
    readonly env?: NodeJS.ProcessEnv;
    readonly ok?: (code: number) => boolean;
  } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      [...args],
      { cwd: opts.cwd, env: { ...process.env, ...opts.env }, maxBuffer: 1024 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
        if (code === 0 || opts.ok?.(code)) resolve(stdout);
        else
          reject(
            new Error(
              `${path.basename(file)} ${args.slice(0, 3).join(" ")} ... exited ${code}: ${stderr.slice(-2000)}`,
            ),
          );
      },
    );
  });
}

/** A copy of an object, changed by `edit` (which may change the copy in place). */
function edited(o: KubeObject, edit: (copy: Record<string, unknown>) => void): KubeObject {
  const copy = structuredClone(o) as unknown as Record<string, unknown>;
  edit(copy);
  return copy as unknown as KubeObject;
}

// ---------------------------------------------------------------------------------------------------
// kube-score

/** The kinds kube-score reads (parser/parse.go decodeItem at v1.20.0); it ignores every other. */
const kubeScoreKinds = new Set([
  "Pod",
  "Job",
  "CronJob",
  "Deployment",
  "StatefulSet",
  "DaemonSet",
  "NetworkPolicy",
  "Service",
  "PodDisruptionBudget",
  "Ingress",
  "HorizontalPodAutoscaler",
]);

interface KubeScoreObject {
  readonly type_meta: { readonly kind: string };
  readonly object_meta: { readonly name: string; readonly namespace?: string };
  readonly checks: readonly {
    readonly check: { readonly id: string; readonly name: string };
    readonly grade: number;
    readonly skipped: boolean;
    readonly comments: readonly { readonly path?: string; readonly summary: string }[] | null;
  }[];
}

/**
 * kube-score over each distinct namespace of each render (its checks compare objects of one namespace
 * only), each bundle given a namespace of its own, in one run. A finding is a check graded warning or
 * critical (grade 5 or 1; 7 and 10 are OK, scorecard/scorecard.go), one per comment.
 */
async function kubeScore(
  tool: Tool,
  objects: Objects,
  renders: readonly Render[],
  dir: string,
): Promise<Finding[]> {
  const units = new Units();
  for (const r of renders) {
    const byNamespace = new Map<string, number[]>();
    for (const id of r.objects) {
      const o = objects.get(id).object;
      if (!kubeScoreKinds.has(o.kind) || !o.metadata.namespace) continue;
      const list = byNamespace.get(o.metadata.namespace) ?? [];
      list.push(id);
      byNamespace.set(o.metadata.namespace, list);
    }
    for (const [ns, ids] of byNamespace)
      units.add(`${ns}:${[...ids].sort((a, b) => a - b).join(",")}`, ids, r.label);
  }
  const docs: string[] = [];
  const members = new Map<string, { id: number; unit: number }>();
  units.all.forEach((u, k) => {
    for (const id of u.ids) {
      const o = objects.get(id).object;
      const namespace = `${o.metadata.namespace}--u${k}`;
      members.set(`${o.kind}/${namespace}/${o.metadata.name}`, { id, unit: k });
      docs.push(
        YAML.stringify(
          edited(o, (c) => ((c.metadata as { namespace: string }).namespace = namespace)),
          { lineWidth: 0 },
        ),
      );
    }
  });
  const file = path.join(dir, "kube-score.yaml");
  fs.writeFileSync(file, docs.join("---\n"));
  // It exits 1 when a check is critical; its JSON says which.
  const out = await runTool(tool.path, ["score", "--output-format", "json", file], { ok: (c) => c === 1 });
  const findings: Finding[] = [];
  for (const scored of JSON.parse(out) as KubeScoreObject[]) {
    const m = members.get(
      `${scored.type_meta.kind}/${scored.object_meta.namespace}/${scored.object_meta.name}`,
    );
    if (!m)
      throw new Error(
        `kube-score scored ${scored.type_meta.kind} ${scored.object_meta.namespace}/${scored.object_meta.name}, which it was not given`,
      );
    for (const c of scored.checks) {
      if (c.skipped || c.grade > 5) continue;
      const comments = c.comments && c.comments.length > 0 ? c.comments : [{ summary: c.check.name }];
      for (const comment of comments)
        findings.push({
          analyzer: "kube-score",
          check: c.check.id,
          detail: `${comment.path ? `${comment.path}: ` : ""}${comment.summary}`,
          id: m.id,
          renders: units.all[m.unit].renders,
        });
    }
  }
  return findings;
}

/** A finding on a distinct object, before it is named. */
interface Finding {
  readonly analyzer: AnalyzerName;
  readonly check: string;
  readonly detail: string;
  readonly id: number;
  readonly renders: readonly string[];
}

// ---------------------------------------------------------------------------------------------------
// checkov

interface CheckovReport {
  readonly results?: {
    readonly passed_checks: readonly { readonly file_path: string }[];
    readonly failed_checks: readonly {
      readonly check_id: string;
      readonly check_name: string;
      readonly file_path: string;
      readonly resource: string;
    }[];
  };
  readonly summary?: { readonly resource_count: number; readonly parsing_errors: number };
}

/** The graph checks' ids, as checkov's --check and --skip-check take them (fnmatch, checkov/runner_filter.py). */
const graphChecks = "CKV2_K8S_*";

/** One checkov run over a folder: the graph checks only, or every check but them. */
async function checkovRun(tool: Tool, dir: string, only: "graph" | "resource"): Promise<CheckovReport> {
  // It exits 1 when a check fails; --skip-download: no call to its vendor's platform.
  const out = await runTool(
    tool.path,
    [
      "--framework",
      "kubernetes",
      "--directory",
      dir,
      only === "graph" ? "--check" : "--skip-check",
      graphChecks,
      "--output",
      "json",
      "--skip-download",
    ],
    { ok: (c) => c === 1, env: { LOG_LEVEL: "WARNING" } },
  );
  const parsed = JSON.parse(out) as CheckovReport | CheckovReport[];
  return Array.isArray(parsed) ? (parsed[0] ?? {}) : parsed;
}

const graphCheck = /^CKV2_/;
/**
 * The most files one graph run reads. checkov's graph grows faster than its files: measured on the units here
 * (one core), 100 files took 5 s and 200 MB, 150 files 8 s and 230 MB, 400 files 77 s and 830 MB, 4,300 at
 * once over 20 GB.
 */
const graphChunkFiles = 150;
const podKinds = new Set([
  "Pod",
  "Deployment",
  "DaemonSet",
  "StatefulSet",
  "ReplicaSet",
  "ReplicationController",
  "Job",
  "CronJob",
]);

/** The labels of the pods a workload makes (a Pod's own). */
function podLabels(o: Record<string, unknown> | KubeObject): Record<string, string> | undefined {
  const meta = (x: unknown) =>
    (x as { metadata?: { labels?: Record<string, string> } } | undefined)?.metadata;
  const spec = o.spec as { template?: unknown; jobTemplate?: { spec?: { template?: unknown } } } | undefined;
  const m =
    o.kind === "Pod"
      ? meta(o)
      : o.kind === "CronJob"
        ? meta(spec?.jobTemplate?.spec?.template)
        : meta(spec?.template);
  if (!m) return undefined;
  m.labels ??= {};
  return m.labels;
}

/**
 * The units checkov's graph checks run over in one render, by the ids given: each binding with the roles of
 * its roleRef (a RoleBinding's Role of its own namespace), each workload with the NetworkPolicies of its
 * namespace (a NetworkPolicy selects pods of its own namespace only).
 */
export function graphUnitsOf(
  own: readonly { readonly id: number; readonly object: KubeObject }[],
): number[][] {
  const policies = own.filter((x) => x.object.kind === "NetworkPolicy");
  return own.flatMap(({ id, object: o }) => {
    if (o.kind === "RoleBinding" || o.kind === "ClusterRoleBinding") {
      const ref = o.roleRef as { kind?: string; name?: string } | undefined;
      const roles = own.filter(
        (x) =>
          x.object.kind === ref?.kind &&
          x.object.metadata.name === ref?.name &&
          (ref.kind !== "Role" || x.object.metadata.namespace === o.metadata.namespace),
      );
      return [[id, ...roles.map((x) => x.id)]];
    }
    if (podKinds.has(o.kind))
      return [
        [
          id,
          ...policies.filter((p) => p.object.metadata.namespace === o.metadata.namespace).map((p) => p.id),
        ],
      ];
    return [];
  });
}

/**
 * Units, by their sizes, in folders of at most `max` files, a unit never split (each is renamed apart from the
 * others, so a folder's findings are those it would have among all): the units of each folder.
 */
export function graphChunks(sizes: readonly number[], max: number): number[][] {
  const chunks: number[][] = [];
  let files = max;
  sizes.forEach((size, k) => {
    if (files + size > max && files > 0) {
      chunks.push([]);
      files = 0;
    }
    chunks[chunks.length - 1].push(k);
    files += size;
  });
  return chunks;
}

/** The label that ties a graph unit's pods and NetworkPolicies together. */
const unitLabel = "analyzers.gke-mesh-platform/unit";

/** An object of a graph unit, renamed apart from every other unit's (its tag added). */
export function graphUnitObject(o: KubeObject, tag: string): KubeObject {
  return edited(o, (c) => {
    if (c.kind === "Role" || c.kind === "ClusterRole") (c.metadata as { name: string }).name += `--${tag}`;
    if (c.kind === "RoleBinding" || c.kind === "ClusterRoleBinding")
      (c.roleRef as { name: string }).name += `--${tag}`;
    const labels = podLabels(c);
    if (labels) labels[unitLabel] = tag;
    const selector = (c.spec as { podSelector?: { matchLabels?: Record<string, string> } } | undefined)
      ?.podSelector;
    // checkov joins a policy without matchLabels (its podSelector empty, or by expressions only) to every pod it
    // read, of any namespace: its parser's line markers make an empty podSelector non-empty
    // (graph_builder/graph_components/edge_builders/NetworkPolicyEdgeBuilder.py, parser/k8_json.py). The unit
    // label keeps each policy to its unit's pods, which are of its namespace.
    if (c.kind === "NetworkPolicy" && selector)
      selector.matchLabels = { ...selector.matchLabels, [unitLabel]: tag };
  });
}

/**
 * checkov's resource checks over every distinct object (one JSON file each, CRDs left out: no check reads
 * them), in two runs at once; its graph checks (CKV2_*) over per-render units renamed apart: a binding
 * with the roles of its name and kind, a workload with its render's NetworkPolicies of its namespace (a unit
 * label added to the pods and to each policy's matchLabels, so no policy reaches another unit's pods), in runs of at
 * most graphChunkFiles files one after another, beside those two.
 */
async function checkov(
  tool: Tool,
  objects: Objects,
  renders: readonly Render[],
  dir: string,
): Promise<{ findings: Finding[]; resources: number; files: number; graphRuns: number; unread: string[] }> {
  const byId = new Map<number, string[]>();
  for (const r of renders)
    for (const id of r.objects) (byId.get(id) ?? byId.set(id, []).get(id) ?? []).push(r.label);
  const distinct = [...byId.keys()].filter(
    (id) => objects.get(id).object.kind !== "CustomResourceDefinition",
  );
  const halves = [distinct.filter((_, i) => i % 2 === 0), distinct.filter((_, i) => i % 2 === 1)];
  const runs = halves.map((ids, h) => {
    const d = path.join(dir, `checkov-objects-${h}`);
    fs.mkdirSync(d, { recursive: true });
    for (const id of ids)
      fs.writeFileSync(path.join(d, `o${id}.json`), JSON.stringify(objects.get(id).object));
    return checkovRun(tool, d, "resource");
  });

  // Graph units, per render.
  const units = new Units();
  const unitObjects: { file: string; object: KubeObject; id: number; unit: number }[] = [];
  for (const r of renders)
    for (const ids of graphUnitsOf(r.objects.map((id) => ({ id, object: objects.get(id).object }))))
      units.add(ids.join(","), ids, r.label);
  const chunks = graphChunks(
    units.all.map((u) => u.ids.length),
    graphChunkFiles,
  );
  const graphDirs = chunks.map((unitsOfChunk, c) => {
    const graphDir = path.join(dir, `checkov-graph-${c}`);
    fs.mkdirSync(graphDir, { recursive: true });
    for (const k of unitsOfChunk) {
      const tag = `u${k}`;
      units.all[k].ids.forEach((id, i) => {
        const object = graphUnitObject(objects.get(id).object, tag);
        const file = `${tag}-${i}.json`;
        unitObjects.push({ file, object, id, unit: k });
        fs.writeFileSync(path.join(graphDir, file), JSON.stringify(object));
      });
    }
    return graphDir;
  });
  const graph = (async () => {
    const failed: NonNullable<CheckovReport["results"]>["failed_checks"][number][] = [];
    for (const d of graphDirs)
      failed.push(...((await checkovRun(tool, d, "graph")).results?.failed_checks ?? []));
    return failed;
  })();

  const findings: Finding[] = [];
  const [[a, b], graphFailed] = await Promise.all([Promise.all(runs), graph]);
  let resources = 0;
  // An object checkov read yields a result for every check of its kind; one of a checked kind with none
  // was dropped (its reader refuses a name with `#`, `{` or `}`: checkov/kubernetes/parser/validatior.py).
  const read = new Set(
    [a, b].flatMap((r) =>
      [...(r.results?.passed_checks ?? []), ...(r.results?.failed_checks ?? [])].map((c) =>
        path.basename(c.file_path),
      ),
    ),
  );
  const checkedKinds = new Set(
    distinct.filter((id) => read.has(`o${id}.json`)).map((id) => objects.get(id).object.kind),
  );
  const unread = distinct
    .filter((id) => !read.has(`o${id}.json`) && checkedKinds.has(objects.get(id).object.kind))
    .map((id) => {
      const o = objects.get(id).object;
      return `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}`;
    });
  for (const report of [a, b]) {
    resources += report.summary?.resource_count ?? 0;
    for (const c of report.results?.failed_checks ?? []) {
      if (graphCheck.test(c.check_id)) continue;
      const id = Number(/o(\d+)\.json$/.exec(c.file_path)?.[1]);
      findings.push({
        analyzer: "checkov",
        check: c.check_id,
        detail: c.check_name,
        id,
        renders: byId.get(id) ?? [],
      });
    }
  }
  const unitFiles = new Map(unitObjects.map((u) => [u.file, u]));
  for (const c of graphFailed) {
    if (!graphCheck.test(c.check_id)) continue;
    const u = unitFiles.get(path.basename(c.file_path));
    if (!u) throw new Error(`checkov reported ${c.file_path}, which it was not given`);
    // A graph check fails on the unit's first object: the binding, or the workload.
    if (u.id !== units.all[u.unit].ids[0]) continue;
    findings.push({
      analyzer: "checkov",
      check: c.check_id,
      detail: c.check_name,
      id: u.id,
      renders: units.all[u.unit].renders,
    });
  }
  return {
    findings,
    resources,
    files: distinct.length + unitObjects.length,
    graphRuns: graphDirs.length,
    unread,
  };
}

// ---------------------------------------------------------------------------------------------------
// Istio's analyzers, over a read-only API server

/** The built-in kinds the server serves: group, version, resource, namespaced (the API server's own). */
const builtinKinds: Readonly<Record<string, readonly [string, string, string, boolean]>> = {
  Namespace: ["", "v1", "namespaces", false],
  Node: ["", "v1", "nodes", false],
  Service: ["", "v1", "services", true],
  Pod: ["", "v1", "pods", true],
  Secret: ["", "v1", "secrets", true],
  ConfigMap: ["", "v1", "configmaps", true],
  Endpoints: ["", "v1", "endpoints", true],
  ServiceAccount: ["", "v1", "serviceaccounts", true],
  Deployment: ["apps", "v1", "deployments", true],
  StatefulSet: ["apps", "v1", "statefulsets", true],
  DaemonSet: ["apps", "v1", "daemonsets", true],
  ReplicaSet: ["apps", "v1", "replicasets", true],
  Job: ["batch", "v1", "jobs", true],
  CronJob: ["batch", "v1", "cronjobs", true],
  MutatingWebhookConfiguration: [
    "admissionregistration.k8s.io",
    "v1",
    "mutatingwebhookconfigurations",
    false,
  ],
  ValidatingWebhookConfiguration: [
    "admissionregistration.k8s.io",
    "v1",
    "validatingwebhookconfigurations",
    false,
  ],
  CustomResourceDefinition: ["apiextensions.k8s.io", "v1", "customresourcedefinitions", false],
};

const groupOf = (apiVersion: string) => (apiVersion.includes("/") ? apiVersion.split("/")[0] : "");

interface ServedKind {
  readonly kind: string;
  readonly group: string;
  readonly versions: readonly string[];
  readonly resource: string;
  readonly namespaced: boolean;
}

/** One cluster the server serves: its objects by kind, and the kinds it serves. */
interface Served {
  readonly minor: string;
  readonly kinds: readonly ServedKind[];
  readonly byKind: ReadonlyMap<string, readonly KubeObject[]>;
}

export function servedCluster(objects: readonly KubeObject[], kubeVersion: string): Served {
  // By group and kind: Istio's Gateway and the Gateway API's share a kind.
  const kinds = new Map<string, ServedKind>();
  for (const [kind, [group, version, resource, namespaced]] of Object.entries(builtinKinds))
    kinds.set(`${group}/${kind}`, { kind, group, versions: [version], resource, namespaced });
  for (const crd of objects.filter((o) => o.kind === "CustomResourceDefinition")) {
    const spec = crd.spec as {
      group: string;
      scope: string;
      names: { kind: string; plural: string };
      versions: { name: string; served?: boolean }[];
    };
    kinds.set(`${spec.group}/${spec.names.kind}`, {
      kind: spec.names.kind,
      group: spec.group,
      versions: spec.versions.filter((v) => v.served !== false).map((v) => v.name),
      resource: spec.names.plural,
      namespaced: spec.scope === "Namespaced",
    });
  }
  const byKind = new Map<string, KubeObject[]>();
  objects.forEach((o, i) => {
    // What the API server adds to what it stores.
    const stored = {
      ...o,
      metadata: {
        ...o.metadata,
        uid: `00000000-0000-0000-0000-${String(i).padStart(12, "0")}`,
        resourceVersion: "1",
        creationTimestamp: "2026-01-01T00:00:00Z",
        ...(o.kind === "Namespace"
          ? { labels: { ...o.metadata.labels, "kubernetes.io/metadata.name": o.metadata.name } }
          : {}),
      },
    };
    const key = `${groupOf(o.apiVersion)}/${o.kind}`;
    byKind.set(key, [...(byKind.get(key) ?? []), stored]);
  });
  return { minor: kubeVersion.split(".")[1] ?? "36", kinds: [...kinds.values()], byKind };
}

/** `key=value`, `key!=value`, `key`, `!key`, `key in (a,b)`, `key notin (a,b)`: a Kubernetes label selector. */
export function labelSelectorMatches(selector: string, labels: Readonly<Record<string, string>>): boolean {
  const terms = selector.match(/[^,(]+(\([^)]*\))?/g) ?? [];
  return terms.every((raw) => {
    const t = raw.trim();
    if (!t) return true;
    const set = /^(\S+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(t);
    if (set) {
      const values = set[3].split(",").map((v) => v.trim());
      const has = set[1] in labels && values.includes(labels[set[1]]);
      return set[2] === "in" ? has : !has;
    }
    if (t.startsWith("!")) return !(t.slice(1) in labels);
    const eq = /^([^!=]+?)\s*(==|=|!=)\s*(.*)$/.exec(t);
    if (!eq) return t in labels;
    return eq[2] === "!=" ? labels[eq[1]] !== eq[3] : labels[eq[1]] === eq[3];
  });
}

function fieldSelectorMatches(selector: string, o: KubeObject): boolean {
  return selector
    .split(",")
    .filter((t) => t)
    .every((t) => {
      const m = /^([^!=]+?)(==|=|!=)(.*)$/.exec(t);
      if (!m) return true;
      let v: unknown = o;
      for (const p of m[1].split(".")) v = (v as Record<string, unknown> | undefined)?.[p];
      const value = typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? String(v) : "";
      return m[2] === "!=" ? value !== m[3] : value === m[3];
    });
}

/**
 * A read-only Kubernetes API server over plain HTTP, serving each cluster under its own path prefix
 * (`/c<k>`): discovery, get, list (label and field selectors) and watch (which stays open and says
 * nothing: the objects never change). Enough for client-go's informers, which is how `istioctl analyze`
 * reads a cluster (pkg/config/analysis/local/istiod_analyze.go AddRunningKubeSourceWithRevision).
 */
export class ReadOnlyApiServer {
  private readonly clusters = new Map<string, Served>();
  private readonly server = http.createServer((req, res) => this.handle(req, res));
  /** Paths asked for that the server does not serve, for the run's report. */
  readonly unserved = new Set<string>();
  port = 0;

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  stop(): void {
    this.server.closeAllConnections();
    this.server.close();
  }

  serve(prefix: string, cluster: Served): string {
    this.clusters.set(prefix, cluster);
    return `http://127.0.0.1:${this.port}/${prefix}`;
  }

  forget(prefix: string): void {
    this.clusters.delete(prefix);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? "/", "http://localhost");
    const [, prefix, ...segments] = url.pathname.split("/");
    const cluster = this.clusters.get(prefix);
    const json = (code: number, body: unknown) => {
      res.writeHead(code, { "Content-Type": "application/json" });
      res.end(JSON.stringify(body));
    };
    // A request for a kind the server does not know is worth reporting; one for an absent object, or from a
    // client whose analysis is over, is not.
    const notFound = (unknown = true) => {
      if (unknown && cluster) this.unserved.add(`${req.method} /${segments.join("/")}`);
      json(404, { kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404 });
    };
    if (!cluster || req.method !== "GET") return notFound();
    const p = segments.join("/");
    if (p === "version")
      return json(200, {
        major: "1",
        minor: cluster.minor,
        gitVersion: `v1.${cluster.minor}.0`,
        platform: "linux/amd64",
      });
    if (p === "api")
      return json(200, { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [] });
    const groups = new Map<string, Set<string>>();
    for (const k of cluster.kinds)
      for (const v of k.versions)
        (groups.get(k.group) ?? groups.set(k.group, new Set()).get(k.group))?.add(v);
    if (p === "apis") {
      return json(200, {
        kind: "APIGroupList",
        apiVersion: "v1",
        groups: [...groups]
          .filter(([g]) => g !== "")
          .map(([name, versions]) => {
            const vs = [...versions].map((version) => ({ groupVersion: `${name}/${version}`, version }));
            return { name, versions: vs, preferredVersion: vs[0] };
          }),
      });
    }
    // /api/v1/... or /apis/<group>/<version>/...
    const core = segments[0] === "api";
    const group = core ? "" : (segments[1] ?? "");
    const version = core ? segments[1] : segments[2];
    const rest = segments.slice(core ? 2 : 3);
    const inGroup = cluster.kinds.filter((k) => k.group === group && k.versions.includes(version));
    if ((core && segments[0] !== "api") || (!core && segments[0] !== "apis") || inGroup.length === 0)
      return notFound();
    const groupVersion = group ? `${group}/${version}` : version;
    if (rest.length === 0) {
      return json(200, {
        kind: "APIResourceList",
        apiVersion: "v1",
        groupVersion,
        resources: inGroup.map((k) => ({
          name: k.resource,
          singularName: k.kind.toLowerCase(),
          namespaced: k.namespaced,
          kind: k.kind,
          verbs: ["get", "list", "watch"],
        })),
      });
    }
    const namespaced = rest[0] === "namespaces" && rest.length >= 3;
    const namespace = namespaced ? rest[1] : undefined;
    const [resource, name] = namespaced ? rest.slice(2) : rest;
    const kind = inGroup.find((k) => k.resource === resource);
    if (!kind || (namespaced && !kind.namespaced)) return notFound();
    const present = (o: KubeObject) => ({ ...o, apiVersion: groupVersion, kind: kind.kind });
    const objects = (cluster.byKind.get(`${group}/${kind.kind}`) ?? []).filter(
      (o) => namespace === undefined || o.metadata.namespace === namespace,
    );
    if (name !== undefined) {
      const found = objects.find((o) => o.metadata.name === name);
      return found ? json(200, present(found)) : notFound(false);
    }
    const labels = url.searchParams.get("labelSelector") ?? "";
    const fields = url.searchParams.get("fieldSelector") ?? "";
    const items = objects.filter(
      (o) => labelSelectorMatches(labels, o.metadata.labels ?? {}) && fieldSelectorMatches(fields, o),
    );
    const watch = url.searchParams.get("watch");
    if (watch === "true" || watch === "1") {
      // client-go asks for its initial events on the watch (WatchListClient); refusing sends it to list.
      if (url.searchParams.get("sendInitialEvents") === "true")
        return json(400, {
          kind: "Status",
          apiVersion: "v1",
          status: "Failure",
          reason: "BadRequest",
          code: 400,
        });
      res.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked" });
      res.flushHeaders();
      return;
    }
    return json(200, {
      kind: `${kind.kind}List`,
      apiVersion: groupVersion,
      metadata: { resourceVersion: "1" },
      items: items.map(present),
    });
  }
}

interface IstioMessage {
  readonly code: string;
  readonly level: string;
  readonly message: string;
  readonly origin?: string;
}

/** The pod a workload makes from its template, named after the workload. */
function podOf(owner: KubeObject): KubeObject | undefined {
  const labels = podLabels(structuredClone(owner));
  const spec = owner.spec as
    | { template?: Record<string, unknown>; jobTemplate?: { spec?: { template?: Record<string, unknown> } } }
    | undefined;
  const template =
    owner.kind === "Pod"
      ? { metadata: owner.metadata, spec: owner.spec }
      : owner.kind === "CronJob"
        ? spec?.jobTemplate?.spec?.template
        : spec?.template;
  if (!template) return undefined;
  const meta = (template.metadata ?? {}) as { annotations?: Record<string, string> };
  if (owner.kind === "Pod") return owner;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `${owner.metadata.name}-${owner.kind.toLowerCase()}-pod`,
      namespace: owner.metadata.namespace,
      labels: labels ?? {},
      annotations: meta.annotations ?? {},
    },
    spec: template.spec,
  };
}

/**
 * Istio's analyzers over each distinct Istio render: its objects, the pods its workloads make (injected
 * by `istioctl kube-inject` with the injector ConfigMaps of the istiod release whose webhook selects
 * them, batched per injector), the namespaces every cluster has, and the Gateway API CRDs GKE serves;
 * served as a cluster to `istioctl analyze --all-namespaces`, two at a time.
 */
async function istioAnalyze(
  tool: Tool,
  objects: Objects,
  renders: readonly Render[],
  dir: string,
  referenceDir: string,
): Promise<{
  findings: Finding[];
  units: number;
  unserved: readonly string[];
  injected: number;
  notInjected: string[];
}> {
  const units = new Units();
  const inputs: IstioInput[] = [];
  for (const r of renders) {
    if (!r.istio) continue;
    const i = r.istio;
    const key = JSON.stringify([
      r.kubeVersion.split(".")[1],
      i.gkeGatewayBundle,
      i.istioNamespace,
      [...i.objects].sort((a, b) => a - b),
      i.pods,
    ]);
    const k = units.add(key, i.objects, r.label);
    inputs[k] = i;
  }
  // Sidecars: one kube-inject per injector, over every workload it injects in any render.
  const batches = new Map<string, { config: number; mesh: number; owners: Set<number> }>();
  for (const i of inputs)
    for (const p of i.pods) {
      if (!p.injector) continue;
      const key = `${p.injector.config}/${p.injector.mesh}`;
      const b = batches.get(key) ?? { ...p.injector, owners: new Set<number>() };
      b.owners.add(p.owner);
      batches.set(key, b);
    }
  const injected = new Map<string, KubeObject>();
  const notInjected: string[] = [];
  let batch = 0;
  for (const [key, b] of batches) {
    const d = path.join(dir, `inject-${batch++}`);
    fs.mkdirSync(d, { recursive: true });
    const data = (id: number) => (objects.get(id).object.data ?? {}) as Record<string, string>;
    fs.writeFileSync(path.join(d, "config.yaml"), data(b.config).config);
    fs.writeFileSync(path.join(d, "values.json"), data(b.config).values ?? "{}");
    fs.writeFileSync(path.join(d, "mesh.yaml"), data(b.mesh).mesh);
    const owners = [...b.owners];
    fs.writeFileSync(
      path.join(d, "in.yaml"),
      owners.map((id) => YAML.stringify(objects.get(id).object, { lineWidth: 0 })).join("---\n"),
    );
    // The injector's revision, as its ConfigMap's name carries it (istiod templates/configmap.yaml); given, so
    // kube-inject does not look for a default revision in a cluster (istioctl/pkg/cli/context.go RevisionOrDefault).
    const configName = objects.get(b.config).object.metadata.name;
    const revision = /^istio-sidecar-injector-(.+)$/.exec(configName)?.[1] ?? "default";
    const out = await runTool(tool.path, [
      "kube-inject",
      "--revision",
      revision,
      "--filename",
      path.join(d, "in.yaml"),
      "--injectConfigFile",
      path.join(d, "config.yaml"),
      "--valuesFile",
      path.join(d, "values.json"),
      "--meshConfigFile",
      path.join(d, "mesh.yaml"),
    ]);
    const result = parseManifests(out);
    owners.forEach((id) => {
      const o = objects.get(id).object;
      const done = result.find(
        (x) =>
          x.kind === o.kind &&
          x.metadata.name === o.metadata.name &&
          x.metadata.namespace === o.metadata.namespace,
      );
      const pod = done ? podOf(done) : undefined;
      if (done && pod && (pod.metadata.annotations ?? {})["sidecar.istio.io/status"] !== undefined)
        injected.set(`${key}/${id}`, done);
      else notInjected.push(`${o.kind} ${o.metadata.namespace}/${o.metadata.name}`);
    });
  }

  // Every cluster has these namespaces (kube-apiserver's system namespaces controller).
  const systemNamespaces = ["default", "kube-system", "kube-public", "kube-node-lease"].map(
    (name): KubeObject => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } }),
  );
  const whole: KubeObject = { apiVersion: "v1", kind: "Cluster", metadata: { name: "(the whole render)" } };
  const wholeId = objects.add(whole, "istioctl");
  const given = new Map<KubeObject, number>([
    ...systemNamespaces.map((n) => [n, objects.add(n, "kubernetes")] as const),
  ]);
  const bundles = new Map<string, KubeObject[]>();
  const gatewayCrds = (bundle: string): KubeObject[] => {
    const known = bundles.get(bundle);
    if (known) return known;
    const folder = path.join(referenceDir, `gateway-api-${bundle}-standard`);
    const crds = fs
      .readdirSync(folder)
      .filter((f) => /^gateway\.networking\.k8s\.io_.*\.yaml$/.test(f) && !f.includes("vap"))
      .flatMap((f) => parseManifests(fs.readFileSync(path.join(folder, f), "utf8")))
      .filter((o) => o.kind === "CustomResourceDefinition");
    for (const crd of crds) given.set(crd, objects.add(crd, `gke (Gateway API ${bundle})`));
    bundles.set(bundle, crds);
    return crds;
  };

  const server = new ReadOnlyApiServer();
  await server.start();
  const findings: Finding[] = [];
  const next = { unit: 0 };
  const worker = async () => {
    for (let k = next.unit++; k < units.all.length; k = next.unit++) {
      const i = inputs[k];
      const unit = units.all[k];
      const origin = new Map<string, number>();
      const own = i.objects.map((id) => {
        const o = objects.get(id).object;
        origin.set(
          `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}`,
          id,
        );
        return o;
      });
      const pods = i.pods.flatMap((p) => {
        const owner = p.injector
          ? (injected.get(`${p.injector.config}/${p.injector.mesh}/${p.owner}`) ??
            objects.get(p.owner).object)
          : objects.get(p.owner).object;
        const made = podOf(owner);
        if (!made) return [];
        const pod = p.ambient
          ? {
              ...made,
              metadata: {
                ...made.metadata,
                annotations: { ...made.metadata.annotations, "ambient.istio.io/redirection": "enabled" },
              },
            }
          : made;
        origin.set(`Pod ${pod.metadata.namespace}/${pod.metadata.name}`, p.owner);
        return [pod];
      });
      const names = new Set(own.filter((o) => o.kind === "Namespace").map((o) => o.metadata.name));
      const added = [
        ...systemNamespaces.filter((n) => !names.has(n.metadata.name)),
        ...(i.gkeGatewayBundle ? gatewayCrds(i.gkeGatewayBundle) : []),
      ];
      for (const o of added) origin.set(`${o.kind} ${o.metadata.name}`, given.get(o) ?? wholeId);
      const served = servedCluster(
        [...own, ...pods, ...added],
        renders.find((r) => r.label === unit.renders[0])?.kubeVersion ?? supportedKubernetes.highest,
      );
      const prefix = `c${k}`;
      const kubeconfig = path.join(dir, `kubeconfig-${k}`);
      fs.writeFileSync(
        kubeconfig,
        YAML.stringify({
          apiVersion: "v1",
          kind: "Config",
          clusters: [{ name: "c", cluster: { server: server.serve(prefix, served) } }],
          users: [{ name: "u", user: {} }],
          contexts: [{ name: "c", context: { cluster: "c", user: "u" } }],
          "current-context": "c",
        }),
      );
      // It exits 79 when a message reaches --failure-threshold; the JSON says which.
      const out = await runTool(
        tool.path,
        [
          "analyze",
          "--kubeconfig",
          kubeconfig,
          "--all-namespaces",
          "--istioNamespace",
          i.istioNamespace,
          "--output",
          "json",
        ],
        { ok: (c) => c === 79, env: { KUBE_FEATURE_WatchListClient: "false", HOME: dir } },
      );
      server.forget(prefix);
      for (const m of JSON.parse(out || "[]") as IstioMessage[]) {
        const id = m.origin ? (origin.get(m.origin) ?? -1) : wholeId;
        if (id < 0)
          throw new Error(
            `istioctl analyze reported ${m.code} on ${m.origin}, which it was not given (${unit.renders[0]}): ${m.message}`,
          );
        findings.push({
          analyzer: "istioctl",
          check: m.code,
          detail: `${m.level}: ${m.message}`,
          id,
          renders: unit.renders,
        });
      }
    }
  };
  try {
    await Promise.all([worker(), worker()]);
  } finally {
    server.stop();
  }
  return {
    findings,
    units: units.all.length,
    unserved: [...server.unserved].sort(),
    injected: injected.size,
    notInjected,
  };
}

// ---------------------------------------------------------------------------------------------------
// The run

/** The findings on distinct objects, named, merged per object and check, their renders joined. */
function named(findings: readonly Finding[], objects: Objects): AnalyzerFinding[] {
  const merged = new Map<string, { f: AnalyzerFinding; renders: Set<string> }>();
  for (const f of findings) {
    const d = objects.get(f.id);
    const finding: AnalyzerFinding = {
      analyzer: f.analyzer,
      check: f.check,
      detail: f.detail,
      kind: d.object.kind,
      namespace: d.object.metadata.namespace ?? "",
      name: d.object.metadata.name,
      from: d.from,
      renders: [],
    };
    const key = identity(finding);
    const known = merged.get(key) ?? merged.set(key, { f: finding, renders: new Set() }).get(key);
    for (const r of f.renders) known?.renders.add(r);
  }
  return [...merged.values()]
    .map(({ f, renders }) => ({ ...f, renders: [...renders].sort() }))
    .sort(byIdentity);
}

function describe(f: AnalyzerFinding): string {
  const where = f.namespace ? `${f.namespace}/${f.name}` : f.name;
  return `[${f.analyzer} ${f.check}] ${f.kind} ${where} (from ${f.from}): ${f.detail}  -- in ${f.renders.length} renders, e.g. ${f.renders[0]}`;
}

async function main(argv: readonly string[]): Promise<number> {
  const started = Date.now();
  const fileOption = (name: string): string | undefined | null => {
    const at = argv.indexOf(name);
    return at < 0 ? undefined : (argv[at + 1] ?? null);
  };
  const draftFile = fileOption("--write-baseline-draft");
  const findingsFile = fileOption("--write-findings");
  for (const [name, file] of [
    ["--write-baseline-draft", draftFile],
    ["--write-findings", findingsFile],
  ] as const)
    if (file === null) {
      console.error(`${name} needs a file`);
      return 2;
    }
  // The reference folder the cluster tier reads (test/upstream/reference.ts): its charts/ and upstream/.
  const chartsDir = reference.chartsDir ?? "";
  const referenceDir = reference.upstreamDir ?? "";
  const helm = findHelm();
  const tools = requireTools(["kube-score", "checkov", "istioctl"]);
  const missing = [
    ...(tools.skip ? [tools.skip] : []),
    ...(helm ? [] : ["no helm binary (set HELM, put helm on PATH, or run .ci/run, which builds one)"]),
    ...(reference.chartsProblem ? [reference.chartsProblem] : []),
    ...(referenceDir && fs.existsSync(referenceDir)
      ? []
      : [
          `no reference folder${referenceDir ? ` at ${referenceDir}` : ""} with the Gateway API CRDs GKE serves (npm run reference; PLATFORM_REFERENCE_DIR names another)`,
        ]),
  ];
  if (missing.length > 0 || !tools.tools || !helm) {
    const reason = `analyzers: ${missing.join("; ")}`;
    if (process.env.CI === "true") {
      console.error(`${reason}: CI must run them`);
      return 1;
    }
    console.log(`${reason}: skipped`);
    return 0;
  }
  const baseline = parseBaseline(fs.existsSync(baselineFile) ? fs.readFileSync(baselineFile, "utf8") : "[]");
  const only = process.env.ANALYZERS_ONLY;
  const targets = [
    ...projectTargets(),
    ...combinationTargets(),
    ...clusterModeTargets(),
    ...extraTargets(),
    ...teamTargets(),
  ].filter((t) => !t.refusedBecause && (!only || t.label.includes(only)));
  const { objects, renders, failures, helmRuns } = await collect(targets, { helm, chartsDir });
  const collected = Date.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "analyzers-"));
  const time = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
    const t = Date.now();
    return [await work(), (Date.now() - t) / 1000];
  };
  try {
    const [[scored, scoreTime], [checked, checkTime], [istio, istioTime]] = await Promise.all([
      time(() => kubeScore(tools.tools["kube-score"], objects, renders, dir)),
      time(() => checkov(tools.tools.checkov, objects, renders, dir)),
      time(() => istioAnalyze(tools.tools.istioctl, objects, renders, dir, referenceDir)),
    ]);
    const findings = named([...scored, ...checked.findings, ...istio.findings], objects);
    const { unexpected, stale } = compareWithBaseline(findings, baseline);
    const staleReported = only ? [] : stale;
    const istioRenders = renders.filter((r) => r.istio).length;
    console.log(
      [
        `analyzers over ${targets.length} targets (stacks, examples, combinations, cluster modes, options, teams) at ${supportedKubernetes.lowest} and ${supportedKubernetes.highest}: ${renders.length} object sets, ${renders.reduce((n, r) => n + r.objects.length, 0)} objects, ${objects.all.length} distinct (${helmRuns} helm runs; collected in ${((collected - started) / 1000).toFixed(1)} s)`,
        `  kube-score ${tools.tools["kube-score"].version}: ${scored.length} warnings and criticals over each distinct namespace of each render, in one run (${scoreTime.toFixed(1)} s)`,
        `  checkov ${tools.tools.checkov.version}: ${checked.files} files (each distinct object, and the graph checks' units), ${checked.resources} resources read, in two runs and ${checked.graphRuns} graph runs (${checkTime.toFixed(1)} s)`,
        ...(checked.unread.length > 0
          ? [
              `    checkov read nothing from ${checked.unread.length} objects of kinds it checks: ${checked.unread.join(", ")}`,
            ]
          : []),
        `  istioctl ${tools.tools.istioctl.version}: ${istio.units} distinct clusters for ${istioRenders} Istio object sets, ${istio.injected} workloads given a sidecar by kube-inject (${istioTime.toFixed(1)} s)`,
        ...(istio.notInjected.length > 0
          ? [
              `    an injection webhook selects them, but kube-inject added no sidecar: ${[...new Set(istio.notInjected)].join(", ")}`,
            ]
          : []),
        ...(istio.unserved.length > 0
          ? [`    asked of the API server and not served: ${istio.unserved.slice(0, 20).join(", ")}`]
          : []),
        `  findings: ${findings.length} (distinct object and check), ${findings.length - unexpected.length} accepted by ${baseline.length} baseline entries`,
        `  wall time: ${((Date.now() - started) / 1000).toFixed(1)} s`,
      ].join("\n"),
    );
    const counts = new Map<string, number>();
    for (const f of findings)
      counts.set(`${f.analyzer} ${f.check}`, (counts.get(`${f.analyzer} ${f.check}`) ?? 0) + 1);
    for (const [check, n] of [...counts].sort()) console.log(`    ${check}: ${n}`);
    if (findingsFile) {
      fs.writeFileSync(path.resolve(process.cwd(), findingsFile), findingsList(findings, baseline));
      console.log(`\nwrote every finding, with the reason of the entry that accepts it, to ${findingsFile}`);
    }
    if (draftFile) {
      fs.writeFileSync(path.resolve(process.cwd(), draftFile), baselineDraft(unexpected));
      console.log(
        `\nwrote ${unexpected.length} unreviewed findings to ${draftFile}: review each, give it a reason, and move it into ${path.relative(root, baselineFile)}`,
      );
    }
    if (unexpected.length > 0) {
      console.error(`\n${unexpected.length} findings are not in ${path.relative(root, baselineFile)}:`);
      for (const f of unexpected) console.error(`  ${describe(f)}`);
    }
    if (staleReported.length > 0) {
      console.error(`\n${staleReported.length} baseline entries match no finding any more; remove them:`);
      for (const e of staleReported)
        console.error(`  ${JSON.stringify({ ...e, reason: undefined })} (${e.reason})`);
    }
    if (failures.length > 0) {
      console.error(`\n${failures.length} targets did not render:`);
      for (const f of failures) console.error(`  ${f}`);
    }
    return unexpected.length > 0 || staleReported.length > 0 || failures.length > 0 ? 1 : 0;
  } finally {
    if (!process.env.ANALYZERS_KEEP) fs.rmSync(dir, { recursive: true, force: true });
    else console.log(`  kept ${dir}`);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`analyzers failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      process.exit(1);
    },
  );
}
