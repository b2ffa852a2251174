import * as fs from "fs";
import * as os from "os";
import * as path from "path";

/**
 * The real tier's programs: each built from the Go module proxy (or PyPI, or git for the Google provider) by scripts/tools/build.sh into
 * the cache folder, named with its version. The versions are read from the pinned lines at the top of that
 * script, so a bump there is the only change. `<TOOL>_BIN` (the tool's name upper-cased, dashes as
 * underscores, e.g. KUBE_APISERVER_BIN, KUBE_APISERVER_LOWEST_BIN) names another binary for one tool.
 */

const root = path.resolve(__dirname, "../..");
export const buildScript = path.join(root, "scripts/tools/build.sh");

/** Each tool build.sh knows, with the variable holding its version. */
const toolVersions = {
  etcd: "ETCD_VERSION",
  "kube-apiserver": "KUBERNETES_VERSION",
  "kube-controller-manager": "KUBERNETES_VERSION",
  kubectl: "KUBERNETES_VERSION",
  "kube-apiserver-lowest": "KUBERNETES_LOWEST_VERSION",
  "kube-controller-manager-lowest": "KUBERNETES_LOWEST_VERSION",
  "cert-manager-controller": "CERT_MANAGER_VERSION",
  "cert-manager-cainjector": "CERT_MANAGER_VERSION",
  "trust-manager": "TRUST_MANAGER_VERSION",
  pulumi: "PULUMI_VERSION",
  "pulumi-resource-kubernetes": "PULUMI_KUBERNETES_VERSION",
  "pulumi-language-nodejs": "PULUMI_LANGUAGE_NODEJS_VERSION",
  "kube-score": "KUBE_SCORE_VERSION",
  checkov: "CHECKOV_VERSION",
  istioctl: "ISTIO_VERSION",
  "pulumi-resource-gcp": "PULUMI_GCP_VERSION",
} as const;

export type ToolName = keyof typeof toolVersions;

export interface Tool {
  readonly name: ToolName;
  /** The version build.sh pins (or "unknown" where the binary comes from `<TOOL>_BIN`). */
  readonly version: string;
  readonly path: string;
}

/**
 * The cache folder outside the work tree that build.sh and `npm run reference` write into, once per
 * machine (TOOLS_CACHE overrides it, as for build.sh).
 */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.TOOLS_CACHE ?? path.join(env.HOME ?? os.homedir(), ".cache/gke-mesh-platform");
}

/** The folder build.sh writes binaries into. */
export function binDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheDir(env), "bin");
}

let pinned: Map<string, string> | undefined;

/** The `NAME=value` lines at the top of build.sh. */
export function pinnedVersions(): ReadonlyMap<string, string> {
  pinned ??= new Map(
    [...fs.readFileSync(buildScript, "utf8").matchAll(/^([A-Z][A-Z0-9_]*)=(\S+)/gm)].map((m) => [m[1], m[2]]),
  );
  return pinned;
}

/** The version build.sh pins for a tool, as its binary's name carries it. */
export function toolVersion(name: ToolName): string {
  const variable = toolVersions[name];
  const value = pinnedVersions().get(variable);
  if (!value) throw new Error(`${buildScript} pins no ${variable}`);
  // A provider's version is written without the v; its binary's name has one, like every Go tool's.
  return name === "pulumi-resource-kubernetes" || name === "pulumi-resource-gcp" ? `v${value}` : value;
}

/** The binary's file name in the cache: the tool's, less `-lowest`, with its version. */
export function binaryName(name: ToolName): string {
  return `${name.replace(/-lowest$/, "")}-${toolVersion(name)}`;
}

function envName(name: ToolName): string {
  return `${name.toUpperCase().replace(/-/g, "_")}_BIN`;
}

/** A tool's binary: `<TOOL>_BIN` where set, else the cache's `<name>-<version>`; undefined where missing. */
export function findTool(name: ToolName, env: NodeJS.ProcessEnv = process.env): Tool | undefined {
  const override = env[envName(name)];
  if (override) return fs.existsSync(override) ? { name, version: "unknown", path: override } : undefined;
  const version = toolVersion(name);
  const file = path.join(binDir(env), binaryName(name));
  return fs.existsSync(file) ? { name, version, path: file } : undefined;
}

/** Every tool asked for, or the reason they cannot run: each missing one and the command that builds it. */
export type ToolSet<N extends ToolName> =
  | { readonly tools: { readonly [K in N]: Tool }; readonly skip?: undefined }
  | { readonly tools?: undefined; readonly skip: string };

export function requireTools<N extends ToolName>(
  names: readonly N[],
  env: NodeJS.ProcessEnv = process.env,
): ToolSet<N> {
  const found = new Map<N, Tool>();
  const missing: N[] = [];
  for (const name of names) {
    const tool = findTool(name, env);
    if (tool) found.set(name, tool);
    else missing.push(name);
  }
  if (missing.length > 0) {
    const what = missing.map((n) =>
      env[envName(n)]
        ? `${n} (${envName(n)}=${env[envName(n)]} does not exist)`
        : `${n} ${toolVersion(n)} (${path.join(binDir(env), binaryName(n))})`,
    );
    const relative = path.relative(process.cwd(), buildScript) || buildScript;
    return {
      skip: `missing ${what.join(", ")}: build with \`bash ${relative} ${missing.join(" ")}\``,
    };
  }
  return { tools: Object.fromEntries(found) as { [K in N]: Tool } };
}

/** The Kubernetes minors build.sh builds an API server for: its highest and lowest supported. */
export function kubernetesTools(kubernetesVersion: string): {
  readonly apiServer: ToolName;
  readonly controllerManager: ToolName;
  readonly version: string;
} {
  const minor = /^v?(\d+\.\d+)/.exec(kubernetesVersion)?.[1];
  const highest = toolVersion("kube-apiserver");
  const lowest = toolVersion("kube-apiserver-lowest");
  if (minor && highest.startsWith(`v${minor}.`))
    return { apiServer: "kube-apiserver", controllerManager: "kube-controller-manager", version: highest };
  if (minor && lowest.startsWith(`v${minor}.`))
    return {
      apiServer: "kube-apiserver-lowest",
      controllerManager: "kube-controller-manager-lowest",
      version: lowest,
    };
  throw new Error(
    `no API server is built for Kubernetes ${kubernetesVersion}: build.sh builds ${highest} and ${lowest}`,
  );
}
