import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { parseEnvironment } from "../lib/plan";
import { kubernetesResource, type KubeObject } from "../lib/deploy";
import { Platform } from "../lib/platform";
import { criticalPath, renderProgram, type RenderResult } from "../lib/render";

/**
 * `npm run bench`: renders generated environments of N apps, each meshed, exposed and monitored, and
 * compares each with a floor: the same final resources registered directly under the same mock
 * runtime, with no library work. Each measurement runs in its own process, so peak memory is its own.
 * Prints a table and writes out/bench.json.
 */

/** An environment of `n` apps, each meshed (Linkerd), exposed (GKE Gateway) and monitored (Prometheus). */
export function benchEnvironment(n: number): Record<string, unknown> {
  return {
    tier: "prod",
    gcp: { project: "acme-bench", region: "europe-west1" },
    mesh: { kind: "linkerd" },
    ingress: { kind: "gke-gateway" },
    monitoring: { backend: "prometheus" },
    apps: Array.from({ length: n }, (_, i) => ({
      name: `app-${i}`,
      image: "ghcr.io/acme/app:1.0.0",
      port: 8080,
      metrics: { path: "/metrics" },
      expose: { host: `app-${i}.example.com` },
    })),
  };
}

export function renderBench(n: number): Promise<RenderResult> {
  const config = parseEnvironment(benchEnvironment(n), "bench");
  return renderProgram({
    project: "bench",
    stack: "bench",
    config: {},
    program: () => new Platform("platform", { config }).outputs(),
  });
}

interface FloorResource {
  readonly type: string;
  readonly name: string;
  readonly inputs: Record<string, unknown>;
}

/** A resource of any type, registered as-is. */
class Raw extends pulumi.CustomResource {
  constructor(type: string, name: string, inputs: Record<string, unknown>) {
    super(type, name, inputs);
  }
}

const isKubernetesObject = (r: FloorResource) =>
  typeof r.inputs.apiVersion === "string" && typeof r.inputs.kind === "string";

/**
 * The floor: the same final resources registered directly, with one Kubernetes provider and no
 * parents, dependencies or library work; Kubernetes objects as their @pulumi/kubernetes classes.
 * `kubernetes` is the floor as the issue defines it: the Kubernetes objects alone. `all` adds the
 * rest (Google Cloud resources, Helm releases) by type, since the library registers those too.
 */
function renderFloor(
  resources: readonly FloorResource[],
  which: "kubernetes" | "all",
): Promise<RenderResult> {
  return renderProgram({
    project: "bench",
    stack: "bench",
    config: {},
    program: () => {
      const provider = new k8s.Provider("floor", { kubeconfig: "{}" });
      for (const r of resources) {
        if (isKubernetesObject(r))
          kubernetesResource(r.name, r.inputs as unknown as KubeObject, { provider });
        else if (which === "all") new Raw(r.type, r.name, r.inputs);
      }
      return {};
    },
  });
}

interface Measurement {
  readonly wallMs: number;
  readonly peakRssMb: number;
  /** Heap still in use once the render is done and garbage is collected. */
  readonly liveHeapMb: number;
  readonly resources: number;
  readonly criticalPath?: readonly string[];
}

async function child(kind: string, n: number, floorFile: string): Promise<void> {
  const start = process.hrtime.bigint();
  let result: RenderResult;
  if (kind === "platform") {
    result = await renderBench(n);
  } else {
    const resources = JSON.parse(fs.readFileSync(floorFile, "utf8")) as FloorResource[];
    result = await renderFloor(resources, kind === "floor-all" ? "all" : "kubernetes");
  }
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  const customs = result.resources.filter((r) => r.custom && !r.type.startsWith("pulumi:providers:"));
  if (kind === "platform") {
    fs.writeFileSync(
      floorFile,
      JSON.stringify(customs.map((r) => ({ type: r.type, name: r.name, inputs: r.inputs }))),
    );
  }
  (globalThis as { gc?: () => void }).gc?.();
  const m: Measurement = {
    wallMs,
    liveHeapMb: process.memoryUsage().heapUsed / 2 ** 20,
    // maxRSS is in kilobytes.
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    resources: customs.length,
    criticalPath: kind === "platform" ? criticalPath(result.resources) : undefined,
  };
  process.stdout.write(`\n${JSON.stringify(m)}\n`);
}

/**
 * Node flags of every measured process. The SDK allocates about 150 KB of short-lived objects per
 * resource: a larger young generation collects them in fewer pauses, and a 1.5 GB old generation
 * makes V8 collect what is dead instead of growing the heap to several GB on a large machine.
 */
export const nodeFlags = ["--max-semi-space-size=64", "--max-old-space-size=1536", "--expose-gc"];

/** Each row is the run with the median wall time of this many, each in a fresh process. */
const runs = Number(process.argv.find((a) => a.startsWith("--runs="))?.slice(7) ?? "3");

function median(ms: readonly Measurement[]): Measurement {
  return [...ms].sort((a, b) => a.wallMs - b.wallMs)[Math.floor(ms.length / 2)];
}

function measure(kind: string, n: number, floorFile: string): Measurement {
  const out = execFileSync(
    process.execPath,
    [...process.execArgv, ...nodeFlags, __filename, "--child", kind, String(n), floorFile],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "inherit"] },
  );
  const last = out.trim().split("\n").pop() as string;
  return JSON.parse(last) as Measurement;
}

function main(): void {
  const sizes = (process.argv.find((a) => a.startsWith("--sizes="))?.slice(8) ?? "10,100,1000")
    .split(",")
    .map(Number);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-"));
  const rows = sizes.map((n) => {
    const file = path.join(dir, `floor-${n}.json`);
    const platform = median(Array.from({ length: runs }, () => measure("platform", n, file)));
    const floor = median(Array.from({ length: runs }, () => measure("floor-kubernetes", n, file)));
    const floorAll = median(Array.from({ length: runs }, () => measure("floor-all", n, file)));
    return {
      apps: n,
      resources: platform.resources,
      wallMs: Math.round(platform.wallMs),
      msPerApp: +(platform.wallMs / n).toFixed(2),
      peakRssMb: Math.round(platform.peakRssMb),
      liveHeapMb: Math.round(platform.liveHeapMb),
      floorMs: Math.round(floor.wallMs),
      ratioToFloor: +(platform.wallMs / floor.wallMs).toFixed(2),
      floorAllMs: Math.round(floorAll.wallMs),
      ratioToFloorAll: +(platform.wallMs / floorAll.wallMs).toFixed(2),
      criticalPathSteps: platform.criticalPath?.length ?? 0,
      criticalPath: (platform.criticalPath ?? []).map((k) => k.split("::")[1]),
    };
  });
  fs.rmSync(dir, { recursive: true, force: true });
  const cpus = os.cpus();
  const machine = `${cpus.length} x ${cpus[0]?.model.trim() ?? "unknown CPU"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}`;
  const scaling =
    rows.length > 1 ? +(rows[rows.length - 1].wallMs / rows[rows.length - 2].wallMs).toFixed(2) : undefined;
  const report = { machine, date: new Date().toISOString(), runs, nodeFlags, rows, scaling };
  fs.mkdirSync("out", { recursive: true });
  fs.writeFileSync(path.join("out", "bench.json"), `${JSON.stringify(report, null, 2)}\n`);

  const header =
    "| apps | resources | wall | per app | peak memory | live heap after | floor (Kubernetes objects) | vs floor | floor (all resources) | vs floor | critical path |";
  console.log(`Machine: ${machine}; run with the median wall time of ${runs}; node ${nodeFlags.join(" ")}\n`);
  console.log(header);
  console.log("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const r of rows) {
    console.log(
      `| ${r.apps} | ${r.resources} | ${(r.wallMs / 1000).toFixed(2)} s | ${r.msPerApp} ms | ${r.peakRssMb} MB | ${r.liveHeapMb} MB | ${(r.floorMs / 1000).toFixed(2)} s | ${r.ratioToFloor}x | ${(r.floorAllMs / 1000).toFixed(2)} s | ${r.ratioToFloorAll}x | ${r.criticalPathSteps} steps |`,
    );
  }
  if (scaling !== undefined) {
    console.log(`\nt(${rows[rows.length - 1].apps}) / t(${rows[rows.length - 2].apps}) = ${scaling}`);
  }
  const last = rows[rows.length - 1];
  console.log(`Critical path at ${last.apps} apps: ${last.criticalPath.join(" -> ")}`);
  console.log("Written to out/bench.json.");
}

if (require.main === module) {
  const i = process.argv.indexOf("--child");
  if (i !== -1) {
    const [kind, n, file] = process.argv.slice(i + 1);
    child(kind, Number(n), file).catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
  } else {
    main();
  }
}
