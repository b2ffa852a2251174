#!/usr/bin/env node
// First of all: refuse a Node.js below the package's floor with one line, before anything else loads.
import "./nodeFloor";
import * as fs from "fs";
import * as path from "path";
import { docsLink, nearest } from "../config";
import { parseFlags, UsageError, type CliIo, type Flag } from "./commandLine";
import {
  completionScript,
  completionShells,
  type CompletedCommand,
  type CompletionShell,
} from "./completion";
import { initChoices } from "./init";
import { init, initFlags } from "./initCommand";
import { preflightCommand, preflightFlags } from "./preflightCommand";
import { failureText, render, renderFlags } from "./renderCommand";
import { versions, versionsFlags } from "./versionsCommand";

/**
 * The command line: `gke-mesh-platform render <program dir> [--stack S]`, `init`, `versions`,
 * `preflight` and `completion`; in this repository `npm run render -- <stack>` or
 * `npm run render -- examples/<name>`. Exit codes: 0 done (and for help), 1 the render failed (a
 * config error, a program error, a violated invariant), 2 the command was wrong. Each command is its
 * own module (`renderCommand.ts`, `initCommand.ts`, `versionsCommand.ts`, `preflightCommand.ts`, the
 * doctor's `lib/doctor/command.ts`), made of what `commandLine.ts` gives; this one dispatches to them.
 */

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
