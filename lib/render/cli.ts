#!/usr/bin/env node
// First of all: refuse a Node.js below the package's floor with one line, before anything else loads.
import "./nodeFloor";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { ConfigError, docsLink, nearest } from "../config";
import { MissingChartsError } from "../cluster";
import {
  completionScript,
  completionShells,
  type CompletedCommand,
  type CompletionShell,
} from "./completion";
import { diffRenders, earlierRender, readRenderFolder, resolveDiffBase } from "./diff";
import { diffSummary, diffYaml } from "./diffOutput";
import { stageGraph } from "./graph";
import { InitError, initChoices, initProgram } from "./init";
import { preflight, preflightText } from "./preflight";
import { progressReporter } from "./progress";
import { RenderInputError, displayPath, projectFileOf, readProject, stacksOf } from "./project";
import { stackReport, summaryText, type StackReport } from "./report";
import { WrongPassphraseError } from "./secrets";
import { defaultOutDir, renderStack } from "./stack";
import { httpIndexReader, recordedIndexReader, versionsReport, versionsText } from "./versions";

/**
 * The command line: `gke-mesh-platform render <program dir> [--stack S]`, `init`, `versions`,
 * `preflight` and `completion`; in this repository `npm run render -- <stack>` or
 * `npm run render -- examples/<name>`. Exit codes: 0 done (and for help), 1 the render failed (a
 * config error, a program error, a violated invariant), 2 the command was wrong.
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

/** A doc named in a message (`docs/safety.md`) as the reader has it: in the installed package, or here. */
export function linkDocs(text: string): string {
  return text.replace(/(?<![\w./-])(docs\/[\w./-]*[\w-]\.md)\b/g, (file) => docsLink(file));
}

function processIo(command: string | undefined): CliIo {
  const script = process.env.npm_lifecycle_event;
  return {
    cwd: process.cwd(),
    // What the command prints names what a package user has: the docs where the installed package keeps them.
    stdout: (text) => console.log(linkDocs(text)),
    stderr: (text) => console.error(linkDocs(text)),
    // The repository's npm scripts (render, versions) run this file through tsx; users run the package's command.
    invokedAs:
      script !== undefined && script === command
        ? `npm run ${script} --`
        : `gke-mesh-platform${command && Object.hasOwn(commands, command) ? ` ${command}` : ""}`,
    registerTypeScript: true,
  };
}

const commands: Readonly<Record<string, (args: readonly string[], io: CliIo) => number | Promise<number>>> = {
  render,
  init,
  versions,
  preflight: preflightCommand,
  // Loaded when run: the doctor layer sits below the render (docs/architecture.md) and reads a live cluster.
  doctor: async (args, io) => (await import("../doctor/command")).doctorCommand(args, io),
  completion,
};

/** The commands, in the order help lists them: `render or versions` grew into this list. */
const commandList = (): string => {
  const names = Object.keys(commands);
  return `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
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
    if (command === undefined)
      throw new UsageError(`give a command: ${commandList()}, such as ${io.invokedAs} render .`);
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
        `unknown command ${JSON.stringify(command)}` +
          (suggestion ? ` (did you mean ${suggestion}?)` : `: the commands are ${commandList()}`),
      );
    }
    return await run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`${io.invokedAs}: ${err.message}\nrun ${io.invokedAs} --help for how to use it`);
      return 2;
    }
    io.stderr(failureText(err));
    return 1;
  }
}

/**
 * A failure as the command prints it. Config errors and unreadable files carry their whole
 * explanation; anything else is reported without a stack trace unless RENDER_DEBUG is set.
 */
function failureText(err: unknown): string {
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

/** The options of `init`. */
export const initFlags: readonly Flag[] = [
  { name: "--name", value: "name", help: "the Pulumi project's name (default: the folder's name)" },
  {
    name: "--mesh",
    value: "kind",
    help: `${initChoices.mesh.values.join(", ")} (default: ${initChoices.mesh.default})`,
  },
  {
    name: "--ingress",
    value: "kind",
    help: `${initChoices.ingress.values.join(", ")} (default: ${initChoices.ingress.default})`,
  },
  {
    name: "--monitoring",
    value: "backend",
    help: `${initChoices.monitoring.values.join(", ")} (default: ${initChoices.monitoring.default})`,
  },
  {
    name: "--project",
    value: "id",
    help: "your Google Cloud project's id (default: my-gcp-project, to replace)",
  },
  { name: "--region", value: "region", help: "the Google Cloud region (default: europe-west1)" },
  {
    name: "--from",
    value: "spec",
    help: "where npm installs gke-mesh-platform from: a version range, a tarball or a folder (default: where this copy came from)",
  },
  { name: "--no-install", help: "write the files only; run npm install yourself" },
  { name: "--help", alias: "-h", help: "print this help" },
];

/** A choice option's value, checked against what it allows. */
function chosen<T extends string>(flags: ParsedFlags, name: string, values: readonly T[]): T | undefined {
  const value = flags.get(name) as string | undefined;
  if (value === undefined || (values as readonly string[]).includes(value)) return value as T | undefined;
  const suggestion = nearest(value, values);
  throw new UsageError(
    `${name} ${value} is not one of ${values.join(", ")}` +
      (suggestion
        ? `: did you mean ${name} ${suggestion}?`
        : `: give one of them, such as ${name} ${values[0]}`),
  );
}

/** `init [dir]`: a new program of one's own, installed and ready to render. */
function init(args: readonly string[], io: CliIo): number {
  const { flags, positionals } = parseFlags(args, initFlags);
  if (flags.has("--help")) {
    io.stdout(initHelp(io.invokedAs));
    return 0;
  }
  if (positionals.length > 1)
    throw new UsageError(
      `give one folder for the new program, not ${positionals.length}: ${positionals.join(" ")}`,
    );
  const folder = positionals[0] ?? ".";
  const dir = path.resolve(io.cwd, folder);
  const files = initProgram({
    dir,
    name: flags.get("--name") as string | undefined,
    mesh: chosen(flags, "--mesh", initChoices.mesh.values),
    ingress: chosen(flags, "--ingress", initChoices.ingress.values),
    monitoring: chosen(flags, "--monitoring", initChoices.monitoring.values),
    project: flags.get("--project") as string | undefined,
    region: flags.get("--region") as string | undefined,
    from: flags.get("--from") as string | undefined,
  });
  io.stdout(`Wrote a new program in ${folder === "." ? "the current folder" : folder}: ${files.join(", ")}`);
  let installed = false;
  if (!flags.has("--no-install")) {
    io.stdout("Installing its packages (npm install) ...");
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const result = spawnSync(npm, ["install", "--no-audit", "--no-fund"], {
      cwd: dir,
      stdio: ["ignore", "inherit", "inherit"],
      shell: process.platform === "win32",
    });
    installed = result.status === 0;
    if (!installed)
      io.stderr(
        `npm install failed in ${folder} (exit ${String(result.status)}): run it there once the cause is fixed`,
      );
  }
  const inFolder = folder === "." ? "" : `cd ${folder} && `;
  io.stdout(
    [
      "",
      "Next:",
      ...(installed ? [] : [`  ${inFolder}npm install`]),
      `  ${inFolder}npx gke-mesh-platform render    # what the dev stack deploys, offline, into out/dev/`,
      "  edit Pulumi.dev.yaml: your project's id, your hosts and apps; then render again",
      `  every key: ${docsLink("docs/configuration.md")}`,
      "  to deploy: pulumi stack init dev && pulumi up (needs the Pulumi CLI, gcloud and gke-gcloud-auth-plugin)",
      "",
      "This machine's tools (gke-mesh-platform preflight):",
      preflightText(preflight()),
    ].join("\n"),
  );
  return installed || flags.has("--no-install") ? 0 : 1;
}

/** The options of `preflight`. */
export const preflightFlags: readonly Flag[] = [
  { name: "--json", help: "print the checks as JSON" },
  { name: "--help", alias: "-h", help: "print this help" },
];

/** `preflight`: the local tools, each found or not; exit 1 where the render itself cannot run. */
function preflightCommand(args: readonly string[], io: CliIo): number {
  const { flags, positionals } = parseFlags(args, preflightFlags);
  if (flags.has("--help")) {
    io.stdout(
      [
        `usage: ${io.invokedAs} [options]`,
        "",
        "Checks the tools on this machine: Node.js and npm (the render needs them), helm (render --charts),",
        "the Pulumi CLI, gcloud and gke-gcloud-auth-plugin (deploying). Each missing one is named with what",
        "needs it and how to get it. It asks no cloud and no cluster. Exit 1 where the render cannot run.",
        "",
        "options:",
        ...flagLines(preflightFlags),
      ].join("\n"),
    );
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`it takes no arguments, not ${positionals.join(" ")}`);
  const checks = preflight();
  io.stdout(flags.has("--json") ? JSON.stringify(checks, null, 2) : preflightText(checks));
  return checks.some((c) => c.required && !c.ok) ? 1 : 0;
}

/** `completion <shell>`: the completion script for bash or zsh. */
async function completion(args: readonly string[], io: CliIo): Promise<number> {
  const { flags, positionals } = parseFlags(args, [{ name: "--help", alias: "-h", help: "print this help" }]);
  const usage = `give a shell, ${completionShells.join(" or ")}, such as ${io.invokedAs} bash >> ~/.bashrc (then open a new shell)`;
  if (flags.has("--help")) {
    io.stdout(
      `usage: ${io.invokedAs} ${completionShells.join("|")}\n\nPrints the shell completion script: ${usage}.`,
    );
    return 0;
  }
  const [shell, ...more] = positionals;
  if (shell === undefined || more.length > 0) throw new UsageError(usage);
  if (!(completionShells as readonly string[]).includes(shell))
    throw new UsageError(`${JSON.stringify(shell)} is not a shell it completes for: ${usage}`);
  const table = (flags: readonly Flag[], extra: Partial<CompletedCommand> = {}): CompletedCommand => ({
    options: flags.map((f) => f.name),
    folders: flags.filter((f) => f.value === "dir" || f.value === "dir|ref").map((f) => f.name),
    ...extra,
  });
  io.stdout(
    completionScript(shell as CompletionShell, "gke-mesh-platform", {
      render: table(renderFlags, { folderArgument: true }),
      init: table(initFlags, {
        folderArgument: true,
        choices: {
          "--mesh": initChoices.mesh.values,
          "--ingress": initChoices.ingress.values,
          "--monitoring": initChoices.monitoring.values,
        },
      }),
      versions: table(versionsFlags),
      preflight: table(preflightFlags),
      doctor: table((await import("../doctor/command")).doctorFlags),
      completion: { options: [...completionShells] },
    }),
  );
  return 0;
}

/** A command's options for its help, one per line, their descriptions aligned. */
export function flagLines(flags: readonly Flag[]): string[] {
  const heads = flags.map(
    (f) => `${f.alias ? `${f.alias}, ` : ""}${f.name}${f.value ? ` <${f.value}>` : ""}`,
  );
  const width = Math.max(...heads.map((h) => h.length));
  return flags.map((f, i) => `  ${heads[i].padEnd(width)}  ${f.help}`);
}

function generalHelp(): string {
  return [
    "gke-mesh-platform: make and review a Pulumi program that uses gke-mesh-platform, offline.",
    "",
    "usage: gke-mesh-platform init [<dir>] [options]         a new program of your own, ready to render (see init --help)",
    "       gke-mesh-platform render [<program dir>] [options]  render a stack: what pulumi up would deploy (see render --help)",
    "       gke-mesh-platform versions [options]                the pinned upstreams, against upstream (see versions --help)",
    "       gke-mesh-platform preflight [--json]                the tools on this machine: Node.js, npm, helm, pulumi, gcloud",
    "       gke-mesh-platform doctor [options]                  a live cluster's known outages, read-only (see doctor --help)",
    "       gke-mesh-platform completion bash|zsh               the shell completion script",
    "       gke-mesh-platform --help | --version",
    "",
    `The README: ${docsLink("README.md")}`,
  ].join("\n");
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

function initHelp(invokedAs: string): string {
  return [
    `usage: ${invokedAs} [<dir>] [options]`,
    "",
    "Writes a new Pulumi program that uses gke-mesh-platform into <dir> (default: the current folder, which",
    "must not hold any of these files): Pulumi.yaml, Pulumi.dev.yaml (a dev stack with the mesh, ingress and",
    "monitoring you choose, and one example app), index.ts, package.json, tsconfig.json and .gitignore;",
    "then runs npm install there, and lists the tools this machine has (preflight). The new program",
    "renders at once: npx gke-mesh-platform render. The platform checks the config before anything is",
    "written, so a combination it cannot build is refused with the reason.",
    "",
    "options:",
    ...flagLines(initFlags),
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
