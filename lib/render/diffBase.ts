/** `render --diff`: where the earlier render comes from (a folder, or a git ref rendered again), and reading a render's files. */
import { execFile, execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as YAML from "yaml";
import { RenderInputError, displayPath } from "./project";
import { text } from "./diffFields";

/** The files of a render the diff compares. */
export const diffInputs = ["resources.yaml", "helm-releases.yaml", "cluster-objects.yaml"] as const;
export type DiffInput = (typeof diffInputs)[number];
/** A render's files by name, as `renderFiles` returns them or as read from its folder; absent ones left out. */
export type RenderFiles = Readonly<Partial<Record<DiffInput, string>>>;

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

export interface ResourceEntry {
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

export interface Resources {
  /** In the file's order: apply order. */
  readonly list: readonly ResourceEntry[];
  readonly byKey: ReadonlyMap<string, ResourceEntry>;
}

export const keyOf = (r: ResourceEntry): string => `${r.type}::${r.name}`;

export function parseResources(text: string, side: string): Resources {
  const doc = parseYaml(text, `${side} resources.yaml`) as { resources?: unknown } | null;
  if (!doc || !Array.isArray(doc.resources)) {
    throw new RenderInputError(`the ${side} resources.yaml has no resources list: it is not a render's file`);
  }
  const list = doc.resources as ResourceEntry[];
  return { list, byKey: new Map(list.map((r) => [keyOf(r), r])) };
}

export interface ReleaseEntry {
  readonly name: string;
  readonly namespace: string;
  readonly chart: string;
  readonly version: string;
}

export function parseReleases(text: string | undefined, side: string): ReleaseEntry[] {
  if (text === undefined) return [];
  const doc = parseYaml(text, `${side} helm-releases.yaml`) as { releases?: ReleaseEntry[] } | null;
  return doc?.releases ?? [];
}

/** One object a chart renders, from cluster-objects.yaml. */
export interface ChartObject {
  /** `<namespace>/<name>` of its release. */
  readonly release: string;
  readonly chart: string;
  readonly version: string;
  readonly key: string;
  readonly object: Record<string, unknown>;
}

// The comment the render writes before each of a chart's objects (clusterObjects.ts objectSetYaml).
const fromRelease = / from release ([^/\s]+)\/(\S+) \((\S+) (\S+)\)$/;

export function parseChartObjects(text: string, side: string): Map<string, ChartObject> {
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
export function groupOf(apiVersion: unknown): string {
  const v = text(apiVersion);
  return v.includes("/") ? v.slice(0, v.indexOf("/")) : "core";
}

export function objectName(o: Record<string, unknown>): string {
  const meta = (o.metadata ?? {}) as { name?: string; namespace?: string };
  return `${String(o.kind)} ${meta.namespace ? `${meta.namespace}/` : ""}${meta.name ?? ""}`;
}
