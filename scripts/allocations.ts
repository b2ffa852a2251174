import { execFileSync } from "child_process";
import * as fs from "fs";
import * as inspector from "inspector";
import * as os from "os";
import * as path from "path";
import {
  evaluateBench,
  floorResources,
  floorTurn,
  nodeFlags,
  renderBench,
  renderFloor,
  type FloorResource,
} from "./bench";

/**
 * `npm run bench:allocations`: where the bytes a render (or the `pulumi up`-shaped evaluation) allocates
 * come from. Runs the bench's environment of N apps in a fresh process with the bench's Node flags under
 * V8's sampling heap profiler, keeping the samples of objects that garbage collection has already freed
 * (so it counts garbage, not only what is live at the end), and prints the bytes by package, the top
 * allocating functions, and the library's functions whose calls the bytes are made under.
 *
 *   npm run bench:allocations -- --apps=1000 --kind=render --top=25 --interval=16384
 *
 * `--kind=deploy` measures the program as `pulumi up` evaluates it (scripts/bench.ts `evaluateBench`);
 * `--kind=floor` the bench's Kubernetes-objects floor (the same objects registered directly, rendered
 * first, outside the profile), so the SDK's own share shows beside the platform's.
 * `--live` keeps only the objects still live when the run ends: what the run holds on to, not its garbage.
 * `--json=FILE` also writes the aggregated figures, to compare two runs.
 */

/** One node of V8's sampling heap profile (Chrome DevTools protocol HeapProfiler.SamplingHeapProfileNode). */
interface ProfileNode {
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
    readonly columnNumber: number;
  };
  readonly selfSize: number;
  readonly children: readonly ProfileNode[];
}

/** Where a function's code lives, by the package (or the library's own folder) its file is in. */
export function packageOf(url: string): string {
  const file = url.replace(/^file:\/\//, "");
  const nm = file.lastIndexOf("/node_modules/");
  if (nm !== -1) {
    const rest = file.slice(nm + "/node_modules/".length).split("/");
    const pkg = rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0];
    return ["cdk8s", "cdk8s-plus-27", "constructs"].includes(pkg) ? `cdk8s (${pkg})` : pkg;
  }
  const root = path.resolve(__dirname, "..");
  if (file.startsWith(`${root}/lib/`)) return "library (lib/)";
  if (file.startsWith(`${root}/`)) return `project (${path.relative(root, file).split("/")[0]}/)`;
  if (file === "") return "V8 / native";
  return "Node.js";
}

const isLibrary = (url: string) => packageOf(url) === "library (lib/)";

function site(frame: ProfileNode["callFrame"]): string {
  const root = path.resolve(__dirname, "..");
  const file = frame.url.replace(/^file:\/\//, "").replace(`${root}/`, "");
  const short = file.includes("/node_modules/") ? file.slice(file.lastIndexOf("/node_modules/") + 14) : file;
  // The project's own TypeScript runs compiled by tsx, whose line numbers are not the source's: its
  // functions are named by name and file only.
  const line = file.startsWith("lib/") || file.startsWith("scripts/") ? "" : `:${frame.lineNumber + 1}`;
  return `${frame.functionName || "(anonymous)"} ${short || "(native)"}${line}`;
}

export interface Aggregate {
  readonly totalBytes: number;
  /** Bytes allocated by code of each package (self). */
  readonly byPackage: Record<string, number>;
  /** Bytes allocated directly in each function. */
  readonly self: Record<string, number>;
  /** Bytes allocated in each function or anything it called (each stack counted once per function). */
  readonly inclusive: Record<string, number>;
  /** Bytes by the innermost library function on the stack, split by the package that allocated them. */
  readonly libraryCaller: Record<string, Record<string, number>>;
}

export function aggregate(head: ProfileNode): Aggregate {
  const byPackage: Record<string, number> = {};
  const self: Record<string, number> = {};
  const inclusive: Record<string, number> = {};
  const libraryCaller: Record<string, Record<string, number>> = {};
  let totalBytes = 0;
  const add = (m: Record<string, number>, k: string, v: number) => (m[k] = (m[k] ?? 0) + v);
  // Iterative walk: stacks under the SDK's promise chains are deep.
  const stack: { node: ProfileNode; frames: readonly string[]; lib?: string }[] = [
    { node: head, frames: [] },
  ];
  while (stack.length > 0) {
    const { node, frames, lib: outerLib } = stack.pop() as (typeof stack)[number];
    const here = site(node.callFrame);
    const lib = isLibrary(node.callFrame.url) ? here : outerLib;
    const path_ = [...frames, here];
    if (node.selfSize > 0) {
      const bytes = node.selfSize;
      totalBytes += bytes;
      const pkg = packageOf(node.callFrame.url);
      add(byPackage, pkg, bytes);
      add(self, `${here} [${pkg}]`, bytes);
      for (const f of new Set(path_)) add(inclusive, f, bytes);
      add((libraryCaller[lib ?? "(no library frame)"] ??= {}), pkg, bytes);
    }
    for (const child of node.children) stack.push({ node: child, frames: path_, lib });
  }
  return { totalBytes, byPackage, self, inclusive, libraryCaller };
}

const mb = (b: number) => `${(b / 2 ** 20).toFixed(1)} MB`;

function top(m: Record<string, number>, n: number): [string, number][] {
  return Object.entries(m)
    .sort((a, b) => b[1] - a[1])
    .slice(0, n);
}

export function print(a: Aggregate, n: number): void {
  const pct = (b: number) => `${((100 * b) / a.totalBytes).toFixed(1)}%`;
  console.log(`Sampled allocation: ${mb(a.totalBytes)}\n\nBy package (bytes allocated in its code):`);
  for (const [k, v] of top(a.byPackage, 20))
    console.log(`  ${mb(v).padStart(10)} ${pct(v).padStart(6)}  ${k}`);
  console.log(`\nTop ${n} functions by bytes allocated in them:`);
  for (const [k, v] of top(a.self, n)) console.log(`  ${mb(v).padStart(10)} ${pct(v).padStart(6)}  ${k}`);
  const inclusive = (title: string, keep: (site: string) => boolean) => {
    console.log(`\nTop ${n} ${title} by bytes allocated in them or what they call:`);
    const kept = Object.fromEntries(Object.entries(a.inclusive).filter(([k]) => keep(k)));
    for (const [k, v] of top(kept, n)) console.log(`  ${mb(v).padStart(10)} ${pct(v).padStart(6)}  ${k}`);
  };
  inclusive("library functions", (k) => k.includes(" lib/"));
  inclusive("Pulumi SDK functions", (k) => k.includes(" @pulumi/pulumi/"));
  console.log(`\nTop ${n} innermost library frames (the library call the bytes are made under), by package:`);
  const callers = Object.entries(a.libraryCaller)
    .map(([k, m]) => [k, m, Object.values(m).reduce((s, v) => s + v, 0)] as const)
    .sort((x, y) => y[2] - x[2])
    .slice(0, n);
  for (const [k, m, sum] of callers) {
    const parts = top(m, 3)
      .map(([p, v]) => `${p} ${mb(v)}`)
      .join(", ");
    console.log(`  ${mb(sum).padStart(10)} ${pct(sum).padStart(6)}  ${k}\n${" ".repeat(20)}${parts}`);
  }
}

function post<T>(session: inspector.Session, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) =>
    session.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result as T))),
  );
}

async function child(
  kind: string,
  apps: number,
  interval: number,
  live: boolean,
  out: string,
): Promise<void> {
  // The floor's resources come from a render of the same environment, made before the profile starts.
  let floor: FloorResource[] = kind === "floor" ? floorResources(await renderBench(apps)) : [];
  const session = new inspector.Session();
  session.connect();
  (globalThis as { gc?: () => void }).gc?.();
  await post(session, "HeapProfiler.startSampling", {
    samplingInterval: interval,
    // Without these, V8 drops the sample of every object a collection frees: the profile shows what
    // is live at the end (`--live`, for what the run keeps), not what was allocated.
    includeObjectsCollectedByMajorGC: !live,
    includeObjectsCollectedByMinorGC: !live,
  });
  if (kind === "deploy") await evaluateBench(apps);
  else if (kind === "floor") {
    const resources = floor;
    floor = [];
    await renderFloor(resources, "kubernetes", floorTurn(resources, apps, "kubernetes"));
  } else await renderBench(apps);
  const { profile } = await post<{ profile: { head: ProfileNode } }>(session, "HeapProfiler.stopSampling");
  session.disconnect();
  fs.writeFileSync(out, JSON.stringify(aggregate(profile.head)));
  process.stdout.write(
    `${JSON.stringify({ peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024) })}\n`,
  );
}

function main(): void {
  const arg = (name: string, fallback: string) =>
    process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
  const apps = Number(arg("apps", "1000"));
  const kind = arg("kind", "render");
  if (kind !== "render" && kind !== "deploy" && kind !== "floor") {
    throw new Error(
      `--kind=${kind}: the kind is render (the offline render), deploy (as pulumi up evaluates) or floor (the same Kubernetes objects registered directly, as the bench's floor)`,
    );
  }
  const n = Number(arg("top", "25"));
  const live = process.argv.includes("--live");
  // One sample per 16 KB on average: about 100,000 samples for the 1,000-app render.
  const interval = Number(arg("interval", "16384"));
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "allocations-")), "profile.json");
  const out = execFileSync(
    process.execPath,
    [
      ...process.execArgv,
      ...nodeFlags,
      __filename,
      "--child",
      kind,
      String(apps),
      String(interval),
      String(live),
      file,
    ],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "inherit"] },
  );
  const { peakRssMb } = JSON.parse(out.trim().split("\n").pop() as string) as { peakRssMb: number };
  const a = JSON.parse(fs.readFileSync(file, "utf8")) as Aggregate;
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  console.log(
    `${kind} of ${apps} apps${live ? ", objects live at the end only" : ""}; peak RSS (with the profiler) ${peakRssMb} MB; node ${nodeFlags.join(" ")}`,
  );
  print(a, n);
  const json = arg("json", "");
  if (json) fs.writeFileSync(json, `${JSON.stringify({ kind, apps, peakRssMb, ...a }, null, 2)}\n`);
}

if (require.main === module) {
  const i = process.argv.indexOf("--child");
  if (i !== -1) {
    const [kind, apps, interval, live, file] = process.argv.slice(i + 1);
    child(kind, Number(apps), Number(interval), live === "true", file).catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
  } else {
    try {
      main();
    } catch (err) {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    }
  }
}
