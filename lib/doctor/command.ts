import * as path from "path";
import { nearest } from "../config";
import { flagLines, parseFlags, UsageError, type CliIo, type Flag } from "../render/commandLine";
import { RenderInputError, displayPath, projectFileOf, readProject, stacksOf } from "../render/project";
import { doctor, type DoctorOptions } from "./doctor";
import { DoctorError } from "./kubectl";
import { reportText } from "./report";
import { rbacYaml } from "./resources";

/** The options of `doctor`. */
export const doctorFlags: readonly Flag[] = [
  {
    name: "--kubeconfig",
    value: "file",
    help: "the kubeconfig to read the cluster with (default: kubectl's own, KUBECONFIG or ~/.kube/config)",
  },
  { name: "--context", value: "name", help: "the kubeconfig context (default: its current context)" },
  {
    name: "--stack",
    value: "name",
    help: "also compare the cluster with this stack's render: the program is the folder given (default: the current folder)",
  },
  { name: "--json", help: "print the report as JSON" },
  { name: "--rbac", help: "print the read-only ClusterRole the doctor needs, and exit" },
  { name: "--help", alias: "-h", help: "print this help" },
];

export function doctorHelp(invokedAs: string): string {
  return [
    `usage: ${invokedAs} [options]`,
    `       ${invokedAs} [<program dir>] --stack <name> [options]`,
    "",
    "Reads a live cluster with kubectl and your credentials, get and list only, and reports what would",
    "cause a known outage: CRDs a chart would delete or two owners fight over, NEG annotations load",
    "balancers reject, pods that drop requests when they stop, meshed Jobs that never finish, certificates",
    "and webhook CAs that fail, namespaces and ingress controllers outside the mesh, monitors that scrape",
    "nothing; with --stack, how the cluster differs from the stack's render. Each finding names its",
    "severity, the objects and the fix. kubectl comes from KUBECTL, else PATH.",
    "",
    "options:",
    ...flagLines(doctorFlags),
    "",
    'A check the identity may not read says "could not check: no permission to list ..."; --rbac prints',
    "the ClusterRole that lets it read everything (docs/doctor.md).",
    "",
    "exit codes: 0 nothing found, 1 warnings (or something could not be checked), 2 errors (or the cluster",
    "could not be read, or the command line is wrong)",
  ].join("\n");
}

/**
 * `gke-mesh-platform doctor`: the checks of `doctor()` on the cluster of a kubeconfig, printed for people
 * or as JSON. Exit 0 for nothing found, 1 for warnings (or what it could not check), 2 for errors, or when
 * it cannot read the cluster at all (said on standard error); a wrong command line is a `UsageError`.
 */
export async function doctorCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { flags, positionals } = parseFlags(args, doctorFlags);
  if (flags.has("--help")) {
    io.stdout(doctorHelp(io.invokedAs));
    return 0;
  }
  if (flags.has("--rbac")) {
    if (positionals.length > 0 || flags.size > 1)
      throw new UsageError("--rbac prints the ClusterRole and takes nothing else");
    io.stdout(rbacYaml());
    return 0;
  }
  const stackName = flags.get("--stack") as string | undefined;
  if (positionals.length > 0 && stackName === undefined)
    throw new UsageError(
      `${positionals.join(" ")}: a program folder is only read with --stack, such as ${io.invokedAs} ${positionals[0]} --stack dev`,
    );
  if (positionals.length > 1)
    throw new UsageError(`give one program folder, not ${positionals.length}: ${positionals.join(" ")}`);
  const options: DoctorOptions = {
    kubeconfig: flags.get("--kubeconfig") as string | undefined,
    context: flags.get("--context") as string | undefined,
    registerTypeScript: io.registerTypeScript,
    stack: stackName === undefined ? undefined : programStack(positionals[0], stackName, io),
  };
  try {
    const report = await doctor(options);
    io.stdout(flags.has("--json") ? JSON.stringify(report, null, 2) : reportText(report));
    return report.exitCode;
  } catch (err) {
    // The cluster could not be read (DoctorError), or the stack's render failed (its config error, its
    // program's error): said once, exit 2. Anything else is a defect, with its stack trace on request.
    if (err instanceof UsageError) throw err;
    if (err instanceof DoctorError || err instanceof RenderInputError)
      io.stderr(`${io.invokedAs}: ${err.message}`);
    else if (err instanceof Error) {
      io.stderr(`${io.invokedAs}: ${options.stack ? "the stack's render failed: " : ""}${err.message}`);
      if (process.env.RENDER_DEBUG) io.stderr(String(err.stack));
    } else io.stderr(`${io.invokedAs}: ${String(err)}`);
    return 2;
  }
}

/** The program folder and stack of `--stack`, checked as the render checks them. */
function programStack(arg: string | undefined, stack: string, io: CliIo): { program: string; stack: string } {
  const dir = path.resolve(io.cwd, arg ?? ".");
  if (!projectFileOf(dir))
    throw new UsageError(
      `${arg === undefined ? "the current folder" : displayPath(dir)} has no Pulumi.yaml: --stack compares a program's stack, so give the program's folder, such as ${io.invokedAs} path/to/program --stack ${stack}`,
    );
  const stacks = stacksOf(readProject(dir));
  if (!stacks.includes(stack)) {
    const suggestion = nearest(stack, stacks);
    throw new UsageError(
      `no stack ${JSON.stringify(stack)} in ${arg === undefined ? "the current folder" : displayPath(dir)}: it has no Pulumi.${stack}.yaml` +
        (suggestion
          ? ` (did you mean ${JSON.stringify(suggestion)}?)`
          : ` (its stacks: ${stacks.join(", ") || "none"})`),
    );
  }
  return { program: dir, stack };
}
