import { flagLines, parseFlags, UsageError, type CliIo, type Flag } from "./commandLine";
import { preflight, preflightText } from "./preflight";

/** The options of `preflight`. */
export const preflightFlags: readonly Flag[] = [
  { name: "--json", help: "print the checks as JSON" },
  { name: "--help", alias: "-h", help: "print this help" },
];

/** `preflight`: the local tools, each found or not; exit 1 where the render itself cannot run. */
export function preflightCommand(args: readonly string[], io: CliIo): number {
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
