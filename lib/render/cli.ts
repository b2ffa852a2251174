#!/usr/bin/env node
import * as fs from "fs";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { nearest } from "../config";
import { MissingChartsError } from "../cluster";
import { clusterSummary } from "./clusterObjects";
import { safetySummary } from "./safetySummary";
import { summary } from "./files";
import { stageGraph } from "./graph";
import { progressReporter } from "./progress";
import { RenderInputError, displayPath, projectFileOf, readProject, stacksOf } from "./project";
import { WrongPassphraseError } from "./secrets";
import { diffRenders, diffSummary, diffYaml, earlierRender, readRenderFolder, resolveDiffBase } from "./diff";
import { defaultOutDir, renderStack } from "./stack";
import { httpIndexReader, recordedIndexReader, versionsReport, versionsText } from "./versions";

/**
 * The command line: `gke-mesh-platform render <program dir> [--stack S]`, and in this repository
 * `npm run render -- <stack>` or `npm run render -- examples/<name>`. Exit codes: 0 done (and for
 * help), 1 the render failed (a config error, a program error), 2 the command was wrong.
 */

/** One option of a command; a command's options are a table, so adding one is adding a row. */
export interface Flag {
  readonly name: `--${string}`;
  readonly alias?: `-${string}`;
  /** The value's placeholder, e.g. `name` for `--stack <name>`; absent for a switch. */
  readonly value?: string;
  readonly help: string;
}

/** A wrong command line: said with the option at fault, then how to get help; exit code 2. */
export class UsageError extends Error {}

/** The options of `render`. */
export const renderFlags: readonly Flag[] = [
  {
    name: "--stack",
    value: "name",
    help: "the stack to render, whose config is Pulumi.<name>.yaml (default: the program's only stack)",
  },
  {
    name: "--out",
    value: "dir",
    help: "where to write the files (default: out/<stack>, or out/<program folder>/<stack> for a program below the current folder)",
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

/** Options given on a command line: a value per option that takes one, `true` for a switch. */
export type ParsedFlags = ReadonlyMap<string, string | true>;

/**
 * Splits arguments into options and positional arguments. `--name value` and `--name=value` both
 * work; `--` ends the options. An unknown option, one given twice, or one missing its value is a
 * `UsageError` naming it.
 */
export function parseFlags(
  args: readonly string[],
  flags: readonly Flag[],
): { flags: ParsedFlags; positionals: string[] } {
  const values = new Map<string, string | true>();
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const written = eq === -1 ? arg : arg.slice(0, eq);
    const flag = flags.find((f) => f.name === written || f.alias === written);
    if (!flag) {
      const names = flags.map((f) => f.name);
      const suggestion = written.startsWith("--") ? nearest(written, names) : undefined;
      throw new UsageError(
        `unknown option ${written}` + (suggestion ? ` (did you mean ${suggestion}?)` : ""),
      );
    }
    if (values.has(flag.name)) throw new UsageError(`${flag.name} is given twice`);
    if (flag.value === undefined) {
      if (eq !== -1) throw new UsageError(`${flag.name} takes no value`);
      values.set(flag.name, true);
      continue;
    }
    const value = eq !== -1 ? arg.slice(eq + 1) : args[i + 1];
    if (value === undefined || value === "" || (eq === -1 && value.startsWith("-"))) {
      throw new UsageError(`${flag.name} needs a value: ${flag.name} <${flag.value}>`);
    }
    values.set(flag.name, value);
    if (eq === -1) i++;
  }
  return { flags: values, positionals };
}

/** Where the command's output goes, and what it may do; tests replace these. */
export interface CliIo {
  readonly cwd: string;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** How the user invoked the command, for the examples in messages. */
  readonly invokedAs: string;
  /** Load TypeScript programs with ts-node, as Pulumi does, where the process does not already. */
  readonly registerTypeScript: boolean;
}

function processIo(command: string | undefined): CliIo {
  const script = process.env.npm_lifecycle_event;
  return {
    cwd: process.cwd(),
    stdout: (text) => console.log(text),
    stderr: (text) => console.error(text),
    // The repository's npm scripts (render, versions) run this file through tsx; users run the package's command.
    invokedAs:
      script !== undefined && script === command
        ? `npm run ${script} --`
        : `gke-mesh-platform${command && Object.hasOwn(commands, command) ? ` ${command}` : ""}`,
    registerTypeScript: true,
  };
}

const commands: Readonly<Record<string, (args: readonly string[], io: CliIo) => Promise<number>>> = {
  render,
  versions,
  // Loaded when run: the doctor layer sits below the render (docs/architecture.md) and reads a live cluster.
  doctor: async (args, io) => (await import("../doctor/command")).doctorCommand(args, io),
};

/** The options of `versions`. */
export const versionsFlags: readonly Flag[] = [
  { name: "--json", help: "print the report as JSON" },
  { name: "--offline", help: "do not ask the chart repositories; list the pins and the recorded advisories" },
  {
    name: "--index-dir",
    value: "dir",
    help: "compare with recorded Helm repository indexes in this folder (<host>.yaml, such as charts.jetstack.io.yaml) instead of asking the repositories",
  },
  { name: "--help", alias: "-h", help: "print this help" },
];

/**
 * `versions`: every pin, how far behind upstream it is where the repositories answer, and the known
 * advisories that reach it. Exit 0 whatever it finds: it reports, it does not gate.
 */
async function versions(args: readonly string[], io: CliIo): Promise<number> {
  const { flags, positionals } = parseFlags(args, versionsFlags);
  if (flags.has("--help")) {
    io.stdout(
      [
        `usage: ${io.invokedAs} [options]`,
        "",
        "Lists every chart, CRD bundle and image the package pins, with its source, app version and CRDs;",
        "asks each chart repository for its index.yaml and says how far each pin is behind; lists the",
        "known advisories that reach a pin. Offline, it says so and lists the pins and advisories.",
        "",
        "options:",
        ...flagLines(versionsFlags),
      ].join("\n"),
    );
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`it takes no arguments, not ${positionals.join(" ")}`);
  if (flags.has("--offline") && flags.has("--index-dir"))
    throw new UsageError("--offline and --index-dir both say where upstream is: give one");
  const dir = flags.get("--index-dir") as string | undefined;
  if (dir !== undefined && !fs.existsSync(path.resolve(io.cwd, dir)))
    throw new UsageError(`--index-dir ${dir}: no such folder`);
  const reader = flags.has("--offline")
    ? undefined
    : dir !== undefined
      ? recordedIndexReader(path.resolve(io.cwd, dir))
      : httpIndexReader();
  const report = await versionsReport(reader);
  io.stdout(flags.has("--json") ? JSON.stringify(report, null, 2) : versionsText(report));
  return 0;
}

/** Runs the command line `argv` (without node and the script). Returns the exit code. */
export async function main(argv: readonly string[], io: CliIo = processIo(argv[0])): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined) throw new UsageError(`give a command: ${Object.keys(commands).join(" or ")}`);
    if (command === "--help" || command === "-h" || command === "help") {
      io.stdout(generalHelp());
      return 0;
    }
    if (command === "--version") {
      io.stdout(packageVersion());
      return 0;
    }
    const run = Object.hasOwn(commands, command) ? commands[command] : undefined;
    if (!run) {
      const suggestion = nearest(command, Object.keys(commands));
      throw new UsageError(
        `unknown command ${JSON.stringify(command)}` + (suggestion ? ` (did you mean ${suggestion}?)` : ""),
      );
    }
    return await run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`${io.invokedAs}: ${err.message}\nrun ${io.invokedAs} --help for how to use it`);
      return 2;
    }
    // Config errors and unreadable files carry their whole explanation; anything else is reported
    // without a stack trace unless RENDER_DEBUG is set.
    if (
      pulumi.RunError.isInstance(err) ||
      err instanceof RenderInputError ||
      err instanceof MissingChartsError ||
      err instanceof WrongPassphraseError
    ) {
      io.stderr(err.message);
    } else if (err instanceof Error) {
      io.stderr(`render failed: ${err.message}`);
      if (process.env.RENDER_DEBUG) io.stderr(String(err.stack));
      else io.stderr("(run with RENDER_DEBUG=1 for the stack trace)");
    } else {
      io.stderr(`render failed: ${String(err)}`);
    }
    return 1;
  }
}

async function render(args: readonly string[], io: CliIo): Promise<number> {
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
  const stackFlag = flags.get("--stack") as string | undefined;
  const { dir, stack } = target(positionals[0], stackFlag, io);
  const project = readProject(dir);
  const stacks = stacksOf(project);
  const chosen = stack ?? onlyStack(positionals[0] ?? ".", stacks, io);
  if (!stacks.includes(chosen)) {
    const suggestion = nearest(chosen, stacks);
    throw new UsageError(
      `no stack ${JSON.stringify(chosen)} in ${dir === io.cwd ? "the current folder" : displayPath(dir)}: it has no Pulumi.${chosen}.yaml` +
        (suggestion
          ? ` (did you mean ${JSON.stringify(suggestion)}?)`
          : ` (its stacks: ${stacks.join(", ") || "none"})`),
    );
  }
  const out = (flags.get("--out") as string | undefined) ?? defaultOutDir(dir, project.name, chosen, io.cwd);
  const chartsDir = flags.has("--charts") ? path.resolve(io.cwd, flags.get("--charts") as string) : undefined;
  // The earlier render is read (or rendered) first: --diff may name the folder this render overwrites.
  const diffArg = flags.get("--diff") as string | undefined;
  const base =
    diffArg === undefined
      ? undefined
      : resolveDiffBase(diffArg, { cwd: io.cwd, programDir: dir, invokedAs: io.invokedAs, stack: chosen });
  if (base && "error" in base) throw new UsageError(base.error);
  const earlier = base
    ? await earlierRender(base, { programDir: dir, stack: chosen, chartsDir, onNote: io.stderr })
    : undefined;
  const rendered = await renderStack({
    program: dir,
    stack: chosen,
    out: path.resolve(io.cwd, out),
    registerTypeScript: io.registerTypeScript,
    chartsDir,
    onProgress: progressReporter(`${project.name}/${chosen}`, io.stderr),
    onUndecrypted: ({ keys, reason }) =>
      io.stderr(
        `note: ${keys.length === 1 ? `${keys[0]} is` : `${keys.join(", ")} are`} encrypted and shown as [secret]: ` +
          `the render cannot decrypt ${displayPath(path.join(project.stackConfigDir, `Pulumi.${chosen}.yaml`))}'s secrets, as ${reason}`,
      ),
  });
  io.stdout(summary(rendered.result, path.isAbsolute(out) ? out : path.normalize(out)));
  io.stdout(safetySummary(rendered.violations));
  if (rendered.cluster) io.stdout(clusterSummary(rendered.cluster));
  if (flags.has("--stages")) io.stdout(`\n${stageGraph(rendered.result.resources)}`);
  if (base && earlier) {
    const after = path.isAbsolute(out) ? out : path.normalize(out);
    const diff = diffRenders(earlier, readRenderFolder(rendered.outDir, rendered.files), {
      before: base.label,
      after,
    });
    fs.writeFileSync(path.join(rendered.outDir, "diff.yaml"), diffYaml(diff));
    io.stdout(diffSummary(diff));
  }
  // A broken safety invariant, or what would fail on the cluster, fails the render.
  return rendered.violations.length > 0 || (rendered.cluster?.findings.length ?? 0) > 0 ? 1 : 0;
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
        `the current folder has no Pulumi.yaml: give the program's folder, such as ${io.invokedAs} path/to/program`,
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
    `${arg} has ${stacks.length} stacks (${stacks.join(", ")}): choose one with --stack, such as ${io.invokedAs} ${arg} --stack ${stacks[0]}`,
  );
}

function flagLines(flags: readonly Flag[]): string[] {
  const heads = flags.map(
    (f) => `${f.alias ? `${f.alias}, ` : ""}${f.name}${f.value ? ` <${f.value}>` : ""}`,
  );
  const width = Math.max(...heads.map((h) => h.length));
  return flags.map((f, i) => `  ${heads[i].padEnd(width)}  ${f.help}`);
}

function generalHelp(): string {
  return [
    "gke-mesh-platform: review a Pulumi program that uses gke-mesh-platform, offline.",
    "",
    "usage: gke-mesh-platform render [<program dir>] [options]   render a stack (see render --help)",
    "       gke-mesh-platform versions [options]                   the pinned upstreams, against upstream (see versions --help)",
    "       gke-mesh-platform doctor [options]                     a live cluster's known outages, read-only (see doctor --help)",
    "       gke-mesh-platform --help | --version",
  ].join("\n");
}

function renderHelp(invokedAs: string): string {
  return [
    `usage: ${invokedAs} [<program dir>] [options]`,
    `       ${invokedAs} <stack>            a stack of the program in the current folder`,
    "",
    "Runs the program as `pulumi up` would, under Pulumi's mock runtime with the stack's config, and",
    "writes what it would deploy: resources.yaml, manifests.yaml, helm-releases.yaml and graph.mmd.",
    "No cloud account, cluster or Pulumi CLI. Encrypted config is decrypted with",
    "PULUMI_CONFIG_PASSPHRASE where the stack uses a passphrase.",
    "",
    "options:",
    ...flagLines(renderFlags),
    "",
    "With --charts, each Helm release is templated by helm from the chart folder (fetch the pinned charts",
    "with the helm pull commands the render prints for any it lacks) and the cluster invariants are checked.",
    "With --diff, the new files are compared with an earlier render's (a folder, or a git ref of the program's",
    "repository, rendered again in a temporary worktree): what is replaced names the field and the upstream code.",
    "",
    "Every render checks the safety invariants (docs/safety.md) and lists them; a violated one fails it.",
    "",
    "exit codes: 0 rendered, 1 the config or the program failed, or an invariant is violated, 2 the command line is wrong",
  ].join("\n");
}

function packageVersion(): string {
  const file = path.join(__dirname, "..", "..", "package.json");
  return (JSON.parse(fs.readFileSync(file, "utf8")) as { version: string }).version;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`render failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
