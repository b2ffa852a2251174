import * as pulumi from "@pulumi/pulumi";
import type { RemoteChildren } from "../safety";
import { collectTurnFailures } from "../deploy/turns";
import { applyOrder } from "./graph";
import { OfflineMocks } from "./mocks";
import { plainOutputs, plainValue, showSecrets } from "./plainValues";
import { silenceStackTraces } from "./stackTraces";

/** The options of a resource that matter to a reviewer of a deployment. */
export interface RenderedOptions {
  readonly protect: boolean;
  readonly retainOnDelete: boolean;
  /** Unset: the provider decides (for a resource with a fixed name, delete first). */
  readonly deleteBeforeReplace?: boolean;
  readonly ignoreChanges: readonly string[];
  readonly replaceOnChanges: readonly string[];
}

/**
 * What a remote component's `transforms` make of the children its provider registers at deploy, which
 * the render never sees: each transform is run on one CustomResourceDefinition and one other object.
 */
/** What a remote component's transforms do to its children (lib/safety `ResourceView`). */
export type { RemoteChildren };
export { secretText } from "./plainValues";

/** One resource the program registered, as `pulumi up` would register it. */
export interface RenderedResource {
  /** `type::name`, unique in a stack. */
  readonly key: string;
  readonly type: string;
  readonly name: string;
  /** False for component resources (groupings with no cloud object); true for remote components, as leaves. */
  readonly custom: boolean;
  /**
   * A remote component (a multi-language one, such as helm.v4.Chart): its provider registers its children
   * at deploy, so the render sees its inputs but never its children, and takes it as one deployable leaf.
   */
  readonly remote?: boolean;
  /** For a remote component: what its transforms make of its children. */
  readonly children?: RemoteChildren;
  /** Read from the cloud or cluster (`.get`), not created by the program. */
  readonly read: boolean;
  /** Key of the parent; undefined for resources directly under the stack. */
  readonly parent?: string;
  /** Key of the explicit provider resource, for custom resources. */
  readonly provider?: string;
  /** Keys of the resources named in `dependsOn`. */
  readonly dependsOn: readonly string[];
  /** Keys of every custom resource this one waits for: dependsOn (components expanded), inputs, provider. */
  readonly dependencies: readonly string[];
  readonly options: RenderedOptions;
  /** Resolved inputs, secrets shown as `[secret]`; empty for components. */
  readonly inputs: Readonly<Record<string, unknown>>;
}

export interface RenderResult {
  readonly project: string;
  readonly stack: string;
  /** In registration order. */
  readonly resources: readonly RenderedResource[];
  /**
   * The custom resources (the same objects as in `resources`) in the order `pulumi up` may create them,
   * computed once by the render (`applyOrder`): every file, the summary, the critical path and the graphs
   * follow it. A result made with other resources takes their `applyOrder`.
   */
  readonly order: readonly RenderedResource[];
  /** Stack outputs, secrets shown as `[secret]`. */
  readonly outputs: Readonly<Record<string, unknown>>;
  /** Warnings the program logged. */
  readonly warnings: readonly string[];
}

export interface RenderProgramArgs {
  readonly project: string;
  readonly stack: string;
  /** Flat Pulumi config (`namespace:key` to string; structured values as JSON). */
  readonly config: Record<string, string>;
  /** Config keys that hold secrets. */
  readonly secretKeys?: readonly string[];
  /** The Pulumi program: what its entry module exports (a function, or an object of outputs). */
  readonly program: () => unknown;
  /**
   * The folder the program runs in, as `pulumi up` runs a program in its project's folder (so a relative
   * path in it is the project's). @default the current folder
   */
  readonly cwd?: string;
  /**
   * Called as the render goes: once as the program is loaded, after each resource or component it
   * registers, then once per later phase.
   */
  readonly onProgress?: (progress: RenderProgress) => void;
}

/**
 * How far a render is: `loading` the program's module (for TypeScript, compiling it), the program
 * `registering` resources, the render `resolving` what they wait for; then, in `renderStack`,
 * `checking` the invariants, `templating` the Helm releases (with a chart folder) and `writing` the files.
 */
export interface RenderProgress {
  readonly phase: "loading" | "registering" | "resolving" | "checking" | "templating" | "writing";
  /**
   * Resources registered so far: custom resources (a cloud or cluster object each, remote components
   * included), never the components that group them, as in the render's summary.
   */
  readonly resources: number;
  /** Components registered so far. */
  readonly components: number;
}

/** What a transformation sees; components may also carry `providers` for their children. */
type SeenOptions = pulumi.ResourceOptions &
  Pick<pulumi.CustomResourceOptions, "deleteBeforeReplace"> &
  Pick<pulumi.ComponentResourceOptions, "providers">;

interface Recorded {
  readonly custom: boolean;
  readonly resource: pulumi.Resource;
  readonly type: string;
  readonly name: string;
  readonly opts: SeenOptions;
  /** Known at registration where the inputs hold no Output (most objects): no promise held till the end. */
  readonly inputDependencies: readonly pulumi.Resource[] | Promise<pulumi.Resource[]>;
}

/**
 * Runs a Pulumi program under the SDK's mock runtime, exactly as `pulumi up` would evaluate it, and
 * returns every resource with its options, dependencies and resolved inputs.
 */
export function renderProgram(args: RenderProgramArgs): Promise<RenderResult> {
  if (insideLiveEngine()) return Promise.reject(new Error(liveEngineRefusal));
  // The SDK's runtime is one per process: renders take turns, whoever calls them.
  const turn = queue.then(() => renderAlone(args));
  queue = turn.then(
    () => undefined,
    () => undefined,
  );
  return turn;
}

let queue: Promise<void> = Promise.resolve();

/** Why renderProgram does not run inside a deployment. */
export const liveEngineRefusal =
  "renderProgram evaluates a program under Pulumi's mock runtime, which would take this process's Pulumi SDK off the engine it deploys with: it does not run inside pulumi up or pulumi preview. Render from outside the program (gke-mesh-platform render, or gke-mesh-platform/render in a script of its own); a program that deploys imports gke-mesh-platform only.";

/**
 * Whether this process's Pulumi SDK is connected to a live engine (`pulumi up`, `preview`): its resource
 * monitor is then a gRPC client; under a render's mocks it is the SDK's MockMonitor (@pulumi/pulumi
 * runtime/mocks.js `setMocks`), and with neither there is none (runtime/settings.js `getMonitor`).
 */
function insideLiveEngine(): boolean {
  const monitor: object | undefined = pulumi.runtime.getMonitor();
  return monitor !== undefined && monitor.constructor.name !== "MockMonitor";
}

/**
 * Runs a program under the same mock runtime with none of the render's bookkeeping (no record of
 * resources, options, inputs or dependencies): what evaluating the program costs, as under `pulumi up`.
 * For the bench (scripts/bench.ts) only; not exported from gke-mesh-platform/render.
 */
export async function evaluateProgram(
  args: Pick<RenderProgramArgs, "project" | "stack" | "config" | "program">,
): Promise<void> {
  const turn = queue.then(async () => {
    await pulumi.runtime.setMocks(new OfflineMocks(false), args.project, args.stack, false);
    pulumi.runtime.setAllConfig(args.config, []);
    // As in a render, but with the stacks' source positions, which `pulumi up` reads too.
    const restoreStackTraces = silenceStackTraces({ firstLineOnly: false });
    try {
      const { failure } = await runStack(args.program);
      if (failure) throw failure.error;
    } finally {
      restoreStackTraces();
    }
  });
  queue = turn.then(
    () => undefined,
    () => undefined,
  );
  return turn;
}

/**
 * Runs a program in a stack under the mock runtime and waits for the runtime to settle. A program error
 * is caught inside the stack and returned once the runtime has settled (thrown through the SDK, it
 * would also surface as an unhandled rejection and end the process), as is the first error of a unit
 * the program built on a later turn (lib/deploy/turns.ts).
 */
async function runStack(
  program: RenderProgramArgs["program"],
  before?: () => void,
): Promise<{ outputs?: unknown; failure?: { error: unknown } }> {
  let outputs: unknown;
  let failure: { error: unknown } | undefined;
  const stopCollecting = collectTurnFailures((error) => {
    failure ??= { error };
  });
  try {
    await pulumi.runtime.runInPulumiStack(async () => {
      try {
        before?.();
        const exported = program();
        outputs = await (typeof exported === "function" ? (exported as () => unknown)() : exported);
      } catch (error) {
        failure = { error };
      }
      return undefined;
    });
    await pulumi.runtime.disconnect();
  } finally {
    stopCollecting();
  }
  return { outputs, failure };
}

async function renderAlone(args: RenderProgramArgs): Promise<RenderResult> {
  const mocks = new OfflineMocks();
  await pulumi.runtime.setMocks(mocks, args.project, args.stack, false);
  pulumi.runtime.setAllConfig(args.config, [...(args.secretKeys ?? [])]);

  const recorded: Omit<Recorded, "custom">[] = [];
  const onProgress = args.onProgress;
  // Whether a resource is custom is known once its base constructor has returned, so each one is counted
  // when the next registers (by then every earlier one has), and the last when the program is done.
  const counts = { resources: 0, components: 0, counted: 0 };
  const countUpTo = (end: number): RenderProgress["phase"] => {
    for (; counts.counted < end; counts.counted++) {
      if (isCustom(recorded[counts.counted].resource)) counts.resources++;
      else counts.components++;
    }
    return "registering";
  };
  const report = (phase: RenderProgress["phase"]) =>
    onProgress?.({ phase, resources: counts.resources, components: counts.components });
  const transformation: pulumi.ResourceTransformation = ({ resource, type, name, props, opts }) => {
    report(countUpTo(recorded.length));
    recorded.push({
      resource,
      type,
      name,
      opts,
      inputDependencies: resourcesIn(props),
    });
    return undefined;
  };

  const warnings: string[] = [];
  const consoleWarn = console.warn;
  const restoreStackTraces = silenceStackTraces({ firstLineOnly: true });
  // Without an engine, the SDK prints `pulumi.log.warn` through console.warn; collect it instead.
  console.warn = (...parts: unknown[]) => {
    warnings.push(
      parts
        .map(String)
        .join(" ")
        .replace(/^warning: \[runtime\] /, ""),
    );
  };
  const cwd = process.cwd();
  let ran: Awaited<ReturnType<typeof runStack>>;
  try {
    if (args.cwd !== undefined) process.chdir(args.cwd);
    ran = await runStack(args.program, () => {
      pulumi.runtime.registerStackTransformation(transformation);
      report("loading");
    });
  } finally {
    process.chdir(cwd);
    console.warn = consoleWarn;
    restoreStackTraces();
  }
  if (ran.failure) throw ran.failure.error;

  countUpTo(recorded.length);
  report("resolving");
  const resources = await assemble(recorded, mocks);
  return {
    project: args.project,
    stack: args.stack,
    resources,
    order: applyOrder(resources),
    outputs: await plainOutputs(ran.outputs),
    warnings,
  };
}

async function assemble(
  records: readonly Omit<Recorded, "custom">[],
  mocks: OfflineMocks,
): Promise<RenderedResource[]> {
  // Known only once constructors have finished: the transformation runs inside the base constructor.
  const recorded: Recorded[] = records.map((r) => ({
    ...r,
    custom: isCustom(r.resource),
  }));
  const keyOf = new Map<pulumi.Resource, string>();
  const byKey = new Map<string, Recorded>();
  for (const r of recorded) {
    const key = `${r.type}::${r.name}`;
    if (byKey.has(key)) {
      throw new Error(`two resources are named ${key}; give each resource of a type its own name`);
    }
    keyOf.set(r.resource, key);
    byKey.set(key, r);
  }
  const parentOf = (r: Recorded): Recorded | undefined => {
    const key = r.opts.parent ? keyOf.get(r.opts.parent) : undefined;
    return key ? byKey.get(key) : undefined;
  };
  const children = new Map<string, string[]>();
  for (const r of recorded) {
    const parent = parentOf(r);
    if (parent) {
      const list = children.get(keyOf.get(parent.resource) ?? "") ?? [];
      list.push(`${r.type}::${r.name}`);
      children.set(keyOf.get(parent.resource) ?? "", list);
    }
  }
  /** A component stands for every custom resource beneath it (each component's found once). */
  const under = new Map<string, string[]>();
  const customsUnder = (key: string): string[] => {
    const r = byKey.get(key);
    if (!r) return [];
    if (r.custom) return [key];
    const known = under.get(key);
    if (known) return known;
    const found = (children.get(key) ?? []).flatMap(customsUnder);
    under.set(key, found);
    return found;
  };
  const protectOf = (r: Recorded): boolean =>
    r.opts.protect ?? (parentOf(r) ? protectOf(parentOf(r) as Recorded) : false);
  const providerOf = (r: Recorded, pkg: string): pulumi.ProviderResource | undefined => {
    for (let cur: Recorded | undefined = r; cur; cur = parentOf(cur)) {
      const found = [cur.opts.provider, ...providersIn(cur.opts.providers)].find(
        (p) => p !== undefined && keyOf.get(p)?.startsWith(`pulumi:providers:${pkg}::`),
      );
      if (found) return found;
    }
    return undefined;
  };

  const out: RenderedResource[] = [];
  for (const r of recorded) {
    const key = `${r.type}::${r.name}`;
    // Pulumi waits once for a resource named twice in dependsOn; so does the review.
    const explicit = [
      ...new Set((await dependsOnList(r.opts.dependsOn)).map((d) => keyOf.get(d)).filter(isString)),
    ];
    const implicit = (await r.inputDependencies).map((d) => keyOf.get(d)).filter(isString);
    const provider = r.custom ? providerOf(r, r.type.split(":")[0]) : undefined;
    const providerKey = provider ? keyOf.get(provider) : undefined;
    const dependencies = new Set<string>([...explicit, ...implicit].flatMap(customsUnder));
    if (providerKey) dependencies.add(providerKey);
    dependencies.delete(key);
    const parent = parentOf(r);
    const remote = isRemote(r.resource);
    out.push({
      key,
      type: r.type,
      name: r.name,
      custom: r.custom,
      ...(remote ? { remote, children: await remoteChildren(r.opts.transforms ?? []) } : {}),
      read: r.opts.id !== undefined,
      parent: parent ? keyOf.get(parent.resource) : undefined,
      provider: providerKey,
      dependsOn: explicit,
      dependencies: [...dependencies].sort(),
      options: {
        protect: protectOf(r),
        retainOnDelete: r.opts.retainOnDelete ?? false,
        deleteBeforeReplace: r.opts.deleteBeforeReplace,
        ignoreChanges: [...(r.opts.ignoreChanges ?? [])],
        replaceOnChanges: [...(r.opts.replaceOnChanges ?? [])],
      },
      inputs: r.custom
        ? (showSecrets(mocks.resources.get(key)?.inputs ?? {}) as Record<string, unknown>)
        : {},
    });
  }
  return out;
}

/** A resource with an object in the cloud or cluster: a custom resource, or a remote component taken as one. */
function isCustom(resource: pulumi.Resource): boolean {
  return pulumi.CustomResource.isInstance(resource) || isRemote(resource);
}

/** A remote component: the SDK's ComponentResource keeps the flag as `__remote` (@pulumi/pulumi resource.js). */
function isRemote(resource: pulumi.Resource): boolean {
  return (resource as unknown as { __remote?: unknown }).__remote === true;
}

/** Runs a component's transforms, in order, on one child as its provider would register it. */
async function transformed(
  transforms: readonly pulumi.ResourceTransform[],
  child: pulumi.ResourceTransformArgs,
): Promise<pulumi.ResourceTransformArgs> {
  let cur = child;
  for (const t of transforms) {
    const result = await t(cur);
    if (result) cur = { ...cur, props: result.props, opts: result.opts };
  }
  return cur;
}

/** What the transforms make of a CRD child, and whether they refuse any other child. */
async function remoteChildren(transforms: readonly pulumi.ResourceTransform[]): Promise<RemoteChildren> {
  const child = (apiVersion: string, kind: string, name: string): pulumi.ResourceTransformArgs => ({
    custom: true,
    type: `kubernetes:${apiVersion.includes("/") ? apiVersion : `core/${apiVersion}`}:${kind}`,
    name,
    props: { apiVersion, kind, metadata: { name } },
    opts: {},
  });
  const crd = await transformed(
    transforms,
    child("apiextensions.k8s.io/v1", "CustomResourceDefinition", "probes.render.example"),
  );
  let crdsOnly = false;
  try {
    await transformed(transforms, child("v1", "ConfigMap", "probe"));
  } catch {
    crdsOnly = true;
  }
  const metadata = (await plainValue(crd.props.metadata)) as
    { annotations?: Record<string, string> } | undefined;
  return {
    crd: { retainOnDelete: crd.opts.retainOnDelete ?? false, annotations: { ...metadata?.annotations } },
    crdsOnly,
  };
}

function providersIn(providers: SeenOptions["providers"]): pulumi.ProviderResource[] {
  if (!providers) return [];
  return Array.isArray(providers) ? providers : Object.values(providers);
}

function dependsOnList(
  dependsOn: pulumi.ResourceOptions["dependsOn"],
): readonly pulumi.Resource[] | Promise<pulumi.Resource[]> {
  // Most programs name resources themselves: known now, without a wait per resource named.
  if (dependsOn === undefined) return noResources;
  if (pulumi.Resource.isInstance(dependsOn)) return [dependsOn];
  if (Array.isArray(dependsOn) && dependsOn.every((d) => pulumi.Resource.isInstance(d))) {
    return dependsOn;
  }
  return waitedDependsOn(dependsOn);
}

async function waitedDependsOn(dependsOn: pulumi.ResourceOptions["dependsOn"]): Promise<pulumi.Resource[]> {
  const value = await dependsOn;
  if (!value) return [];
  const list = Array.isArray(value) ? value : [value];
  return Promise.all(list.map(async (d) => d as pulumi.Resource));
}

/** The SDK tracks which resources an Output came from; its `allResources` is not in the typings. */
interface OutputWithResources {
  allResources?: () => Promise<Set<pulumi.Resource>>;
  resources?: () => Set<pulumi.Resource>;
}

const noResources: readonly pulumi.Resource[] = [];

/** Every resource an input refers to, through Outputs or directly. */
function resourcesIn(value: unknown): readonly pulumi.Resource[] | Promise<pulumi.Resource[]> {
  // One synchronous walk; inputs are mostly plain data, known now, and only Outputs are waited for.
  const resources: pulumi.Resource[] = [];
  const outputs: OutputWithResources[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (depth > 32 || v === null || typeof v !== "object" || v instanceof Promise) return;
    if (pulumi.Resource.isInstance(v)) resources.push(v);
    else if (pulumi.Output.isInstance(v)) outputs.push(v as unknown as OutputWithResources);
    else
      for (const child of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>))
        walk(child, depth + 1);
  };
  walk(value, 0);
  if (outputs.length === 0) return resources.length === 0 ? noResources : resources;
  return Promise.all(
    outputs.map(async (o) => [...(o.allResources ? await o.allResources() : (o.resources?.() ?? []))]),
  ).then((viaOutputs) => [...resources, ...viaOutputs.flat()]);
}

function isString(v: string | undefined): v is string {
  return typeof v === "string";
}
