import { spawnSync } from "child_process";
import * as path from "path";
import { docsLink, nearest } from "../config";
import { flagLines, parseFlags, UsageError, type CliIo, type Flag, type ParsedFlags } from "./commandLine";
import { initChoices, initProgram } from "./init";
import { preflight, preflightText } from "./preflight";

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
export function init(args: readonly string[], io: CliIo): number {
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
