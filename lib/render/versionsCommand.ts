import * as fs from "fs";
import * as path from "path";
import { flagLines, parseFlags, UsageError, type CliIo, type Flag } from "./commandLine";
import { httpIndexReader, recordedIndexReader, versionsReport, versionsText } from "./versions";

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
export async function versions(args: readonly string[], io: CliIo): Promise<number> {
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
