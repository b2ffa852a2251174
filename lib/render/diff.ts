import { execFile, execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { isDeepStrictEqual } from "util";
import * as YAML from "yaml";
import {
  charts,
  deletedBeforeReplaced,
  kubernetesImmutableFields,
  kubernetesReplacedFields,
  replacementBehaviour,
  typeReplacedFields,
  type ChartPin,
  type ReplacementRule,
} from "../versions";
import { shortType } from "./graph";
import { RenderInputError, displayPath } from "./project";
import { secretText } from "./run";

/**
 * The upgrade preview (`render --diff`): what changed between an earlier render and this one, per
 * component, and which changes replace an object rather than update it (lib/versions/replacement.ts).
 * It reads only the files a render writes, so an earlier render can be a folder, a git ref rendered
 * again, or files a test assembles. A secret's value is never printed.
 */

/** The files of a render the diff compares. */
export const diffInputs = ["resources.yaml", "helm-releases.yaml", "cluster-objects.yaml"] as const;
export type DiffInput = (typeof diffInputs)[number];
/** A render's files by name, as `renderFiles` returns them or as read from its folder; absent ones left out. */
export type RenderFiles = Readonly<Partial<Record<DiffInput, string>>>;

export type ChangeKind = "added" | "changed" | "removed" | "replaced";

export interface FieldChange {
  /** In Pulumi's property-path syntax; a list element with a name is shown by it (`containers[web]`). */
  readonly path: string;
  /** What changed, in words (`1 -> 3`, `added`, `changed (secret)`); never a secret's value. */
  readonly change: string;
  /** In the resource's ignoreChanges: Pulumi keeps the old value. */
  readonly ignored?: true;
  /** This change forces the replacement: the upstream code that makes it so. */
  readonly forcesReplacement?: string;
}

/** A changed field that forces a replacement, and the upstream code that makes it so. */
export interface Replacement {
  readonly field: string;
  readonly source: string;
}

export interface ObjectChange {
  readonly change: ChangeKind;
  /** `Deployment shop/shop`, `NodePool gke-dev-default`. */
  readonly object: string;
  /** The Pulumi resource (`type::name`), or a chart's object (`<group>/<Kind>/<namespace>/<name>`). */
  readonly key: string;
  readonly fields?: readonly FieldChange[];
  readonly replacedBy?: readonly Replacement[];
  /** What happens, in words: who replaces it and how, what stops it. */
  readonly notes?: readonly string[];
}

export interface ComponentChanges {
  /** The Pulumi component (`platform-app-shop-shop (App)`); a chart's objects: `<component> / release <ns>/<name> (...)`. */
  readonly component: string;
  readonly objects: readonly ObjectChange[];
}

export interface RenderDiff {
  /** Where the earlier render came from. */
  readonly before: string;
  readonly after: string;
  readonly counts: Readonly<Record<ChangeKind, number>>;
  readonly components: readonly ComponentChanges[];
  /** What could not be compared, and why. */
  readonly notes: readonly string[];
}

// ---------------------------------------------------------------------------------------------------
// Where the earlier render comes from

/** The `--diff` argument, understood: a folder holding a render, or a git commit of the program's repository. */
export type DiffBase =
  | { readonly kind: "folder"; readonly dir: string; readonly label: string }
  | {
      readonly kind: "ref";
      readonly ref: string;
      readonly commit: string;
      /** The repository's top folder. */
      readonly repository: string;
      readonly label: string;
    };

/**
 * What `--diff <arg>` names: an existing folder (which must hold a render's resources.yaml), else
 * anything `git rev-parse --verify <arg>^{commit}` accepts in the program's repository; otherwise a
 * message for a usage error, saying both.
 */
export function resolveDiffBase(
  arg: string,
  ctx: {
    readonly cwd: string;
    readonly programDir: string;
    readonly invokedAs: string;
    readonly stack: string;
  },
): DiffBase | { readonly error: string } {
  const dir = path.resolve(ctx.cwd, arg);
  const shown = (p: string) => {
    const relative = path.relative(ctx.cwd, p);
    return relative === "" ? "." : relative.startsWith("..") || path.isAbsolute(relative) ? p : relative;
  };
  if (fs.existsSync(dir) && fs.statSync(dir).isDirectory()) {
    if (!fs.existsSync(path.join(dir, "resources.yaml"))) {
      return {
        error:
          `--diff ${arg}: ${shown(dir)} holds no resources.yaml, so it is not a render; ` +
          `make one before the change with ${ctx.invokedAs} ${shown(ctx.programDir)} --stack ${ctx.stack} --out ${arg}, or give a git ref such as HEAD`,
      };
    }
    return { kind: "folder", dir, label: shown(dir) };
  }
  const repository = git(ctx.programDir, ["rev-parse", "--show-toplevel"]);
  // A name starting with "-" would be read by git as an option; no ref starts so.
  const commit =
    repository === undefined || arg.startsWith("-")
      ? undefined
      : git(ctx.programDir, ["rev-parse", "--verify", "--quiet", `${arg}^{commit}`]);
  if (repository === undefined || commit === undefined) {
    return {
      error:
        `--diff ${arg}: neither a folder holding an earlier render nor a git ref` +
        (repository === undefined
          ? ` (${shown(ctx.programDir)} is not in a git repository)`
          : ` of the repository at ${shown(repository)}`) +
        `; give the folder an earlier render wrote (${ctx.invokedAs} ... --out <dir>), or a commit, branch or tag such as HEAD`,
    };
  }
  return { kind: "ref", ref: arg, commit, repository, label: `${arg} (${commit.slice(0, 12)})` };
}

/** The output of a git command in `cwd`, or undefined where git is absent or the command fails. */
function git(cwd: string, args: readonly string[]): string | undefined {
  try {
    return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return undefined;
  }
}

/**
 * Reads the files a diff compares from a render's folder; one without resources.yaml is no render.
 * `only` limits it to the files a render just wrote, so a stale file of an earlier run is left out.
 */
export function readRenderFolder(dir: string, only?: readonly string[]): RenderFiles {
  if (!fs.existsSync(path.join(dir, "resources.yaml"))) {
    throw new RenderInputError(
      `${displayPath(dir)} holds no resources.yaml: it is not a render's folder (render with --out ${displayPath(dir)})`,
    );
  }
  const files: Partial<Record<DiffInput, string>> = {};
  for (const name of diffInputs.filter((n) => only === undefined || only.includes(n))) {
    const file = path.join(dir, name);
    if (fs.existsSync(file)) files[name] = fs.readFileSync(file, "utf8");
  }
  return files;
}

export interface EarlierRenderOptions {
  /** The program's folder, now. */
  readonly programDir: string;
  readonly stack: string;
  /** The chart folder this render uses, so the earlier one has cluster-objects.yaml too. */
  readonly chartsDir?: string;
  /** Told what is being done, for the terminal. */
  readonly onNote?: (text: string) => void;
}

/**
 * The earlier render's files: read from its folder, or, for a git ref, rendered again: the ref is
 * checked out into a temporary `git worktree add --detach`, the program's node_modules are linked
 * there, and the same stack of the same program folder is rendered in a child process with this
 * CLI. The worktree is removed afterwards, also on error. The program and its stack config are the
 * ref's; whatever the program imports through node_modules is what is installed now (in this
 * repository, `stacks/index.ts` imports `../lib`, so it renders with the ref's library).
 */
export async function earlierRender(base: DiffBase, opts: EarlierRenderOptions): Promise<RenderFiles> {
  if (base.kind === "folder") return readRenderFolder(base.dir);
  const relative = path.relative(base.repository, path.resolve(opts.programDir));
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), "render-diff-"));
  const tree = path.join(temp, "tree");
  const out = path.join(temp, "out");
  let added = false;
  try {
    opts.onNote?.(`rendering ${base.label} in a temporary git worktree for --diff`);
    gitOrThrow(base.repository, ["worktree", "add", "--detach", "--quiet", tree, base.commit]);
    added = true;
    const program = path.join(tree, relative);
    if (!fs.existsSync(path.join(program, "Pulumi.yaml"))) {
      throw new RenderInputError(
        `--diff ${base.ref}: the program folder ${relative || "."} has no Pulumi.yaml at ${base.label}`,
      );
    }
    linkNodeModules(base.repository, tree, path.resolve(opts.programDir));
    const args = [
      ...cliCommand(),
      "render",
      program,
      "--stack",
      opts.stack,
      "--out",
      out,
      ...(opts.chartsDir ? ["--charts", path.resolve(opts.chartsDir)] : []),
    ];
    const result = await run(process.execPath, args, tree);
    // A render whose invariants fail (exit 1) still wrote its files, and is still the earlier state.
    if (!fs.existsSync(path.join(out, "resources.yaml"))) {
      throw new RenderInputError(
        `--diff ${base.ref}: rendering ${relative || "the program"} at ${base.label} failed (exit ${result.code}):\n${result.stderr.trim()}`,
      );
    }
    return readRenderFolder(out);
  } finally {
    if (added) {
      try {
        gitOrThrow(base.repository, ["worktree", "remove", "--force", tree]);
      } catch {
        fs.rmSync(tree, { recursive: true, force: true });
        git(base.repository, ["worktree", "prune"]);
      }
    }
    fs.rmSync(temp, { recursive: true, force: true });
  }
}

function gitOrThrow(cwd: string, args: readonly string[]): void {
  try {
    execFileSync("git", args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`git ${args.join(" ")} failed${stderr ? `: ${stderr}` : ""}`);
  }
}

/**
 * Links each node_modules folder from the program's folder up to the repository's top into the same
 * place in the worktree, where the ref has none (node_modules are not committed).
 */
function linkNodeModules(repository: string, tree: string, programDir: string): void {
  for (let dir = programDir; ; dir = path.dirname(dir)) {
    const from = path.join(dir, "node_modules");
    const to = path.join(tree, path.relative(repository, dir), "node_modules");
    if (fs.existsSync(from) && fs.existsSync(path.dirname(to)) && !fs.existsSync(to)) {
      fs.symlinkSync(from, to, "dir");
    }
    if (path.relative(repository, dir) === "" || dir === path.dirname(dir)) break;
  }
}

/** This CLI as a command: its compiled file, or under tsx its TypeScript source (this repository). */
function cliCommand(): string[] {
  const cli = path.join(__dirname, `cli${path.extname(__filename)}`);
  return path.extname(__filename) === ".ts" ? [require.resolve("tsx/cli"), cli] : [cli];
}

function run(
  command: string,
  args: readonly string[],
  cwd: string,
): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, maxBuffer: 256 * 1024 * 1024 }, (err, _stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
      resolve({ code, stderr: err && !stderr ? err.message : stderr });
    });
  });
}

// ---------------------------------------------------------------------------------------------------
// Reading the files

interface ResourceEntry {
  readonly type: string;
  readonly name: string;
  readonly parent?: string;
  readonly component?: boolean;
  readonly provider?: string;
  readonly options?: {
    readonly protect?: boolean;
    readonly retainOnDelete?: boolean;
    readonly deleteBeforeReplace?: boolean;
    readonly ignoreChanges?: readonly string[];
    readonly replaceOnChanges?: readonly string[];
  };
  readonly dependsOn?: readonly string[];
  readonly inputs?: Record<string, unknown>;
}

interface Resources {
  /** In the file's order: apply order. */
  readonly list: readonly ResourceEntry[];
  readonly byKey: ReadonlyMap<string, ResourceEntry>;
}

const keyOf = (r: ResourceEntry): string => `${r.type}::${r.name}`;

function parseResources(text: string, side: string): Resources {
  const doc = parseYaml(text, `${side} resources.yaml`) as { resources?: unknown } | null;
  if (!doc || !Array.isArray(doc.resources)) {
    throw new RenderInputError(`the ${side} resources.yaml has no resources list: it is not a render's file`);
  }
  const list = doc.resources as ResourceEntry[];
  return { list, byKey: new Map(list.map((r) => [keyOf(r), r])) };
}

interface ReleaseEntry {
  readonly name: string;
  readonly namespace: string;
  readonly chart: string;
  readonly version: string;
}

function parseReleases(text: string | undefined, side: string): ReleaseEntry[] {
  if (text === undefined) return [];
  const doc = parseYaml(text, `${side} helm-releases.yaml`) as { releases?: ReleaseEntry[] } | null;
  return doc?.releases ?? [];
}

/** One object a chart renders, from cluster-objects.yaml. */
interface ChartObject {
  /** `<namespace>/<name>` of its release. */
  readonly release: string;
  readonly chart: string;
  readonly version: string;
  readonly key: string;
  readonly object: Record<string, unknown>;
}

// The comment the render writes before each of a chart's objects (clusterObjects.ts objectSetYaml).
const fromRelease = / from release ([^/\s]+)\/(\S+) \((\S+) (\S+)\)$/;

function parseChartObjects(text: string, side: string): Map<string, ChartObject> {
  const out = new Map<string, ChartObject>();
  for (const doc of YAML.parseAllDocuments(text)) {
    if (doc.errors.length > 0) {
      throw new RenderInputError(
        `the ${side} cluster-objects.yaml is not valid YAML: ${doc.errors[0].message}`,
      );
    }
    // The comment is the document's, or (after a `---`) its first node's.
    const before = doc.commentBefore ?? (YAML.isNode(doc.contents) ? doc.contents.commentBefore : undefined);
    const comment = (before ?? "").trim().split("\n").pop() ?? "";
    const m = fromRelease.exec(comment);
    const object = doc.toJS() as Record<string, unknown> | null;
    // The program's own objects are compared as Pulumi resources, from resources.yaml.
    if (!m || !object || typeof object !== "object") continue;
    const key = objectKey(object);
    out.set(key, { release: `${m[1]}/${m[2]}`, chart: m[3], version: m[4], key, object });
  }
  return out;
}

function parseYaml(text: string, what: string): unknown {
  try {
    return YAML.parse(text);
  } catch (err) {
    throw new RenderInputError(`the ${what} is not valid YAML: ${(err as Error).message}`);
  }
}

/** A Kubernetes object's identity across API versions: `<group>/<Kind>/<namespace>/<name>`. */
function objectKey(o: Record<string, unknown>): string {
  const meta = (o.metadata ?? {}) as { name?: string; namespace?: string };
  return `${groupOf(o.apiVersion)}/${String(o.kind)}/${meta.namespace ?? ""}/${meta.name ?? ""}`;
}

/** The API group of an apiVersion, `core` for the core group (`v1`). */
function groupOf(apiVersion: unknown): string {
  const v = text(apiVersion);
  return v.includes("/") ? v.slice(0, v.indexOf("/")) : "core";
}

function objectName(o: Record<string, unknown>): string {
  const meta = (o.metadata ?? {}) as { name?: string; namespace?: string };
  return `${String(o.kind)} ${meta.namespace ? `${meta.namespace}/` : ""}${meta.name ?? ""}`;
}

// ---------------------------------------------------------------------------------------------------
// The diff

/**
 * Compares two renders' files: every Pulumi resource by type and name (resources.yaml), Helm
 * releases among them; with cluster-objects.yaml on both sides, every object each chart renders, by
 * API group, kind, namespace and name. Pure: the same files give the same diff.
 */
export function diffRenders(
  before: RenderFiles,
  after: RenderFiles,
  labels: { readonly before: string; readonly after: string } = { before: "before", after: "after" },
): RenderDiff {
  if (before["resources.yaml"] === undefined || after["resources.yaml"] === undefined) {
    throw new RenderInputError(
      `a diff needs both renders' resources.yaml (${labels.before}, ${labels.after})`,
    );
  }
  const old = parseResources(before["resources.yaml"], "earlier");
  const now = parseResources(after["resources.yaml"], "new");
  const groups = new Groups();
  const label = (resources: Resources, key: string | undefined): string => {
    const parent = key === undefined ? undefined : resources.byKey.get(key);
    return parent ? `${parent.name} (${shortType(parent.type)})` : "(outside any component)";
  };

  // Providers first: a replaced provider replaces what it deploys.
  const replacedProviders = new Set<string>();
  const compared = new Map<string, ObjectChange | undefined>();
  const ordered = [...now.list].sort((a, b) => Number(!isProvider(a)) - Number(!isProvider(b)));
  for (const r of ordered) {
    if (r.component) continue;
    const was = old.byKey.get(keyOf(r));
    if (!was) continue;
    const change = compareResources(was, r, { old, now, replacedProviders });
    compared.set(keyOf(r), change);
    if (isProvider(r) && change?.change === "replaced") replacedProviders.add(keyOf(r));
  }
  for (const r of now.list) {
    if (r.component) continue;
    const key = keyOf(r);
    if (!old.byKey.has(key)) {
      groups.add(label(now, r.parent), { change: "added", object: resourceName(r), key });
      continue;
    }
    const change = compared.get(key);
    groups.order(label(now, r.parent));
    if (change) groups.add(label(now, r.parent), change);
  }
  for (const r of old.list) {
    if (r.component || now.byKey.has(keyOf(r))) continue;
    groups.add(label(old, r.parent), removedResource(r));
  }

  const notes: string[] = [];
  const beforeObjects = before["cluster-objects.yaml"];
  const afterObjects = after["cluster-objects.yaml"];
  if (beforeObjects !== undefined && afterObjects !== undefined) {
    diffChartObjects(
      parseChartObjects(beforeObjects, "earlier"),
      parseChartObjects(afterObjects, "new"),
      { old, now, groups, label },
      {
        old: parseReleases(before["helm-releases.yaml"], "earlier"),
        now: parseReleases(after["helm-releases.yaml"], "new"),
      },
    );
  } else if (beforeObjects !== undefined || afterObjects !== undefined) {
    notes.push(
      `only the ${beforeObjects ? "earlier" : "new"} render has cluster-objects.yaml, so the objects each chart renders are not compared: render both with --charts`,
    );
  } else {
    notes.push("the objects each chart renders are not compared: render with --charts to compare them too");
  }

  const components = groups.result();
  const counts: Record<ChangeKind, number> = { added: 0, changed: 0, removed: 0, replaced: 0 };
  for (const c of components) for (const o of c.objects) counts[o.change]++;
  return { before: labels.before, after: labels.after, counts, components, notes };
}

/** Changed objects by component, in the order components first appear. */
class Groups {
  private readonly byLabel = new Map<string, ObjectChange[]>();
  /** Chart groups come right after the component their release is in. */
  private readonly after = new Map<string, string[]>();

  order(label: string): void {
    if (!this.byLabel.has(label)) this.byLabel.set(label, []);
  }

  add(label: string, change: ObjectChange): void {
    this.order(label);
    this.byLabel.get(label)?.push(change);
  }

  /** A group placed right after `anchor`. */
  addAfter(anchor: string, label: string, change: ObjectChange): void {
    const list = this.after.get(anchor) ?? [];
    if (!list.includes(label)) list.push(label);
    this.after.set(anchor, list);
    const objects = this.byLabel.get(label) ?? [];
    objects.push(change);
    if (!this.byLabel.has(label)) this.byLabel.set(label, objects);
  }

  result(): ComponentChanges[] {
    const placed = new Set([...this.after.values()].flat());
    const out: ComponentChanges[] = [];
    const emit = (label: string): void => {
      const objects = this.byLabel.get(label) ?? [];
      if (objects.length > 0) out.push({ component: label, objects });
      for (const next of this.after.get(label) ?? []) emit(next);
    };
    for (const label of this.byLabel.keys()) if (!placed.has(label)) emit(label);
    // Chart groups whose component has no other changes and was never seen: at the end.
    for (const [anchor, labels] of this.after) {
      if (!this.byLabel.has(anchor)) for (const l of labels) emit(l);
    }
    return out;
  }
}

const isProvider = (r: ResourceEntry): boolean => r.type.startsWith("pulumi:providers:");
const helmRelease = "kubernetes:helm.sh/v3:Release";
const isKubernetesObject = (r: ResourceEntry): boolean =>
  r.type.startsWith("kubernetes:") && r.type !== helmRelease && typeof r.inputs?.kind === "string";

function resourceName(r: ResourceEntry): string {
  const inputs = r.inputs ?? {};
  if (isKubernetesObject(r)) return objectName(inputs);
  if (r.type === helmRelease)
    return `Release ${text(inputs.namespace, "default")}/${text(inputs.name, r.name)}`;
  return `${shortType(r.type)} ${r.name}`;
}

function removedResource(r: ResourceEntry): ObjectChange {
  const notes: string[] = [];
  if (r.options?.protect) {
    notes.push(
      `protected: pulumi up refuses to delete it until protect is off (${replacementBehaviour.protectDelete})`,
    );
  } else if (r.options?.retainOnDelete) {
    notes.push(
      `retained on delete: Pulumi forgets it and leaves it in place (${replacementBehaviour.retainOnDelete})`,
    );
  }
  return { change: "removed", object: resourceName(r), key: keyOf(r), ...(notes.length ? { notes } : {}) };
}

/** The types of a resource's parents, outermost first: part of its URN. */
function typeChain(resources: Resources, r: ResourceEntry): string {
  const types: string[] = [];
  for (let p = r.parent; p !== undefined; p = resources.byKey.get(p)?.parent) {
    types.unshift(resources.byKey.get(p)?.type ?? p);
  }
  return types.join("$");
}

interface Context {
  readonly old: Resources;
  readonly now: Resources;
  readonly replacedProviders: ReadonlySet<string>;
}

/** One resource in both renders: what changed, and whether that replaces it. Undefined when nothing did. */
function compareResources(was: ResourceEntry, is: ResourceEntry, ctx: Context): ObjectChange | undefined {
  const beforeInputs = was.inputs ?? {};
  const afterInputs = is.inputs ?? {};
  const ignore = (is.options?.ignoreChanges ?? []).map(parsePath);
  const secretPaths = isKubernetesObject(is) && afterInputs.kind === "Secret" ? secretFields : [];
  const found: Found[] = fieldChanges(beforeInputs, afterInputs, secretPaths).map((f) => ({
    at: f.at,
    field: ignore.some((p) => covers(p, f.at)) ? { ...f.field, ignored: true } : f.field,
  }));
  const fields: FieldChange[] = [];
  const push = (path: string, change: string) => found.push({ at: [path], field: { path, change } });
  if (was.parent !== is.parent) push("parent", `${was.parent ?? "(none)"} -> ${is.parent ?? "(none)"}`);
  const moved = typeChain(ctx.old, was) !== typeChain(ctx.now, is);
  if (was.provider !== is.provider)
    push("provider", `${was.provider ?? "(default)"} -> ${is.provider ?? "(default)"}`);
  // A dependency is named by its resource name; the type is in resources.yaml.
  const named = (keys: readonly string[]) => keys.map((k) => k.slice(k.lastIndexOf("::") + 2));
  const deps = listChange(named(was.dependsOn ?? []), named(is.dependsOn ?? []));
  if (deps) push("dependsOn", deps);
  for (const option of [
    "protect",
    "retainOnDelete",
    "deleteBeforeReplace",
    "ignoreChanges",
    "replaceOnChanges",
  ] as const) {
    const b = was.options?.[option];
    const a = is.options?.[option];
    if (!isDeepStrictEqual(b ?? defaultOption(option), a ?? defaultOption(option))) {
      push(`options.${option}`, describe(b ?? defaultOption(option), a ?? defaultOption(option), false));
    }
  }
  // An object whose provider is replaced is replaced with it, changed or not.
  if (is.provider && ctx.replacedProviders.has(is.provider) && was.provider === is.provider) {
    push("provider", `${is.provider} is replaced`);
  }
  if (found.length === 0) return undefined;

  // Pulumi keeps ignored fields' old values before any provider diffs them.
  const effective = restoreIgnored(beforeInputs, afterInputs, ignore);
  const replacedBy: Trigger[] = [];
  const refused: Trigger[] = [];
  const notes: string[] = [];
  if (isKubernetesObject(is)) {
    const [group, version] = splitApiVersion(afterInputs.apiVersion);
    const kind = String(afterInputs.kind);
    const provider = is.provider ? ctx.now.byKey.get(is.provider)?.inputs : undefined;
    const facts = {
      secretMutable: isTrue(provider?.enableSecretMutable),
      configMapMutable: isTrue(provider?.enableConfigMapMutable),
    };
    const pulumiRules = [
      ...(kubernetesReplacedFields["*"] ?? []),
      ...(kubernetesReplacedFields[`${group}/${version}/${kind}`] ?? []),
    ];
    replacedBy.push(...triggered(pulumiRules, beforeInputs, effective, facts));
    const covered = (at: readonly PathStep[]) => replacedBy.some((r) => overlaps(r.at, at));
    refused.push(
      ...triggered(
        kubernetesImmutableFields[`${group}/${kind}`] ?? [],
        beforeInputs,
        effective,
        facts,
      ).filter((r) => !covered(r.at)),
    );
  } else {
    replacedBy.push(...triggered(typeReplacedFields[is.type] ?? [], beforeInputs, effective, {}));
  }
  for (const p of is.options?.replaceOnChanges ?? []) {
    if (!isDeepStrictEqual(valueAt(beforeInputs, parsePath(p)), valueAt(effective, parsePath(p)))) {
      replacedBy.push({
        field: p,
        at: parsePath(p),
        except: [],
        source: `its replaceOnChanges option (${replacementBehaviour.replaceOnChanges})`,
      });
    }
  }
  if (is.provider && ctx.replacedProviders.has(is.provider)) {
    replacedBy.push({
      field: "provider",
      at: ["provider"],
      except: [],
      source: `its provider ${is.provider} is replaced (${replacementBehaviour.providerReplaced})`,
    });
  } else if (is.provider && was.provider && is.provider !== was.provider) {
    // Another provider: Pulumi asks the new one whether the old one's config needs a replacement.
    const [from, to] = [ctx.old.byKey.get(was.provider), ctx.now.byKey.get(is.provider)];
    if (from && to && from.type === to.type) {
      for (const r of triggered(typeReplacedFields[to.type] ?? [], from.inputs ?? {}, to.inputs ?? {}, {})) {
        replacedBy.push({
          field: "provider",
          at: ["provider"],
          except: [],
          source: `its provider's ${r.field} differs (${r.source}; ${replacementBehaviour.providerReplaced})`,
        });
      }
    }
  }
  if (replacedBy.length === 0 && refused.length > 0) {
    notes.push(
      `the API server refuses to change ${refused.map((r) => r.field).join(", ")}, and the Kubernetes provider does not replace it for that: ` +
        "pulumi up fails; add the field to the resource's replaceOnChanges, or delete the object first",
    );
  }
  fields.push(...found.map((f) => forcing(f, replacedBy.length > 0 ? replacedBy : refused)));
  if (fields.every((f) => f.ignored)) {
    notes.push(
      `pulumi up applies none of this: every changed field is in ignoreChanges (${replacementBehaviour.ignoreChanges})`,
    );
  }
  if (moved) {
    notes.push(
      `its URN changes, as the types of its parents are part of it (${replacementBehaviour.urn}): ` +
        "unless it has an alias to its former parent, pulumi up creates it anew and deletes the old one",
    );
  }
  if (replacedBy.length > 0) notes.push(...replacementNotes(was, is));
  const replaced = replacedBy.length > 0 || refused.length > 0;
  return {
    change: replaced ? "replaced" : "changed",
    object: resourceName(is),
    key: keyOf(is),
    fields,
    ...(replaced ? { replacedBy: dedupe([...replacedBy, ...refused]) } : {}),
    ...(notes.length > 0 ? { notes } : {}),
  };
}

/** How Pulumi goes about replacing it, and what stops it. */
function replacementNotes(was: ResourceEntry, is: ResourceEntry): string[] {
  const notes: string[] = [];
  const b = was.inputs ?? {};
  const a = is.inputs ?? {};
  if (isKubernetesObject(is)) {
    const same = (k: "name" | "namespace") =>
      (b.metadata as Record<string, unknown> | undefined)?.[k] ===
      (a.metadata as Record<string, unknown> | undefined)?.[k];
    notes.push(
      same("name") && same("namespace")
        ? `Pulumi deletes it, then creates it again: the new object has the same name (${replacementBehaviour.kubernetesDeleteFirst})`
        : "Pulumi creates the new object, then deletes the old one",
    );
  } else if (is.options?.deleteBeforeReplace || deletedBeforeReplaced[is.type]) {
    notes.push(
      `Pulumi deletes it, then creates it again${deletedBeforeReplaced[is.type] ? ` (${deletedBeforeReplaced[is.type]})` : ""}`,
    );
  } else {
    const name = typeof a.name === "string" && a.name === b.name ? a.name : undefined;
    notes.push(
      "Pulumi creates the replacement, then deletes the old one" +
        (name
          ? `; its name stays ${name}, which the old one holds until then: set deleteBeforeReplace if the cloud refuses two of that name`
          : ""),
    );
  }
  if (was.options?.protect && is.options?.protect) {
    notes.push(
      `protected: pulumi up refuses to replace it until protect is off (${replacementBehaviour.protectReplace})`,
    );
  }
  return notes;
}

function defaultOption(option: string): unknown {
  return option === "ignoreChanges" || option === "replaceOnChanges"
    ? []
    : option === "deleteBeforeReplace"
      ? undefined
      : false;
}

function splitApiVersion(apiVersion: unknown): [string, string] {
  const v = text(apiVersion);
  return v.includes("/") ? [v.slice(0, v.indexOf("/")), v.slice(v.indexOf("/") + 1)] : ["core", v];
}

const isTrue = (v: unknown): boolean => v === true || v === "true";

/** The replacements, each field and source once. */
function dedupe(list: readonly Trigger[]): Replacement[] {
  const seen = new Set<string>();
  const out: Replacement[] = [];
  for (const { field, source } of list) {
    const k = `${field} ${source}`;
    if (!seen.has(k)) out.push({ field, source });
    seen.add(k);
  }
  return out;
}

/** A changed field with its path. */
interface Found {
  readonly at: readonly Step[];
  readonly field: FieldChange;
}

/** A rule's field that changed: where, and which paths below it may change anyway. */
interface Trigger extends Replacement {
  readonly at: readonly PathStep[];
  readonly except: readonly (readonly PathStep[])[];
}

/** The field, marked with what it forces where a replacement's field covers it (and it is not excepted). */
function forcing(found: Found, triggers: readonly Trigger[]): FieldChange {
  const at = found.at.map((s): PathStep => (typeof s === "object" ? s.index : s));
  const by = triggers.find((t) => overlaps(t.at, at) && !t.except.some((e) => covers(e, found.at)));
  return by && !found.field.ignored ? { ...found.field, forcesReplacement: by.source } : found.field;
}

// ---------------------------------------------------------------------------------------------------
// Chart objects

interface ChartContext {
  readonly old: Resources;
  readonly now: Resources;
  readonly groups: Groups;
  readonly label: (resources: Resources, key: string | undefined) => string;
}

function diffChartObjects(
  before: ReadonlyMap<string, ChartObject>,
  after: ReadonlyMap<string, ChartObject>,
  ctx: ChartContext,
  releases: { readonly old: readonly ReleaseEntry[]; readonly now: readonly ReleaseEntry[] },
): void {
  const groupOfRelease = (release: string): { anchor: string; label: string } => {
    const find = (resources: Resources) =>
      resources.list.find(
        (r) =>
          r.type === helmRelease &&
          `${text(r.inputs?.namespace, "default")}/${text(r.inputs?.name, r.name)}` === release,
      );
    const resource = find(ctx.now) ?? find(ctx.old);
    const anchor = ctx.label(find(ctx.now) ? ctx.now : ctx.old, resource?.parent);
    const at = (list: readonly ReleaseEntry[]) => list.find((r) => `${r.namespace}/${r.name}` === release);
    const b = at(releases.old) ?? [...before.values()].find((o) => o.release === release);
    const a = at(releases.now) ?? [...after.values()].find((o) => o.release === release);
    const version =
      b && a && b.version !== a.version ? `${b.version} -> ${a.version}` : ((a ?? b)?.version ?? "");
    return { anchor, label: `${anchor} / release ${release} (${(a ?? b)?.chart ?? ""} ${version})` };
  };
  const groups = new Map<string, { anchor: string; label: string }>();
  const groupFor = (release: string) => {
    const g = groups.get(release) ?? groupOfRelease(release);
    groups.set(release, g);
    return g;
  };
  for (const [key, a] of after) {
    const b = before.get(key);
    const { anchor, label } = groupFor(a.release);
    if (!b) {
      ctx.groups.addAfter(anchor, label, { change: "added", object: objectName(a.object), key });
      continue;
    }
    const change = compareChartObjects(b, a);
    if (change) ctx.groups.addAfter(anchor, label, change);
  }
  for (const [key, b] of before) {
    if (after.has(key)) continue;
    const { anchor, label } = groupFor(b.release);
    const annotations = ((b.object.metadata as Record<string, unknown> | undefined)?.annotations ??
      {}) as Record<string, unknown>;
    const kept = annotations["helm.sh/resource-policy"] === "keep";
    ctx.groups.addAfter(anchor, label, {
      change: "removed",
      object: objectName(b.object),
      key,
      notes: [
        kept
          ? `kept: it carries helm.sh/resource-policy: keep, so Helm leaves it in the cluster (${replacementBehaviour.helmRemoved})`
          : `Helm deletes it from the cluster (${replacementBehaviour.helmRemoved})`,
      ],
    });
  }
}

function compareChartObjects(b: ChartObject, a: ChartObject): ObjectChange | undefined {
  const secretPaths = a.object.kind === "Secret" ? secretFields : [];
  const found: Found[] = fieldChanges(b.object, a.object, secretPaths);
  if (found.length === 0) return undefined;
  const notes: string[] = [];
  const annotations = ((a.object.metadata as Record<string, unknown> | undefined)?.annotations ??
    {}) as Record<string, unknown>;
  const hook = typeof annotations["helm.sh/hook"] === "string" ? annotations["helm.sh/hook"] : undefined;
  let replacedBy: Trigger[] = [];
  if (hook !== undefined) {
    notes.push(
      `a Helm hook (${hook}): Helm creates it anew when the hook runs, never patches it (${replacementBehaviour.helmHooks})`,
    );
  } else {
    const kind = String(a.object.kind);
    replacedBy = triggered(
      kubernetesImmutableFields[`${groupOf(a.object.apiVersion)}/${kind}`] ?? [],
      b.object,
      a.object,
      {},
    );
    if (replacedBy.length > 0) {
      notes.push(
        `Helm cannot patch it (${replacementBehaviour.helmPatch}): the upgrade fails until the object is deleted, and Helm then creates it again`,
      );
    }
  }
  if (a.object.kind === "CustomResourceDefinition") {
    const pins: readonly ChartPin[] = Object.values(charts);
    const pin = pins.find((c) => c.chart === a.chart);
    if (pin?.crds?.in === "crds/") {
      notes.push(
        `${a.chart} ships its CRDs in crds/, which Helm never upgrades (${replacementBehaviour.helmCrds}): apply the new CRDs before the bump (docs/upgrades.md)`,
      );
    }
  }
  return {
    change: replacedBy.length > 0 ? "replaced" : "changed",
    object: objectName(a.object),
    key: a.key,
    fields: found.map((f) => forcing(f, replacedBy)),
    ...(replacedBy.length > 0 ? { replacedBy: dedupe(replacedBy) } : {}),
    ...(notes.length > 0 ? { notes } : {}),
  };
}

// ---------------------------------------------------------------------------------------------------
// Field paths

/** A step in a path: a key, a list index, or a list element matched by its name. */
type Step = string | number | { readonly name: string; readonly index: number };
/** A step of a rule's or option's path: a key, an index, or `*` for any element. */
type PathStep = string | number | { readonly any: true };

/** A Secret's fields whose values are never shown. */
const secretFields: readonly string[] = ["data", "stringData"];

interface RawChange {
  readonly at: readonly Step[];
  readonly before: unknown;
  readonly after: unknown;
}

function fieldChanges(
  before: unknown,
  after: unknown,
  secretPaths: readonly string[],
): { at: readonly Step[]; field: FieldChange }[] {
  const raw: RawChange[] = [];
  diffValue(before, after, [], raw);
  return raw.map((c) => {
    const secret =
      (typeof c.at[0] === "string" && secretPaths.includes(c.at[0])) ||
      holdsSecret(c.before) ||
      holdsSecret(c.after);
    return { at: c.at, field: { path: showPath(c.at), change: describe(c.before, c.after, secret) } };
  });
}

function diffValue(b: unknown, a: unknown, at: readonly Step[], out: RawChange[]): void {
  if (isDeepStrictEqual(b, a)) return;
  if (isRecord(b) && isRecord(a)) {
    for (const k of [...new Set([...Object.keys(b), ...Object.keys(a)])].sort())
      diffValue(b[k], a[k], [...at, k], out);
    return;
  }
  if (Array.isArray(b) && Array.isArray(a)) {
    const named = namedElements(b, a);
    if (named) {
      const [bn, an] = named;
      const names = [...new Set([...an.keys(), ...bn.keys()])];
      for (const name of names) {
        const index = an.get(name)?.index ?? bn.get(name)?.index ?? 0;
        diffValue(bn.get(name)?.value, an.get(name)?.value, [...at, { name, index }], out);
      }
      return;
    }
    if (b.length === a.length && b.some((x) => isRecord(x) || Array.isArray(x))) {
      b.forEach((x, i) => diffValue(x, a[i], [...at, i], out));
      return;
    }
  }
  out.push({ at, before: b, after: a });
}

/** Elements by name, where every element of both lists is an object with its own name. */
function namedElements(
  b: readonly unknown[],
  a: readonly unknown[],
):
  | [Map<string, { value: unknown; index: number }>, Map<string, { value: unknown; index: number }>]
  | undefined {
  const byName = (list: readonly unknown[]) => {
    const map = new Map<string, { value: unknown; index: number }>();
    for (const [index, value] of list.entries()) {
      if (!isRecord(value) || typeof value.name !== "string" || map.has(value.name)) return undefined;
      map.set(value.name, { value, index });
    }
    return map;
  };
  if (b.length + a.length === 0) return undefined;
  const bn = byName(b);
  const an = byName(a);
  return bn && an ? [bn, an] : undefined;
}

/** A scalar input as text (names, namespaces, API versions). */
function text(v: unknown, fallback = ""): string {
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? String(v) : fallback;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Anything the render shows as a secret, or a private key. */
function holdsSecret(v: unknown): boolean {
  if (typeof v === "string") return v === secretText || /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(v);
  if (Array.isArray(v)) return v.some(holdsSecret);
  if (isRecord(v)) return Object.values(v).some(holdsSecret);
  return false;
}

// Longer values (certificates, scripts, whole documents) are summarised: a diff line stays readable.
const maxShown = 80;

/** A change in words, with short values; a secret's only as "changed (secret)". */
function describe(b: unknown, a: unknown, secret: boolean): string {
  if (secret)
    return b === undefined ? "added (secret)" : a === undefined ? "removed (secret)" : "changed (secret)";
  if (b === undefined) return short(a) !== undefined ? `added: ${short(a)}` : "added";
  if (a === undefined) return short(b) !== undefined ? `removed (was ${short(b)})` : "removed";
  if (Array.isArray(b) && Array.isArray(a)) return listChange(b, a) ?? "reordered";
  const [sb, sa] = [short(b), short(a)];
  if (sb !== undefined && sa !== undefined) return `${sb} -> ${sa}`;
  if (typeof b === "string" && typeof a === "string") {
    return `changed (${textChange(b, a)})`;
  }
  return "changed";
}

/** How a long text changed: its length, or for a multi-line one (a config file in a ConfigMap) its lines. */
function textChange(b: string, a: string): string {
  const [bl, al] = [b.split("\n"), a.split("\n")];
  if (bl.length === 1 && al.length === 1) return `${b.length} -> ${a.length} characters`;
  const gone = new Map<string, number>();
  for (const line of bl) gone.set(line, (gone.get(line) ?? 0) + 1);
  let differ = 0;
  for (const line of al) {
    const left = gone.get(line) ?? 0;
    if (left > 0) gone.set(line, left - 1);
    else differ++;
  }
  return `${bl.length} -> ${al.length} lines, ${differ} new or changed`;
}

/** A list's change: items added and removed where they are short, else the counts. */
function listChange(b: readonly unknown[], a: readonly unknown[]): string | undefined {
  if (isDeepStrictEqual(b, a)) return undefined;
  const added = a.filter((x) => !b.some((y) => isDeepStrictEqual(x, y)));
  const removed = b.filter((x) => !a.some((y) => isDeepStrictEqual(x, y)));
  if (added.length + removed.length === 0) return "reordered";
  const shown = (list: readonly unknown[]) => list.map(short);
  const parts = [
    ...(added.length > 0 ? [`added ${shown(added).join(", ")}`] : []),
    ...(removed.length > 0 ? [`removed ${shown(removed).join(", ")}`] : []),
  ];
  if (
    [...added, ...removed].every((x) => short(x) !== undefined) &&
    parts.join("; ").length <= 3 * maxShown
  ) {
    return parts.join("; ");
  }
  return `${b.length} -> ${a.length} items (${added.length} added, ${removed.length} removed)`;
}

/** A scalar as shown, or undefined for one too long to show. */
function short(v: unknown): string | undefined {
  if (v === null) return "null";
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (typeof v !== "string") return undefined;
  const plain = v !== "" && !/^\s|\s$|\n/.test(v) && !v.includes(" -> ");
  const text = plain ? v : JSON.stringify(v);
  return text.length <= maxShown ? text : undefined;
}

/** A path as Pulumi writes property paths (`a.b[0]["x.y"]`), a named list element as `[name]`. */
function showPath(at: readonly Step[]): string {
  let out = "";
  for (const s of at) {
    if (typeof s === "number") out += `[${s}]`;
    else if (typeof s !== "string") out += `[${s.name}]`;
    else if (/^[A-Za-z_$][-\w$]*$/.test(s)) out += out === "" ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

/** Parses a Pulumi property path (`spec.template`, `a[0].b`, `containers[*].image`, `metadata.labels["x.y"]`). */
function parsePath(text: string): PathStep[] {
  const steps: PathStep[] = [];
  const re = /([^.[\]]+)|\[(\d+)\]|\[\*\]|\["((?:[^"\\]|\\.)*)"\]/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[1] !== undefined) steps.push(m[1] === "*" ? { any: true } : m[1]);
    else if (m[2] !== undefined) steps.push(Number(m[2]));
    else if (m[3] !== undefined) steps.push(JSON.parse(`"${m[3]}"`) as string);
    else steps.push({ any: true });
  }
  return steps;
}

const stepMatches = (p: PathStep, s: Step): boolean =>
  typeof p === "object"
    ? typeof s !== "string"
    : typeof p === "number"
      ? (typeof s === "number" ? s : typeof s === "object" ? s.index : -1) === p
      : s === p;

/** Whether a path (an ignoreChanges entry) is at or above a change. */
function covers(path: readonly PathStep[], at: readonly Step[]): boolean {
  return path.length <= at.length && path.every((p, i) => stepMatches(p, at[i]));
}

/** Whether one path is at, above or below the other. */
function overlaps(a: readonly PathStep[], b: readonly PathStep[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const [x, y] = [a[i], b[i]];
    if (typeof x === "object" || typeof y === "object") continue;
    if (x !== y) return false;
  }
  return true;
}

/** The value at a path; with `*`, the list of values at every element. */
function valueAt(value: unknown, path: readonly PathStep[]): unknown {
  if (path.length === 0) return value;
  const [step, ...rest] = path;
  if (typeof step === "object") return Array.isArray(value) ? value.map((v) => valueAt(v, rest)) : undefined;
  if (typeof step === "number") return Array.isArray(value) ? valueAt(value[step], rest) : undefined;
  return isRecord(value) ? valueAt(value[step], rest) : undefined;
}

/** A copy of `value` without what is at `path`. */
function without(value: unknown, path: readonly PathStep[]): unknown {
  if (path.length === 0) return undefined;
  const [step, ...rest] = path;
  if (Array.isArray(value)) {
    return (value as unknown[]).map((v, i) =>
      typeof step === "object" || step === i ? without(v, rest) : v,
    );
  }
  if (!isRecord(value) || typeof step !== "string" || !(step in value)) return value;
  const copy: Record<string, unknown> = { ...value };
  const inner = without(value[step], rest);
  if (inner === undefined) delete copy[step];
  else copy[step] = inner;
  return copy;
}

/** `after`, with each ignoreChanges path set back to its value in `before`, as Pulumi does before diffing. */
function restoreIgnored(
  before: unknown,
  after: unknown,
  paths: readonly (readonly PathStep[])[],
): Record<string, unknown> {
  let out = after;
  for (const p of paths) out = restore(before, out, p);
  return isRecord(out) ? out : {};
}

function restore(before: unknown, after: unknown, path: readonly PathStep[]): unknown {
  if (path.length === 0) return before;
  const [step, ...rest] = path;
  if (Array.isArray(after)) {
    return (after as unknown[]).map((v, i) =>
      typeof step === "object" || step === i
        ? restore(Array.isArray(before) ? (before as unknown[])[i] : undefined, v, rest)
        : v,
    );
  }
  if (!isRecord(after) || typeof step !== "string") return after;
  const inner = restore(isRecord(before) ? before[step] : undefined, after[step], rest);
  const copy: Record<string, unknown> = { ...after };
  if (inner === undefined) delete copy[step];
  else copy[step] = inner;
  return copy;
}

interface Facts {
  readonly secretMutable?: boolean;
  readonly configMapMutable?: boolean;
}

/** The fields of the rules whose change (under their condition) replaces the object, each with its source. */
function triggered(
  rules: readonly ReplacementRule[],
  before: unknown,
  after: unknown,
  facts: Facts,
): Trigger[] {
  const out: Trigger[] = [];
  for (const rule of rules) {
    if (!holds(rule, before, after, facts)) continue;
    for (const field of rule.fields) {
      const at = parsePath(field);
      // What may change anyway is left out of both sides.
      const trim = (v: unknown) =>
        (rule.except ?? [])
          .map(parsePath)
          .filter((e) => e.length > at.length && isDeepStrictEqual(e.slice(0, at.length), at))
          .reduce<unknown>((acc, e) => without(acc, e.slice(at.length)), valueAt(v, at));
      const [b, a] = [trim(before), trim(after)];
      if (isDeepStrictEqual(b, a)) continue;
      if (rule.when === "cidr-shrinks" && !cidrShrinks(b, a)) continue;
      out.push({ field, source: rule.source, at, except: (rule.except ?? []).map(parsePath) });
    }
  }
  return out;
}

function holds(rule: ReplacementRule, before: unknown, after: unknown, facts: Facts): boolean {
  const b = isRecord(before) ? before : {};
  const a = isRecord(after) ? after : {};
  const spec = (o: Record<string, unknown>) => (isRecord(o.spec) ? o.spec : {});
  switch (rule.when) {
    case undefined:
    case "cidr-shrinks":
      return true;
    case "secret-not-mutable":
      return !facts.secretMutable || a.immutable === true;
    case "configmap-not-mutable":
      return !facts.configMapMutable || a.immutable === true;
    case "was-immutable":
      return b.immutable === true;
    case "not-indexed":
      return spec(a).completionMode !== "Indexed";
    case "not-suspended":
      return spec(b).suspend !== true;
    case "not-external-name":
      return spec(b).type !== "ExternalName" && spec(a).type !== "ExternalName";
  }
}

/** Whether the new IPv4 range leaves out part of the old one (terraform-provider-google's IsShrinkageIpCidr). */
function cidrShrinks(before: unknown, after: unknown): boolean {
  const range = (v: unknown): [number, number] | undefined => {
    const m = typeof v === "string" ? /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(v) : null;
    if (!m) return undefined;
    const ip = m.slice(1, 5).reduce((acc, o) => acc * 256 + Number(o), 0);
    const size = 2 ** (32 - Number(m[5]));
    const start = ip - (ip % size);
    return [start, start + size - 1];
  };
  const [b, a] = [range(before), range(after)];
  // Unparseable ranges are no shrink, as upstream decides.
  if (!b || !a) return false;
  return !(a[0] <= b[0] && b[1] <= a[1]);
}

// ---------------------------------------------------------------------------------------------------
// Output

/** diff.yaml: the whole diff, deterministic. */
export function diffYaml(diff: RenderDiff): string {
  const doc = {
    before: diff.before,
    after: diff.after,
    summary: diff.counts,
    ...(diff.notes.length > 0 ? { notes: diff.notes } : {}),
    components: diff.components.map((c) => ({
      component: c.component,
      objects: c.objects.map((o) => ({
        object: o.object,
        change: o.change,
        key: o.key,
        ...(o.fields ? { fields: o.fields } : {}),
        ...(o.replacedBy ? { replacedBy: o.replacedBy } : {}),
        ...(o.notes ? { notes: o.notes } : {}),
      })),
    })),
  };
  return (
    "# What changed from an earlier render to this one, per component: objects added, changed (the field paths),\n" +
    "# removed, and replaced (the field that forces it, and the upstream code that makes it so). No secret's value.\n" +
    "# Written by the offline render (gke-mesh-platform render --diff); do not edit.\n" +
    YAML.stringify(doc, { lineWidth: 0, minContentWidth: 0, aliasDuplicateObjects: false })
  );
}

/**
 * Past these, the terminal says how many more there are; diff.yaml has them all. A chart bump touches
 * dozens of objects: the terminal shows what to look at, the file everything.
 */
const fieldsShown = 6;
const objectsShown = 25;

/** The diff for the terminal. */
export function diffSummary(diff: RenderDiff, file = "diff.yaml"): string {
  const total = diff.counts.added + diff.counts.changed + diff.counts.removed + diff.counts.replaced;
  if (total === 0) {
    return [`  changes from ${diff.before}: none`, ...diff.notes.map((n) => `  note: ${n}`)].join("\n");
  }
  const counts = (["added", "changed", "replaced", "removed"] as const)
    .map((k) => `${diff.counts[k]} ${k}`)
    .join(", ");
  const lines = [`  changes from ${diff.before} (${counts}; all in ${file}):`];
  const indent = " ".repeat(18);
  const fieldLine = (f: FieldChange) =>
    `${f.path}: ${f.change}${f.ignored ? " (ignored: ignoreChanges)" : ""}` +
    (f.forcesReplacement ? ` [forces replacement: ${f.forcesReplacement}]` : "");
  for (const c of diff.components) {
    lines.push(`    ${c.component}`);
    // A chart bump changes the same labels on every object: said once, then each object's own changes.
    const common = commonFields(c.objects);
    const isCommon = (f: FieldChange) => common.some((x) => x.path === f.path && x.change === f.change);
    if (common.length > 0) {
      lines.push(`      on every changed object here: ${common.map(fieldLine).join("; ")}`);
    }
    const onlyCommon = c.objects.filter(
      (o) => common.length > 0 && o.change === "changed" && !o.notes && (o.fields ?? []).every(isCommon),
    );
    const listed = c.objects.filter((o) => !onlyCommon.includes(o));
    for (const o of listed.slice(0, objectsShown)) {
      lines.push(`      ${o.change.padEnd(8)}  ${o.object}`);
      const own = (o.fields ?? []).filter((f) => !isCommon(f));
      for (const f of own.slice(0, fieldsShown)) lines.push(`${indent}${fieldLine(f)}`);
      const more = own.length - fieldsShown;
      if (more > 0) lines.push(`${indent}... and ${more} more field${more === 1 ? "" : "s"}`);
      const sources = new Set(own.slice(0, fieldsShown).map((f) => f.forcesReplacement));
      for (const r of o.replacedBy ?? []) {
        if (!sources.has(r.source)) lines.push(`${indent}replaced for ${r.field}: ${r.source}`);
      }
      for (const n of o.notes ?? []) lines.push(`${indent}(${n})`);
    }
    const more = listed.length - objectsShown;
    if (more > 0) lines.push(`      ... and ${more} more object${more === 1 ? "" : "s"}`);
    if (onlyCommon.length > 0) {
      const names = onlyCommon.slice(0, 4).map((o) => o.object);
      const rest = onlyCommon.length - names.length;
      lines.push(
        `      changed   ${onlyCommon.length} more with only that change: ${names.join(", ")}${rest > 0 ? `, and ${rest} more` : ""}`,
      );
    }
  }
  for (const n of diff.notes) lines.push(`  note: ${n}`);
  return lines.join("\n");
}

/**
 * The field changes every changed object of a group shares (a chart's version labels), where there
 * are three or more: fewer read as easily one by one.
 */
function commonFields(objects: readonly ObjectChange[]): FieldChange[] {
  const changed = objects.filter((o) => o.change !== "added" && o.change !== "removed" && o.fields);
  if (changed.length < 3) return [];
  const [first, ...rest] = changed;
  return (first.fields ?? []).filter((f) =>
    rest.every((o) => (o.fields ?? []).some((g) => g.path === f.path && g.change === f.change)),
  );
}
