import { spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { findHelm } from "../cluster";
import { nodeFloorProblem } from "./nodeFloor";

/**
 * `gke-mesh-platform preflight`: the tools on this machine, each found or not, with what needs it and
 * how to get it. Local only: it asks no cloud and no cluster (checking a cluster is `doctor`'s).
 * `init` prints it too, so a new program's owner knows what is missing before it is needed.
 */

export interface ToolCheck {
  readonly tool: string;
  /** Found and usable; false where it is missing or too old. */
  readonly ok: boolean;
  /** The version found, or where. */
  readonly found?: string;
  /** What needs it. */
  readonly neededFor: string;
  /** How to get it, where it is missing or too old. */
  readonly fix?: string;
  /** The render and the tests cannot run without it. */
  readonly required: boolean;
}

/** Where a command is on PATH, if it is. */
export function onPath(command: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const extensions = process.platform === "win32" ? (env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";") : [""];
  for (const dir of (env.PATH ?? "").split(path.delimiter).filter(Boolean)) {
    for (const ext of extensions) {
      const file = path.join(dir, `${command}${ext}`);
      try {
        if (fs.statSync(file).isFile()) return file;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/** The first line a command prints for its version, or undefined where it does not run. */
function versionOf(file: string, args: readonly string[]): string | undefined {
  const result = spawnSync(file, args, {
    encoding: "utf8",
    timeout: 15_000,
    shell: process.platform === "win32",
  });
  if (result.status !== 0) return undefined;
  return `${result.stdout}${result.stderr}`.trim().split("\n")[0];
}

/** Checks each local tool the platform's workflow uses, in the order a new user meets them. */
export function preflight(env: NodeJS.ProcessEnv = process.env): ToolCheck[] {
  const checks: ToolCheck[] = [];
  const nodeProblem = nodeFloorProblem(process.versions.node);
  checks.push({
    tool: "Node.js",
    ok: nodeProblem === undefined,
    found: process.versions.node,
    neededFor: "the render, the tests and pulumi up",
    ...(nodeProblem ? { fix: nodeProblem.slice(nodeProblem.indexOf(": ") + 2) } : {}),
    required: true,
  });
  const npm = onPath("npm", env);
  checks.push({
    tool: "npm",
    ok: npm !== undefined,
    ...(npm ? { found: versionOf(npm, ["--version"]) ?? npm } : {}),
    neededFor: "installing the program's packages",
    ...(npm ? {} : { fix: "npm comes with Node.js (https://nodejs.org/en/download)" }),
    required: true,
  });
  const helm = findHelm(env);
  const helmVersion = helm ? versionOf(helm, ["version", "--short"]) : undefined;
  checks.push({
    tool: "helm",
    ok: helm !== undefined && /^v3\./.test(helmVersion ?? ""),
    ...(helm ? { found: `${helmVersion ?? "does not run"} (${helm})` } : {}),
    neededFor:
      "render --charts: templating every release with the pinned charts, and the helm pull that fetches them",
    ...(helm && /^v3\./.test(helmVersion ?? "")
      ? {}
      : { fix: "install Helm 3 (https://helm.sh/docs/intro/install/), or set HELM to its path" }),
    required: false,
  });
  const tools: [string, string, string, string[] | undefined][] = [
    [
      "pulumi",
      "pulumi up: deploying",
      "install the Pulumi CLI (https://www.pulumi.com/docs/install/)",
      ["version"],
    ],
    [
      "gcloud",
      "signing in to Google Cloud (gcloud auth application-default login)",
      "install the Google Cloud SDK (https://cloud.google.com/sdk/docs/install)",
      undefined,
    ],
    [
      "gke-gcloud-auth-plugin",
      "reaching a GKE cluster: the kubeconfig the platform makes authenticates through it",
      "gcloud components install gke-gcloud-auth-plugin",
      undefined,
    ],
  ];
  for (const [tool, neededFor, fix, versionArgs] of tools) {
    const file = onPath(tool, env);
    checks.push({
      tool,
      ok: file !== undefined,
      ...(file ? { found: (versionArgs && versionOf(file, versionArgs)) || file } : {}),
      neededFor,
      ...(file ? {} : { fix }),
      required: false,
    });
  }
  return checks;
}

/** The checks as lines: `ok`, or `missing` with what needs the tool and how to get it. */
export function preflightText(checks: readonly ToolCheck[]): string {
  const width = Math.max(...checks.map((c) => c.tool.length));
  return checks
    .map((c) =>
      c.ok
        ? `  ok       ${c.tool.padEnd(width)}  ${c.found ?? ""}`.trimEnd()
        : `  ${c.found ? "unusable" : "missing "} ${c.tool.padEnd(width)}  for ${c.neededFor}; ${c.fix ?? ""}`,
    )
    .join("\n");
}
