import * as fs from "fs";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { ConfigError, docsLink, nearest } from "../config";
import { MissingChartsError } from "../cluster";
import { flagLines, parseFlags, UsageError, type CliIo, type Flag, type ParsedFlags } from "./commandLine";
import { diffRenders, earlierRender, readRenderFolder, resolveDiffBase } from "./diff";
import { diffSummary, diffYaml } from "./diffOutput";
import { stageGraph } from "./graph";
import { InitError } from "./init";
import { progressReporter } from "./progress";
import { RenderInputError, displayPath, projectFileOf, readProject, stacksOf } from "./project";
import { stackReport, summaryText, type StackReport } from "./report";
import { WrongPassphraseError } from "./secrets";
import { defaultOutDir, renderStack } from "./stack";

/**
 * `render`: one stack, or every stack of a program, rendered (or with --check, checked) and
 * summarized; and how any failure of the command line is told (`failureText`).
 */

/** The options of `render`. */
export const renderFlags: readonly Flag[] = [
  {
    name: "--stack",
    value: "name",
    help: "the stack to render, whose config is Pulumi.<name>.yaml (default: the program's only stack)",
  },
  { name: "--all", help: "render every stack of the program, each into its own folder" },
  {
    name: "--out",
    value: "dir",
    help: "where to write the files (default: out/<stack>, or out/<program folder>/<stack> for a program below the current folder); with --all, <dir>/<stack>",
  },
  {
    name: "--check",
    help: "validate the config and run every invariant, writing nothing; exit 1 on any finding",
  },
  { name: "--json", help: "print the summary and the findings as JSON (progress stays on stderr)" },
  {
    name: "--type-check",
    help: "type-check a TypeScript program as pulumi up does (the render only transpiles it: type errors are your editor's and tsc's)",
  },
  { name: "--stages", help: "also print the stages of the deployment as a Mermaid flowchart" },
  {
    name: "--charts",
    value: "dir",
    help: "a folder of the pinned charts: template every release with helm, write cluster-objects.yaml and check the cluster invariants",
  },
  {
    name: "--diff",
    value: "dir|ref",
    help: "then compare with an earlier render (its folder, or a git ref rendered again): per component, what is added, changed, removed or replaced; writes diff.yaml",
  },
  { name: "--help", alias: "-h", help: "print this help" },
];

/**
 * A failure as the command prints it. Config errors and unreadable files carry their whole
 * explanation; anything else is reported without a stack trace unless RENDER_DEBUG is set.
 */
export function failureText(err: unknown): string {
  if (
    pulumi.RunError.isInstance(err) ||
    err instanceof RenderInputError ||
    err instanceof MissingChartsError ||
    err instanceof WrongPassphraseError ||
    err instanceof InitError
  ) {
    return err.message;
  }
  if (err instanceof Error) {
    return `render failed: ${err.message}\n${process.env.RENDER_DEBUG ? String(err.stack) : "(run with RENDER_DEBUG=1 for the stack trace)"}`;
  }
  return `render failed: ${String(err)}`;
}

/** A failed stack in `--json`: the message, and a config error's problems one by one. */
function failureJson(err: unknown): { message: string; problems?: ConfigError["problems"] } {
  return {
    message: failureText(err),
    ...(err instanceof ConfigError ? { problems: err.problems } : {}),
  };
}

/** `--stack` takes a stack's name; its file's name (`Pulumi.prod.yaml`) is told apart and corrected. */
function stackName(value: string | undefined): string | undefined {
  const file = value === undefined ? undefined : /^(?:.*[/\\])?Pulumi\.(.+)\.ya?ml$/.exec(value);
  if (file) {
    throw new UsageError(
      `--stack takes a stack's name, not its config file: for ${value}, give --stack ${file[1]}`,
    );
  }
  return value;
}

export async function render(args: readonly string[], io: CliIo): Promise<number> {
  const { flags, positionals } = parseFlags(args, renderFlags);
  if (flags.has("--help")) {
    io.stdout(renderHelp(io.invokedAs));
    return 0;
  }
  if (positionals.length > 1) {
    throw new UsageError(
      `give one program folder or stack, not ${positionals.length}: ${positionals.join(" ")}`,
    );
  }
  const json = flags.has("--json");
  const check = flags.has("--check");
  const all = flags.has("--all");
  const stackFlag = stackName(flags.get("--stack") as string | undefined);
  const both = (a: string, b: string, why: string) => {
    if (flags.has(a) && flags.has(b)) throw new UsageError(`${a} and ${b} go not together: ${why}`);
  };
  both("--all", "--stack", "--all renders every stack and --stack names one; give one of them");
  both(
    "--all",
    "--diff",
    "--diff compares one stack with an earlier render of it; give --stack instead of --all",
  );
  both("--check", "--out", "--check writes nothing, so there is nothing for --out; give one of them");
  both(
    "--check",
    "--diff",
    "--diff compares the files a render writes, and --check writes none; give one of them",
  );
  const { dir, stack } = target(positionals[0], stackFlag, io);
  if (all && stack !== undefined) {
    throw new UsageError(
      `--all renders every stack, and ${JSON.stringify(stack)} names one: give the program's folder with --all, such as ${io.invokedAs} . --all`,
    );
  }
  const project = readProject(dir);
  const stacks = stacksOf(project);
  if (all && stacks.length === 0) {
    throw new UsageError(
      `${positionals[0] ?? "."} has no stack to render: its config goes in Pulumi.<stack>.yaml, such as Pulumi.dev.yaml`,
    );
  }
  const chosen = all ? stacks : [stack ?? onlyStack(positionals[0] ?? ".", stacks, io)];
  for (const s of chosen) {
    if (stacks.includes(s)) continue;
    const suggestion = nearest(s, stacks);
    throw new UsageError(
      `no stack ${JSON.stringify(s)} in ${dir === io.cwd ? "the current folder" : displayPath(dir)}: it has no Pulumi.${s}.yaml` +
        (suggestion
          ? ` (did you mean ${JSON.stringify(suggestion)}?)`
          : ` (its stacks: ${stacks.join(", ") || "none"})`),
    );
  }

  const reports: (StackReport | { program: string; stack: string; error: ReturnType<typeof failureJson> })[] =
    [];
  let code = 0;
  for (const s of chosen) {
    try {
      const { report, failed } = await renderOne(dir, project.name, s, flags, io);
      reports.push(report);
      if (failed) code = 1;
      if (all && !json && s !== chosen[chosen.length - 1]) io.stdout("");
    } catch (err) {
      // One stack of several, or a report for a program: say what failed, and go on.
      if (err instanceof UsageError || (!json && !all)) throw err;
      if (json) reports.push({ program: project.name, stack: s, error: failureJson(err) });
      else io.stderr(`${project.name}/${s} failed:\n${failureText(err)}`);
      code = 1;
    }
  }
  if (all && !json) {
    const failed = chosen.filter(
      (s) => !reports.some((r) => r.stack === s && "findings" in r && r.findings === 0),
    );
    io.stdout(
      `\n${check ? "Checked" : "Rendered"} ${chosen.length} stacks of ${project.name}: ${chosen.join(", ")}; ` +
        (failed.length === 0 ? "all hold" : `${failed.length} failed or with findings: ${failed.join(", ")}`),
    );
  }
  if (json) io.stdout(JSON.stringify({ ok: code === 0, stacks: reports }, null, 2));
  return code;
}

/** Renders (or with --check, checks) one stack and prints its summary; `failed` on any finding. */
async function renderOne(
  dir: string,
  projectName: string,
  stack: string,
  flags: ParsedFlags,
  io: CliIo,
): Promise<{ report: StackReport; failed: boolean }> {
  const json = flags.has("--json");
  const check = flags.has("--check");
  const outFlag = flags.get("--out") as string | undefined;
  const out =
    outFlag === undefined
      ? defaultOutDir(dir, projectName, stack, io.cwd)
      : flags.has("--all")
        ? path.join(outFlag, stack)
        : outFlag;
  const shownOut = path.isAbsolute(out) ? out : path.normalize(out);
  const chartsDir = flags.has("--charts") ? path.resolve(io.cwd, flags.get("--charts") as string) : undefined;
  // The earlier render is read (or rendered) first: --diff may name the folder this render overwrites.
  const diffArg = flags.get("--diff") as string | undefined;
  const base =
    diffArg === undefined
      ? undefined
      : resolveDiffBase(diffArg, { cwd: io.cwd, programDir: dir, invokedAs: io.invokedAs, stack });
  if (base && "error" in base) throw new UsageError(base.error);
  const earlier = base
    ? await earlierRender(base, { programDir: dir, stack, chartsDir, onNote: io.stderr })
    : undefined;
  let loading: string | undefined;
  const rendered = await renderStack({
    program: dir,
    stack,
    out: path.resolve(io.cwd, out),
    write: !check,
    registerTypeScript: io.registerTypeScript,
    typeCheck: flags.has("--type-check"),
    chartsDir,
    onLoading: (how) => (loading = how),
    onProgress: progressReporter(`${projectName}/${stack}`, io.stderr, { loading: () => loading }),
    onUndecrypted: ({ keys, reason }) =>
      io.stderr(
        `note: ${keys.length === 1 ? `${keys[0]} is` : `${keys.join(", ")} are`} encrypted and shown as [secret]: ` +
          `the render cannot decrypt ${displayPath(path.join(readProject(dir).stackConfigDir, `Pulumi.${stack}.yaml`))}'s secrets, as ${reason}`,
      ),
  });
  const report: StackReport & { stages?: string; diff?: unknown } = {
    ...stackReport(rendered, { outDir: shownOut, checkOnly: check }),
  };
  if (!json) io.stdout(summaryText(rendered, report));
  if (flags.has("--stages")) {
    const stages = stageGraph(rendered.result);
    if (json) report.stages = stages;
    else io.stdout(`\n${stages}`);
  }
  if (base && earlier) {
    const diff = diffRenders(earlier, readRenderFolder(rendered.outDir, rendered.files), {
      before: base.label,
      after: shownOut,
    });
    fs.writeFileSync(path.join(rendered.outDir, "diff.yaml"), diffYaml(diff));
    if (json) report.diff = diff;
    else io.stdout(diffSummary(diff));
  }
  // A broken safety invariant, or what would fail on the cluster, fails the render.
  return { report, failed: report.findings > 0 };
}

/**
 * The program and stack a command line names. A folder with a Pulumi.yaml is a program; a bare word
 * that is not one is a stack of the program in the current folder (`npm run render -- dev`); anything
 * written as a path must be a program's folder.
 */
function target(
  arg: string | undefined,
  stackFlag: string | undefined,
  io: CliIo,
): { dir: string; stack?: string } {
  if (arg === undefined) {
    if (!projectFileOf(io.cwd)) {
      throw new UsageError(
        `the current folder has no Pulumi.yaml: give the program's folder, such as ${io.invokedAs} path/to/program, or make a program with gke-mesh-platform init`,
      );
    }
    return { dir: io.cwd, stack: stackFlag };
  }
  const dir = path.resolve(io.cwd, arg);
  const exists = fs.existsSync(dir);
  const isDir = exists && fs.statSync(dir).isDirectory();
  if (isDir && projectFileOf(dir)) return { dir, stack: stackFlag };
  const looksLikePath = /[/\\]/.test(arg) || arg.startsWith(".") || arg.startsWith("~");
  const cwdProject = projectFileOf(io.cwd) ? readProject(io.cwd) : undefined;
  const isStack = cwdProject !== undefined && !looksLikePath && stacksOf(cwdProject).includes(arg);
  if (!isStack) {
    const stackFile = /^Pulumi\.(.+)\.ya?ml$/.exec(path.basename(arg));
    if (exists && !isDir && stackFile) {
      const folder = path.dirname(arg);
      throw new UsageError(
        `${arg} is the config of stack ${JSON.stringify(stackFile[1])}: give the program's folder and the stack, such as ${io.invokedAs} ${folder} --stack ${stackFile[1]}`,
      );
    }
    if (exists && !isDir)
      throw new UsageError(`${arg} is a file; give the program's folder, the one with Pulumi.yaml`);
    if (isDir) throw new UsageError(`${arg} is not a Pulumi program: it has no Pulumi.yaml`);
    if (looksLikePath || !cwdProject) {
      throw new UsageError(
        looksLikePath
          ? `${arg}: no such folder`
          : `${JSON.stringify(arg)} is not a folder, and the current folder has no Pulumi.yaml to take it as a stack of`,
      );
    }
    const stacks = stacksOf(cwdProject);
    const suggestion = nearest(arg, stacks);
    throw new UsageError(
      `${JSON.stringify(arg)} is neither a program's folder nor a stack of ${cwdProject.name}` +
        (suggestion
          ? ` (did you mean ${JSON.stringify(suggestion)}?)`
          : ` (its stacks: ${stacks.join(", ") || "none"})`),
    );
  }
  if (stackFlag !== undefined && stackFlag !== arg) {
    throw new UsageError(
      `${JSON.stringify(arg)} names the stack, and so does --stack ${stackFlag}: give the stack once`,
    );
  }
  return { dir: io.cwd, stack: arg };
}

function onlyStack(arg: string, stacks: readonly string[], io: CliIo): string {
  if (stacks.length === 1) return stacks[0];
  if (stacks.length === 0) {
    throw new UsageError(
      `${arg} has no stack: its config goes in Pulumi.<stack>.yaml, such as Pulumi.dev.yaml`,
    );
  }
  throw new UsageError(
    `${arg} has ${stacks.length} stacks (${stacks.join(", ")}): choose one with --stack, such as ${io.invokedAs} ${arg} --stack ${stacks[0]}, or render them all with --all`,
  );
}

function renderHelp(invokedAs: string): string {
  return [
    `usage: ${invokedAs} [<program dir>] [options]`,
    `       ${invokedAs} <stack>            a stack of the program in the current folder`,
    "",
    "Runs the program as `pulumi up` would, under Pulumi's mock runtime with the stack's config, and",
    "writes what it would deploy into out/<stack>/: resources.yaml, manifests.yaml, helm-releases.yaml,",
    "graph.mmd and certificates.yaml (with --charts, cluster-objects.yaml; with --diff, diff.yaml).",
    "No cloud account, cluster or Pulumi CLI. Encrypted config is decrypted with",
    "PULUMI_CONFIG_PASSPHRASE where the stack uses a passphrase. A TypeScript program is transpiled,",
    "not type-checked (--type-check checks it as pulumi up does).",
    "",
    "options:",
    ...flagLines(renderFlags),
    "",
    "With --charts, each Helm release is templated by helm from the chart folder (fetch the pinned charts",
    "with the helm pull commands the render prints for any it lacks) and the cluster invariants are checked.",
    "With --diff, the new files are compared with an earlier render's (a folder, or a git ref of the program's",
    "repository, rendered again in a temporary worktree): what is replaced names the field and the upstream code.",
    "",
    "Every render checks the safety invariants and lists them; a violated one fails it:",
    `  ${docsLink("docs/safety.md")}`,
    "",
    "exit codes: 0 rendered, 1 the config or the program failed, or an invariant is violated, 2 the command line is wrong",
  ].join("\n");
}
