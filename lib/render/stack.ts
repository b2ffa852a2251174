import * as fs from "fs";
import * as path from "path";
import { MissingChartsError, findHelm } from "../cluster";
import { ConfigError, tiers, type Tier } from "../config";
import { chartDirOf } from "../deploy/chartSource";
import { checkInvariants, type Violation } from "../safety";
import { viewsOf } from "./views";
import { clusterInputOf } from "./clusterInput";
import { clusterObjectsOf, type ClusterObjects } from "./clusterObjects";
import { renderFiles } from "./files";
import { registerTypeScript } from "./loader";
import {
  RenderInputError,
  displayPath,
  readProject,
  readStackConfig,
  stacksOf,
  type StackConfig,
} from "./project";
import { renderProgram, type RenderProgress, type RenderResult } from "./run";

export interface RenderStackOptions {
  /** The program's folder: the one holding its Pulumi.yaml. */
  readonly program: string;
  /** Which stack: its config is `Pulumi.<stack>.yaml`. @default the program's only stack */
  readonly stack?: string;
  /**
   * Where to write the files. @default `out/<stack>` for the program in the working folder,
   * `out/<its path>/<stack>` for one below it, `out/<project name>/<stack>` for one elsewhere
   */
  readonly out?: string;
  /**
   * Write the files. Without, the render only checks: the config, the program, the safety
   * invariants and (with `chartsDir`) the cluster invariants. @default true
   */
  readonly write?: boolean;
  /** Called as the render goes: what it is doing, and how many resources are registered so far. */
  readonly onProgress?: (progress: RenderProgress) => void;
  /** Told how the program is loaded (for TypeScript: compiled, type-checked or not), before it is. */
  readonly onLoading?: (how: string) => void;
  /** Told which encrypted config values the render could not decrypt, and why, before it runs. */
  readonly onUndecrypted?: (undecrypted: NonNullable<StackConfig["undecrypted"]>) => void;
  /**
   * Load a TypeScript program with ts-node, as Pulumi's Node.js host does, unless the process
   * loads TypeScript already. @default true
   */
  readonly registerTypeScript?: boolean;
  /**
   * Type-check a TypeScript program as it is compiled, as `pulumi up` does; the render only transpiles
   * unless told to (or PULUMI_NODEJS_TRANSPILE_ONLY=false). @default false
   */
  readonly typeCheck?: boolean;
  /**
   * A folder holding the pinned charts the program installs (`helm pull --untar`; the README shows
   * how): each release is then templated by a real helm, joined with the program's objects and the
   * proxies admission adds, checked against the cluster invariants, and written to
   * `cluster-objects.yaml`. @default no chart folder: the program's own objects only
   */
  readonly chartsDir?: string;
  /** The helm binary for `chartsDir`. @default HELM, else helm on PATH */
  readonly helm?: string;
}

export interface RenderedStack {
  readonly result: RenderResult;
  /** The folder the files were (or, with `write: false`, would be) written to. */
  readonly outDir: string;
  /** The files written, by name: resources.yaml, manifests.yaml, helm-releases.yaml, graph.mmd, certificates.yaml (and cluster-objects.yaml); none with `write: false`. */
  readonly files: readonly string[];
  /** With `chartsDir`: what the cluster receives at each supported Kubernetes version, and what fails there. */
  readonly cluster?: ClusterObjects;
  /** Every safety invariant violated by the program's resources (docs/safety.md); empty when all hold. */
  readonly violations: readonly Violation[];
  /** How long the render took, in milliseconds. */
  readonly milliseconds: number;
}

/**
 * Renders one stack of any Pulumi program that uses the library, offline, and writes what
 * `pulumi up` would deploy: resources.yaml, manifests.yaml, helm-releases.yaml, graph.mmd and
 * certificates.yaml. The program runs as `pulumi up` runs it, under Pulumi's mock runtime, with the
 * stack's config, in its own folder.
 */
export async function renderStack(options: RenderStackOptions): Promise<RenderedStack> {
  const started = Date.now();
  const dir = path.resolve(options.program);
  const project = readProject(dir);
  const stack = options.stack ?? onlyStack(project.dir, stacksOf(project));
  const stackConfig = readStackConfig(project, stack);
  const source = displayPath(stackConfig.file);
  if (stackConfig.undecrypted) options.onUndecrypted?.(stackConfig.undecrypted);
  const outDir = path.resolve(options.out ?? defaultOutDir(project.dir, project.name, stack));
  const chartsDir = options.chartsDir === undefined ? undefined : path.resolve(options.chartsDir);
  if (options.registerTypeScript ?? true) {
    const how = registerTypeScript(project, { typeCheck: options.typeCheck });
    if (how) options.onLoading?.(how);
  }
  const progress = (phase: RenderProgress["phase"], result?: RenderResult) =>
    options.onProgress?.({
      phase,
      resources: result?.resources.filter((r) => r.custom).length ?? 0,
      components: result?.resources.filter((r) => !r.custom).length ?? 0,
    });

  let result: RenderResult;
  try {
    result = await renderProgram({
      project: project.name,
      stack,
      config: stackConfig.config,
      secretKeys: stackConfig.secretKeys,
      onProgress: options.onProgress,
      // `pulumi up` runs a program in its own folder, so a relative path in it (or in its config, such
      // as a kubeconfig file) is the program's folder's; so does the render.
      cwd: project.dir,
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- the program is loaded the way Pulumi's nodejs host loads it
      program: () => require(project.main) as unknown,
    });
  } catch (err) {
    // A config problem found by a component, which knows the field but not the file, names the file.
    if (err instanceof ConfigError && err.source === undefined) throw new ConfigError(err.problems, source);
    throw err;
  }

  progress("checking", result);
  const violations = checkInvariants(viewsOf(result));
  let cluster: ClusterObjects | undefined;
  if (chartsDir) {
    const helm = options.helm ?? findHelm();
    missingCharts(`${project.name}/${stack}`, result, tierOf(stackConfig.config), chartsDir, helm);
    progress("templating", result);
    cluster = await clusterObjectsOf(`${project.name}/${stack}`, result, {
      chartsDir,
      helm,
      tier: tierOf(stackConfig.config),
    });
  }
  const files = options.write === false ? {} : renderFiles(result);
  if (cluster && options.write !== false) files["cluster-objects.yaml"] = cluster.file;
  if (options.write !== false) {
    progress("writing", result);
    fs.mkdirSync(outDir, { recursive: true });
    for (const [file, content] of Object.entries(files)) fs.writeFileSync(path.join(outDir, file), content);
  }
  return {
    result,
    outDir,
    files: Object.keys(files),
    cluster,
    violations,
    milliseconds: Date.now() - started,
  };
}

/** What the render says where helm is absent: the templating needs it, and so do the pulls. */
export const noHelm =
  "no helm binary: --charts templates each release with Helm 3; install it (https://helm.sh/docs/intro/install/) or set HELM to its path";

/**
 * Before helm is asked anything: every chart the render installs must be in the folder, or the render
 * names each missing one with the `helm pull` that fetches it (and, where helm is absent too, says so).
 */
function missingCharts(
  label: string,
  result: RenderResult,
  tier: Tier,
  chartsDir: string,
  helm: string | undefined,
): void {
  const { releases } = clusterInputOf(label, tier, result);
  const missing = releases.filter((r) => !chartDirOf(chartsDir, r.chart, r.version));
  if (missing.length > 0) {
    const error = new MissingChartsError(chartsDir, missing);
    if (!helm) error.message += `\n${noHelm}; the helm pull commands need it too`;
    throw error;
  }
  if (!helm) throw new RenderInputError(noHelm);
}

/** The stack's tier, which production sizing is judged by; a program without one is judged as dev. */
function tierOf(config: Readonly<Record<string, string>>): Tier {
  const tier = config["platform:tier"];
  return (tiers as readonly string[]).includes(tier ?? "") ? (tier as Tier) : "dev";
}

/**
 * One folder per stack, under `out/` of the working folder: `out/<stack>` for the program there,
 * `out/<its path>/<stack>` for one below it, `out/<project name>/<stack>` for one elsewhere.
 */
export function defaultOutDir(
  programDir: string,
  projectName: string,
  stack: string,
  cwd = process.cwd(),
): string {
  const relative = path.relative(cwd, programDir);
  if (relative === "") return path.join("out", stack);
  const inside = !relative.startsWith("..") && !path.isAbsolute(relative);
  return path.join("out", inside ? relative : projectName, stack);
}

function onlyStack(dir: string, stacks: readonly string[]): string {
  if (stacks.length === 1) return stacks[0];
  throw new RenderInputError(
    stacks.length === 0
      ? `${displayPath(dir)} has no stack: its config goes in Pulumi.<stack>.yaml, such as Pulumi.dev.yaml`
      : `${displayPath(dir)} has ${stacks.length} stacks (${stacks.join(", ")}): say which, such as stack: "${stacks[0]}"`,
  );
}
