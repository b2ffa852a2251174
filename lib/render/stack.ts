import * as fs from "fs";
import * as path from "path";
import { tiers, type Tier } from "../config";
import { checkInvariants, viewsOf, type Violation } from "../safety";
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
  /** Called as the render goes, for progress on long renders. */
  readonly onProgress?: (progress: RenderProgress) => void;
  /** Told which encrypted config values the render could not decrypt, and why, before it runs. */
  readonly onUndecrypted?: (undecrypted: NonNullable<StackConfig["undecrypted"]>) => void;
  /**
   * Load a TypeScript program with ts-node, as Pulumi's Node.js host does, unless the process
   * loads TypeScript already. @default true
   */
  readonly registerTypeScript?: boolean;
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
  /** The folder the files were written to. */
  readonly outDir: string;
  /** The files written, by name: resources.yaml, manifests.yaml, helm-releases.yaml, graph.mmd, certificates.yaml (and cluster-objects.yaml). */
  readonly files: readonly string[];
  /** With `chartsDir`: what the cluster receives at each supported Kubernetes version, and what fails there. */
  readonly cluster?: ClusterObjects;
  /** Every safety invariant violated by the program's resources (docs/safety.md); empty when all hold. */
  readonly violations: readonly Violation[];
}

/**
 * Renders one stack of any Pulumi program that uses the library, offline, and writes what
 * `pulumi up` would deploy: resources.yaml, manifests.yaml, helm-releases.yaml, graph.mmd and
 * certificates.yaml. The
 * program runs as `pulumi up` runs it, under Pulumi's mock runtime, with the stack's config.
 */
export async function renderStack(options: RenderStackOptions): Promise<RenderedStack> {
  const dir = path.resolve(options.program);
  const project = readProject(dir);
  const stack = options.stack ?? onlyStack(project.dir, stacksOf(project));
  const stackConfig = readStackConfig(project, stack);
  if (stackConfig.undecrypted) options.onUndecrypted?.(stackConfig.undecrypted);
  if (options.registerTypeScript ?? true) registerTypeScript(project);
  const result = await renderProgram({
    project: project.name,
    stack,
    config: stackConfig.config,
    secretKeys: stackConfig.secretKeys,
    onProgress: options.onProgress,
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the program is loaded the way Pulumi's nodejs host loads it
    program: () => require(project.main) as unknown,
  });
  const outDir = options.out ?? defaultOutDir(project.dir, project.name, stack);
  fs.mkdirSync(outDir, { recursive: true });
  const files = renderFiles(result);
  const cluster = options.chartsDir
    ? await clusterObjectsOf(`${project.name}/${stack}`, result, {
        chartsDir: path.resolve(options.chartsDir),
        helm: options.helm,
        tier: tierOf(stackConfig.config),
      })
    : undefined;
  if (cluster) files["cluster-objects.yaml"] = cluster.file;
  for (const [file, content] of Object.entries(files)) fs.writeFileSync(path.join(outDir, file), content);
  return { result, outDir, files: Object.keys(files), cluster, violations: checkInvariants(viewsOf(result)) };
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
