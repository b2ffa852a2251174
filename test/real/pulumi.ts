import * as fs from "fs";
import * as path from "path";
import { MissingTools } from "./apiServer";
import { run } from "./processes";
import { binDir, requireTools, type Tool } from "./tools";

/**
 * The Pulumi engine built by scripts/tools/build.sh (../shared/reference/real-cluster.md): the CLI, the
 * Node.js language host (v3.68.0, the last in the sdk/v3 module; it runs @pulumi/pulumi 3.270's
 * JavaScript and TypeScript programs under CLI v3.274.1) and the Kubernetes provider, in one folder first on
 * PATH under the names the engine looks for (so the provider is an ambient plugin and nothing is
 * downloaded), with a file backend in `dir` and PULUMI_HOME in the cache. The provider is the one built (its version is printed by `describe()`), never
 * relabelled as the version @pulumi/kubernetes asks for.
 */

export const pulumiToolNames = ["pulumi", "pulumi-language-nodejs", "pulumi-resource-kubernetes"] as const;

export interface PulumiEngine {
  readonly tools: { readonly [K in (typeof pulumiToolNames)[number]]: Tool };
  /** The environment every pulumi command runs with. */
  readonly env: NodeJS.ProcessEnv;
  /** Runs `pulumi <args>` in a program's folder; resolves with its output. */
  pulumi(args: readonly string[], cwd: string): Promise<string>;
  /** The versions that run, for a tier's output. */
  describe(): string;
}

export function pulumiEngine(dir: string, extraEnv: NodeJS.ProcessEnv = {}): PulumiEngine {
  const set = requireTools(pulumiToolNames);
  if (!set.tools) throw new MissingTools(set.skip);
  const tools = set.tools;
  const bin = path.join(dir, "bin");
  const state = path.join(dir, "state");
  fs.mkdirSync(bin, { recursive: true });
  fs.mkdirSync(state, { recursive: true });
  // Hard links (copies across file systems), not symbolic links: the CLI looks for plugins beside its own
  // resolved path, and warns about each one it finds only on PATH.
  for (const name of pulumiToolNames) {
    try {
      fs.linkSync(tools[name].path, path.join(bin, name));
    } catch {
      fs.copyFileSync(tools[name].path, path.join(bin, name));
      fs.chmodSync(path.join(bin, name), 0o755);
    }
  }
  const home = path.join(path.dirname(binDir()), "pulumi-home");
  fs.mkdirSync(home, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // The language host runs the program with the node that runs this tier.
    PATH: [bin, path.dirname(process.execPath), process.env.PATH ?? ""].join(path.delimiter),
    PULUMI_HOME: home,
    PULUMI_BACKEND_URL: `file://${state}`,
    PULUMI_CONFIG_PASSPHRASE: "real-tier",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_SKIP_CONFIRMATIONS: "true",
    ...extraEnv,
  };
  return {
    tools,
    env,
    pulumi: (args, cwd) => run(tools.pulumi.path, [...args, "--non-interactive"], { env, cwd }),
    describe: () =>
      `pulumi ${tools.pulumi.version}, pulumi-language-nodejs ${tools["pulumi-language-nodejs"].version}, ` +
      `pulumi-resource-kubernetes ${tools["pulumi-resource-kubernetes"].version}`,
  };
}
