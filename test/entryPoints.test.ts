import { spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { liveEngineRefusal, renderProgram } from "../lib/render/run";

/**
 * Three entry points (package.json `exports`): `gke-mesh-platform`, what a `pulumi up` program imports, loads
 * nothing that checks or renders; `gke-mesh-platform/check` the invariants, the cluster model and the doctor,
 * without the render; `gke-mesh-platform/render` the offline render, which refuses to run inside a live engine.
 */

const root = path.resolve(__dirname, "..");

interface Loaded {
  readonly file: string;
  readonly lines: number;
}

/** The repository's modules an entry point loads, each file with its line count, in a process of its own. */
function loads(entry: string): Loaded[] {
  const probe = spawnSync(
    process.execPath,
    [require.resolve("tsx/cli"), path.join(__dirname, "entryPoints.probe.ts"), entry],
    { cwd: root, encoding: "utf8" },
  );
  expect(probe.stderr).toBe("");
  return JSON.parse(probe.stdout) as Loaded[];
}

const layerOf = (l: Loaded): string => l.file.split("/")[1].replace(/\.ts$/, "");

describe("what each entry point loads", () => {
  let constructs: Loaded[];
  let check: Loaded[];
  beforeAll(() => {
    constructs = loads("lib/index.ts");
    check = loads("lib/check.ts");
  });

  test("gke-mesh-platform loads no module of the checks, the cluster model, the render or the doctor", () => {
    const layers = new Set(constructs.map(layerOf));
    for (const layer of ["safety", "cluster", "render", "doctor", "check"])
      expect(layers).not.toContain(layer);
    // What it does load: the constructs and the plan, with their config, versions, manifests and JSON readers.
    expect([...layers].sort()).toEqual(
      [
        "addons",
        "config",
        "crds",
        "deploy",
        "gcp",
        "index",
        "json",
        "manifests",
        "meshes",
        "plan",
        "platform",
        "versions",
      ].sort(),
    );
  });

  test("the README's figure for the constructs entry is today's", () => {
    const ts = constructs.filter((l) => l.file.endsWith(".ts"));
    const lines = ts.reduce((sum, l) => sum + l.lines, 0);
    const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
    expect(readme).toContain(
      `\`import "gke-mesh-platform"\` loads ${ts.length} of the library's modules (${lines.toLocaleString("en-US")} lines)`,
    );
  });

  test("gke-mesh-platform/check loads neither the render nor the constructs' components", () => {
    const layers = new Set(check.map(layerOf));
    for (const layer of ["render", "platform", "gcp", "addons", "plan"]) expect(layers).not.toContain(layer);
    expect(layers).toContain("safety");
    expect(layers).toContain("cluster");
    // The doctor's checks, without its command line (which parses flags with the render's).
    const files = check.map((l) => l.file);
    expect(files).toContain("lib/doctor/doctor.ts");
    expect(files).not.toContain("lib/doctor/command.ts");
    expect(files).not.toContain("lib/doctor/index.ts");
  });

  test("package.json names the three entries, each a file the build writes", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
      exports: Record<string, { types: string; default: string } | string>;
    };
    const source = (dist: string) =>
      path.join(root, dist.replace(/^\.\/dist\//, "lib/").replace(/\.js$/, ".ts"));
    for (const entry of [".", "./check", "./render"]) {
      const target = pkg.exports[entry];
      expect(typeof target).toBe("object");
      if (typeof target === "object") expect(fs.existsSync(source(target.default))).toBe(true);
    }
  });
});

describe("gke-mesh-platform/render inside a live engine", () => {
  afterEach(() => jest.restoreAllMocks());

  test("renderProgram refuses in one message, and leaves the engine's connection alone", async () => {
    // A live `pulumi up` connects the SDK to the engine's resource monitor, a gRPC client.
    class ResourceMonitorClient {}
    const engine = new ResourceMonitorClient();
    jest
      .spyOn(pulumi.runtime, "getMonitor")
      .mockReturnValue(engine as ReturnType<typeof pulumi.runtime.getMonitor>);
    const setMocks = jest.spyOn(pulumi.runtime, "setMocks");
    await expect(
      renderProgram({ project: "p", stack: "s", config: {}, program: () => undefined }),
    ).rejects.toThrow(liveEngineRefusal);
    expect(setMocks).not.toHaveBeenCalled();
    expect(liveEngineRefusal).toContain("does not run inside pulumi up or pulumi preview");
  });
});
