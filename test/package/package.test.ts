import { spawnSync, type SpawnSyncReturns } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { parse, parseAllDocuments, stringify } from "yaml";
import { blocksOf, type Block } from "../docBlocks";

/**
 * The package as a user gets it: `npm pack` builds (prepack) and packs the library; the tarball installs
 * into new consumer projects (one compiled as CommonJS, one as nodenext, neither with esModuleInterop
 * or skipLibCheck), which type-check and render with the package's own command; an example copied
 * out of the repository installs from the tarball and renders; and docs/istio.md's canary upgrade is
 * followed step by step in a program of its own. Installs come from the npm cache where
 * it has the packages (`--prefer-offline`), without install scripts, as in the repository.
 * Run by `npm run test:package` (CI runs it); outside `npm test` for its minutes of installs.
 */

const root = path.resolve(__dirname, "../..");
const rootPackage = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
  version: string;
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const installed = (name: string): string =>
  (
    JSON.parse(fs.readFileSync(path.join(root, "node_modules", name, "package.json"), "utf8")) as {
      version: string;
    }
  ).version;

let tmp: string;
let tarball: string;

/** Runs a command without the variables npm sets for the script running this test, which would point it here. */
function run(command: string, args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  return spawnSync(command, args, { cwd, env: { ...env, CI: "true" }, encoding: "utf8", timeout: 300_000 });
}

function ok(result: SpawnSyncReturns<string>): SpawnSyncReturns<string> {
  if (result.status !== 0) {
    throw new Error(`exit ${String(result.status)}\n${result.stdout}\n${result.stderr}`);
  }
  return result;
}

const install = (cwd: string, ...args: string[]) =>
  ok(
    run("npm", ["install", ...args, "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"], cwd),
  );

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "package-"));
  ok(run("npm", ["pack", "--pack-destination", tmp], root));
  tarball = path.join(tmp, `gke-mesh-platform-${rootPackage.version}.tgz`);
}, 300_000);

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe("the tarball", () => {
  let files: string[];
  beforeAll(() => {
    files = ok(run("tar", ["-tzf", tarball], tmp))
      .stdout.split("\n")
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, ""));
  });

  test("holds the compiled library, its command, the licence and the README", () => {
    expect(files).toEqual(
      expect.arrayContaining([
        "dist/index.js",
        "dist/index.d.ts",
        "dist/render/cli.js",
        "dist/versions/values-keys.json",
        "dist/stack-config.schema.json",
        // What the messages and the stack schema name as node_modules/gke-mesh-platform/docs/...
        "docs/configuration.md",
        "docs/safety.md",
        "LICENSE",
        "README.md",
        "package.json",
      ]),
    );
  });

  test("holds no sources, tests or source maps that point at files it does not ship", () => {
    expect(
      files.filter((f) => !/^(dist\/|docs\/[\w-]+\.md$|LICENSE$|README\.md$|package\.json$)/.test(f)),
    ).toEqual([]);
    expect(files.filter((f) => f.endsWith(".map"))).toEqual([]);
  });

  test("its declarations do not name zod, whose own fail without esModuleInterop or skipLibCheck", () => {
    const unpacked = path.join(tmp, "unpacked");
    fs.mkdirSync(unpacked);
    ok(run("tar", ["-xzf", tarball, "-C", unpacked], tmp));
    const declarations = files.filter((f) => f.endsWith(".d.ts"));
    expect(declarations.length).toBeGreaterThan(50);
    const naming = declarations.filter((f) =>
      /from "zod"|import\("zod"\)/.test(fs.readFileSync(path.join(unpacked, "package", f), "utf8")),
    );
    expect(naming).toEqual([]);
  });
});

/** A program's dependencies: the tarball, and the peers at the versions the repository tests with. */
const dependencies = (): Record<string, string> => ({
  "gke-mesh-platform": `file:${tarball}`,
  ...Object.fromEntries(Object.keys(rootPackage.peerDependencies).map((p) => [p, installed(p)])),
});

/** A new Pulumi program of one's own that uses the library, as its README shows. */
function consumer(name: string, compilerOptions: Record<string, unknown>): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  const write = (file: string, text: string) => fs.writeFileSync(path.join(dir, file), text);
  write(
    "package.json",
    JSON.stringify(
      {
        name,
        private: true,
        main: "index.ts",
        dependencies: dependencies(),
        devDependencies: { typescript: installed("typescript"), "@types/node": installed("@types/node") },
      },
      null,
      2,
    ),
  );
  write("tsconfig.json", JSON.stringify({ compilerOptions, files: ["index.ts", "review.ts"] }, null, 2));
  // The two other entries, as a script of one's own that reviews programs would use them.
  write(
    "review.ts",
    [
      "import {",
      "  checkInvariants,",
      "  doctor,",
      "  doctorClusterRole,",
      "  invariants,",
      "  objectSource,",
      "  type DoctorReport,",
      "  type Finding,",
      "  type Violation,",
      '} from "gke-mesh-platform/check";',
      'import { renderProgram, type RenderResult } from "gke-mesh-platform/render";',
      "",
      "export const names: string[] = Object.keys(invariants);",
      "export const none: Violation[] = checkInvariants([]);",
      "export const errors = (context: string): Promise<Finding[]> =>",
      '  doctor({ context, checks: ["crd-owners"] }).then((r: DoctorReport) => r.findings.filter((f) => f.severity === "error"));',
      "export const offline: Promise<DoctorReport> = doctor({ source: objectSource([]) });",
      "export const role: Record<string, unknown> = doctorClusterRole();",
      "export const render = (program: () => unknown): Promise<RenderResult> =>",
      '  renderProgram({ project: "p", stack: "s", config: {}, program });',
      "",
    ].join("\n"),
  );
  write("Pulumi.yaml", `name: ${name}\nruntime:\n  name: nodejs\n  options:\n    typescript: true\n`);
  write("Pulumi.dev.yaml", fs.readFileSync(path.join(root, "stacks", "Pulumi.dev.yaml"), "utf8"));
  write(
    "index.ts",
    [
      'import * as k8s from "@pulumi/kubernetes";',
      'import { CertManager, ConfigError, Platform, loadPlan, type PlatformConfig } from "gke-mesh-platform";',
      "",
      "// The whole platform from the stack's config, and a building block's Args type-checked too.",
      "export = () => {",
      '  const platform = new Platform("platform", { plan: loadPlan() });',
      '  const tier: PlatformConfig["tier"] = platform.config.tier;',
      "  const check: (p: k8s.Provider) => CertManager = (provider) =>",
      '    new CertManager("unused", { trustManager: true, provider });',
      "  void check;",
      "  void ConfigError;",
      "  return { ...platform.outputs(), tier };",
      "};",
      "",
    ].join("\n"),
  );
  install(dir);
  return dir;
}

const strictCompiler = { strict: true, target: "ES2022", types: ["node"], noEmit: true };

describe.each([
  ["commonjs", { ...strictCompiler, module: "commonjs", moduleResolution: "node" }],
  ["nodenext", { ...strictCompiler, module: "nodenext", moduleResolution: "nodenext" }],
])("a new %s program that installs the tarball", (kind, compilerOptions) => {
  let dir: string;
  beforeAll(() => {
    dir = consumer(`consumer-${kind}`, compilerOptions);
  }, 300_000);

  test("type-checks without esModuleInterop or skipLibCheck", () => {
    const tsc = run(process.execPath, [path.join(dir, "node_modules/typescript/bin/tsc"), "-p", "."], dir);
    expect(`${tsc.stdout}${tsc.stderr}`).toBe("");
    expect(tsc.status).toBe(0);
  }, 300_000);

  test("the /check and /render entries load from the installed package", () => {
    const script = [
      'const check = require("gke-mesh-platform/check");',
      'const render = require("gke-mesh-platform/render");',
      "console.log(Object.keys(check.invariants).length, check.checkInvariants([]).length, typeof render.renderProgram);",
      // The doctor over an empty cluster in memory: every check but drift runs, and finds nothing.
      "check.doctor({ source: check.objectSource([]) }).then((r) =>",
      "  console.log(r.exitCode, r.findings.length, r.checks.map((c) => c.status).join(',')));",
    ].join(" ");
    const loaded = run(process.execPath, ["-e", script], dir);
    expect({ status: loaded.status, stderr: loaded.stderr }).toEqual({ status: 0, stderr: "" });
    const [invariantsLine, doctorLine] = loaded.stdout.trim().split("\n");
    expect(invariantsLine).toMatch(/^\d+ 0 function$/);
    expect(doctorLine).toBe(`0 0 ${[...Array<string>(10).fill("ran"), "skipped"].join(",")}`);
  }, 300_000);

  test("shares the program's Pulumi SDK and providers: one copy of each", () => {
    for (const peer of Object.keys(rootPackage.peerDependencies)) {
      expect(fs.existsSync(path.join(dir, "node_modules/gke-mesh-platform/node_modules", peer))).toBe(false);
      expect(fs.existsSync(path.join(dir, "node_modules", peer, "package.json"))).toBe(true);
    }
  });

  test("renders with the package's command into out/<stack>/", () => {
    const render = run(path.join(dir, "node_modules/.bin/gke-mesh-platform"), ["render", "."], dir);
    expect({ status: render.status, stderr: render.stderr.replace(/^rendering .*\n/gm, "") }).toEqual({
      status: 0,
      stderr: "",
    });
    expect(render.stdout).toMatch(new RegExp(`^Rendered consumer-${kind}/dev in [\\d.]+ s: \\d+ resources`));
    expect(fs.readdirSync(path.join(dir, "out/dev")).sort()).toEqual([
      "certificates.yaml",
      "graph.mmd",
      "helm-releases.yaml",
      "manifests.yaml",
      "resources.yaml",
    ]);
    // The docs the command names are where the program has them: in the installed package.
    const help = run(path.join(dir, "node_modules/.bin/gke-mesh-platform"), ["render", "--help"], dir);
    expect(help.stdout).toContain("  node_modules/gke-mesh-platform/docs/safety.md");
    expect(fs.existsSync(path.join(dir, "node_modules/gke-mesh-platform/docs/safety.md"))).toBe(true);
  }, 300_000);
});

test("an example copied out of the repository installs from the tarball and renders", () => {
  const dir = path.join(tmp, "books");
  fs.cpSync(path.join(root, "examples/books"), dir, { recursive: true });
  install(dir, tarball);
  const render = run(
    path.join(dir, "node_modules/.bin/gke-mesh-platform"),
    ["render", ".", "--stack", "istio"],
    dir,
  );
  expect(render.status).toBe(0);
  expect(render.stdout).toMatch(/^Rendered books\/istio in [\d.]+ s: \d+ resources/);
  expect(render.stdout).toContain(
    "  wrote resources.yaml, manifests.yaml, helm-releases.yaml, graph.mmd, certificates.yaml to out/istio/",
  );
}, 300_000);

/**
 * The README's "Your own program", from the tarball: `npx --package <tarball> gke-mesh-platform init`
 * writes a new program that installs the package from where the command came from, and renders at
 * once, transpiling (saying so from its first second); `npm run typecheck` type-checks it.
 */
describe("init from the packed package", () => {
  let dir: string;
  let made: SpawnSyncReturns<string>;
  beforeAll(() => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
    made = spawnSync(
      "npx",
      [
        "--yes",
        "--package",
        tarball,
        "gke-mesh-platform",
        "init",
        "mine",
        "--mesh",
        "istio",
        "--ingress",
        "traefik",
        "--no-install",
      ],
      {
        cwd: tmp,
        env: { ...env, CI: "true", npm_config_prefer_offline: "true" },
        encoding: "utf8",
        timeout: 300_000,
      },
    );
    dir = path.join(tmp, "mine");
    ok(made);
    install(dir);
  }, 600_000);

  test("writes the program, which installs the package from the tarball the command came from", () => {
    expect(made.stdout.split("\n")[0]).toBe(
      "Wrote a new program in mine: Pulumi.yaml, Pulumi.dev.yaml, index.ts, package.json, tsconfig.json, .gitignore",
    );
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    expect(pkg.dependencies).toEqual({
      "gke-mesh-platform": `file:${tarball}`,
      ...rootPackage.peerDependencies,
    });
    // The schema the stack file's first line names is there.
    expect(
      fs.existsSync(path.join(dir, "node_modules/gke-mesh-platform/dist/stack-config.schema.json")),
    ).toBe(true);
    expect(fs.readFileSync(path.join(dir, "Pulumi.dev.yaml"), "utf8")).toMatch(
      /^# yaml-language-server: \$schema=\.\/node_modules\/gke-mesh-platform\/dist\/stack-config\.schema\.json\n/,
    );
  });

  test("renders at once, transpile-only, saying what it does from the first second", () => {
    const render = run(path.join(dir, "node_modules/.bin/gke-mesh-platform"), ["render"], dir);
    expect(render.status).toBe(0);
    expect(render.stderr.split("\n")[0]).toBe(
      "rendering mine/dev: loading the program: compiling index.ts with ts-node, transpile-only: type errors are your editor's and tsc's to report; --type-check checks them as pulumi up does",
    );
    expect(render.stdout).toMatch(/^Rendered mine\/dev in [\d.]+ s: \d+ resources in \d+ components/);
    expect(render.stdout).toMatch(/^ {6}Istio: /m);
    expect(render.stdout).toMatch(/^ +Traefik: /m);
  }, 300_000);

  test("type-checks with its own tsc, and --type-check renders type-checked", () => {
    const tsc = run("npm", ["run", "typecheck", "--silent"], dir);
    expect({ status: tsc.status, out: `${tsc.stdout}${tsc.stderr}`.trim() }).toEqual({ status: 0, out: "" });
    const render = run(
      path.join(dir, "node_modules/.bin/gke-mesh-platform"),
      ["render", "--check", "--type-check"],
      dir,
    );
    expect(render.status).toBe(0);
    expect(render.stderr.split("\n")[0]).toMatch(
      /^rendering mine\/dev: loading the program: compiling and type-checking index\.ts with ts-node, as pulumi up does/,
    );
  }, 300_000);
});

/**
 * docs/istio.md's "Canary upgrades of istiod, step by step", as a package user follows it: a new program
 * that installs the tarball, the dev stack on Istio (unrevisioned, the default) with Traefik, and each
 * step's config block from the docs themselves (read here, so the docs and this test cannot drift),
 * rendered with the package's command. What each step promises is asserted on what it renders; the
 * charts are not fetched (the render is offline).
 */
describe("docs/istio.md's canary upgrade, followed in a new program that installs the tarball", () => {
  const doc = "docs/istio.md";
  /** The blocks of each numbered step of the canary section, by step number. */
  const steps = ((): Map<number, Block[]> => {
    const lines = fs.readFileSync(path.join(root, doc), "utf8").split("\n");
    const start = lines.findIndex((l) => l.startsWith("## Canary upgrades of istiod"));
    const end = lines.findIndex((l, i) => i > start && l.startsWith("## "));
    const starts = lines
      .map((l, i) => ({ step: Number(/^(\d+)\. \*\*/.exec(l)?.[1]), line: i + 1 }))
      .filter((s) => s.step > 0 && s.line > start && s.line <= end);
    const byStep = new Map<number, Block[]>();
    for (const b of blocksOf(root, doc).blocks) {
      const step = starts.filter((s) => s.line < b.line && b.line <= end).at(-1)?.step;
      if (step !== undefined) byStep.set(step, [...(byStep.get(step) ?? []), b]);
    }
    return byStep;
  })();
  const block = (step: number, lang: string): Block => {
    const found = (steps.get(step) ?? []).find((b) => b.lang === lang);
    if (!found) throw new Error(`${doc}: step ${step} of the canary upgrade has no ${lang} block`);
    return found;
  };
  interface Revision {
    name: string;
    version: string;
    charts?: { repo?: string; digests: { base: string; istiod: string } };
  }
  interface MeshEntry {
    kind: string;
    istio: { revisions: Revision[]; defaultRevision: string };
  }
  const meshOf = (step: number): MeshEntry =>
    (parse(block(step, "yaml").text) as { "platform:mesh": MeshEntry })["platform:mesh"];

  interface Release {
    name: string;
    repository: string;
    chart: string;
    version: string;
    values: Record<string, unknown>;
  }
  interface Rendered {
    status: number | null;
    stdout: string;
    stderr: string;
    releases: Release[];
    labels: (namespace: string) => Record<string, string> | undefined;
  }

  // The dev stack's app, whose namespace the steps move (stacks/Pulumi.dev.yaml).
  const appNamespace = "shop";
  let dir: string;
  const rendered = new Map<string, Rendered>();

  /** The dev stack, on Traefik (so an ingress controller moves too), with `mesh` as its platform:mesh, rendered as `stack`. */
  function renderStack(stack: string, mesh: unknown): Rendered {
    const dev = parse(fs.readFileSync(path.join(root, "stacks", "Pulumi.dev.yaml"), "utf8")) as {
      config: Record<string, unknown>;
    };
    const config = {
      ...dev.config,
      "platform:ingress": { kind: "traefik", acme: { email: "platform@acme.example" } },
      "platform:mesh": mesh,
    };
    fs.writeFileSync(path.join(dir, `Pulumi.${stack}.yaml`), stringify({ config }));
    const result = run(
      path.join(dir, "node_modules/.bin/gke-mesh-platform"),
      ["render", ".", "--stack", stack],
      dir,
    );
    const out = path.join(dir, "out", stack);
    const written = result.status === 0;
    const releases = written
      ? (parse(fs.readFileSync(path.join(out, "helm-releases.yaml"), "utf8")) as { releases: Release[] })
          .releases
      : [];
    const objects = written
      ? parseAllDocuments(fs.readFileSync(path.join(out, "manifests.yaml"), "utf8")).map(
          (d) => d.toJS() as { kind?: string; metadata?: { name?: string; labels?: Record<string, string> } },
        )
      : [];
    const r: Rendered = {
      status: result.status,
      stdout: result.stdout,
      stderr: result.stderr.replace(/^rendering .*\n/gm, ""),
      releases,
      labels: (namespace) =>
        objects.find((o) => o.kind === "Namespace" && o.metadata?.name === namespace)?.metadata?.labels,
    };
    rendered.set(stack, r);
    return r;
  }
  const release = (stack: string, name: string): Release | undefined =>
    rendered.get(stack)?.releases.find((r) => r.name === name);
  const valueAt = (r: Release | undefined, ...keys: string[]): unknown =>
    keys.reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], r?.values);

  beforeAll(() => {
    dir = path.join(tmp, "canary");
    fs.mkdirSync(dir);
    const write = (file: string, text: string) => fs.writeFileSync(path.join(dir, file), text);
    write(
      "package.json",
      JSON.stringify(
        {
          name: "canary",
          private: true,
          main: "index.ts",
          dependencies: dependencies(),
          devDependencies: { typescript: installed("typescript"), "@types/node": installed("@types/node") },
        },
        null,
        2,
      ),
    );
    write(
      "tsconfig.json",
      JSON.stringify({ compilerOptions: { ...strictCompiler, module: "commonjs" }, files: ["index.ts"] }),
    );
    write("Pulumi.yaml", "name: canary\nruntime:\n  name: nodejs\n  options:\n    typescript: true\n");
    write(
      "index.ts",
      [
        'import { Platform, loadPlan } from "gke-mesh-platform";',
        "",
        "export = () => {",
        '  const platform = new Platform("platform", { plan: loadPlan() });',
        "  return platform.outputs();",
        "};",
        "",
      ].join("\n"),
    );
    install(dir);
  }, 300_000);

  test("the section has the steps this test follows: the charts to pull, then a config per step", () => {
    expect([...steps].map(([step, blocks]) => [step, blocks.map((b) => b.lang)])).toEqual([
      [1, ["sh"]],
      [2, ["yaml", "text"]],
      [3, ["yaml"]],
      [4, ["yaml"]],
    ]);
  });

  test("before: the running istiod, unrevisioned, at the version step 2 names for it", () => {
    const [running] = meshOf(2).istio.revisions;
    expect(running.name).toBe("default");
    const before = renderStack("before", { kind: "istio" });
    expect({ status: before.status, stderr: before.stderr }).toEqual({ status: 0, stderr: "" });
    expect(
      before.releases.filter((r) => r.name.startsWith("istiod")).map((r) => [r.name, r.version]),
    ).toEqual([["istiod", running.version]]);
    expect(release("before", "istio-cni")?.version).toBe(running.version);
    expect(before.labels(appNamespace)).toMatchObject({ "istio-injection": "enabled" });
    expect(before.labels(appNamespace)).not.toHaveProperty("istio.io/rev");
    expect(valueAt(release("before", "traefik"), "deployment", "podLabels")).toEqual({
      "sidecar.istio.io/inject": "true",
    });
  }, 300_000);

  test("step 2 adds the canary: istio-base and istiod-<rev> at its version, from the charts step 1 pulls, with their digests; the running istiod is untouched", () => {
    const mesh = meshOf(2);
    const [running, canary] = mesh.istio.revisions;
    const digests = canary.charts?.digests;
    // Step 1's commands: the charts, repository and version the canary's config names.
    const pulls = [...block(1, "sh").text.matchAll(/^helm pull (\S+)\/(\w+) --version (\S+)/gm)].map((m) => ({
      repo: m[1],
      chart: m[2],
      version: m[3],
    }));
    expect(pulls.map((p) => p.chart)).toEqual(["base", "istiod"]);
    expect(pulls.map((p) => p.version)).toEqual([canary.version, canary.version]);
    const repo = canary.charts?.repo ?? pulls[0].repo;

    const step = renderStack("canary", mesh);
    expect({ status: step.status, stderr: step.stderr }).toEqual({ status: 0, stderr: "" });
    // The warning step 1 promises, naming the command it shows.
    const show = /^helm show values .*$/m.exec(block(1, "sh").text)?.[0];
    expect(show).toBe(`helm show values ${repo}/istiod --version ${canary.version}`);
    expect(step.stdout).toContain(
      `    - Istio ${canary.version} (revision ${canary.name}) is not pinned by this package: the values the platform and platform:overrides.charts set on its base and istiod charts are not checked against that release's values.yaml; review them with \`${show ?? ""}\`\n`,
    );
    expect(release("canary", "istio-base")).toMatchObject({
      repository: "",
      chart: `${repo}/base@${digests?.base ?? ""}`,
      version: canary.version,
    });
    expect(release("canary", `istiod-${canary.name}`)).toMatchObject({
      repository: "",
      chart: `${repo}/istiod@${digests?.istiod ?? ""}`,
      version: canary.version,
      values: expect.objectContaining({ revision: canary.name }) as unknown,
    });
    // The running istiod's release, chart and values are those it had; istio-cni stays at the pin.
    expect(release("canary", "istiod")).toEqual(release("before", "istiod"));
    expect(release("canary", "istiod")?.version).toBe(running.version);
    expect(release("canary", "istio-cni")).toEqual(release("before", "istio-cni"));
    // istio-csr serves both; namespaces and the ingress controller's pods keep their labels.
    expect(valueAt(release("canary", "cert-manager-istio-csr"), "app", "istio", "revisions")).toEqual([
      running.name,
      canary.name,
    ]);
    expect(step.labels(appNamespace)).toEqual(rendered.get("before")?.labels(appNamespace));
    expect(valueAt(release("canary", "traefik"), "deployment")).toEqual(
      valueAt(release("before", "traefik"), "deployment"),
    );
  }, 300_000);

  test("step 2 without the canary's charts: the error the docs show, and nothing written", () => {
    const mesh = meshOf(2);
    const stack = "no-digests";
    const bare = {
      ...mesh,
      istio: {
        ...mesh.istio,
        revisions: mesh.istio.revisions.map((r) => ({ name: r.name, version: r.version })),
      },
    };
    const step = renderStack(stack, bare);
    expect(step.status).toBe(1);
    expect(step.stderr.trimEnd()).toBe(
      block(2, "text").text.trimEnd().split("Pulumi.dev.yaml").join(`Pulumi.${stack}.yaml`),
    );
    expect(fs.existsSync(path.join(dir, "out", stack))).toBe(false);
  }, 300_000);

  test("step 3 moves the apps: namespaces and the ingress controller's pods by label, istio-base's webhook to the canary", () => {
    const mesh = meshOf(3);
    const [, canary] = mesh.istio.revisions;
    expect(mesh.istio.defaultRevision).toBe(canary.name);
    const step = renderStack("moved", mesh);
    expect({ status: step.status, stderr: step.stderr }).toEqual({ status: 0, stderr: "" });
    const others = Object.entries(rendered.get("before")?.labels(appNamespace) ?? {}).filter(
      ([key]) => key !== "istio-injection",
    );
    expect(step.labels(appNamespace)).toEqual({ ...Object.fromEntries(others), "istio.io/rev": canary.name });
    expect(valueAt(release("moved", "traefik"), "deployment", "podLabels")).toEqual({
      "istio.io/rev": canary.name,
    });
    expect(valueAt(release("moved", "istio-base"), "defaultRevision")).toBe(canary.name);
    // Both istiods still run as step 2 left them.
    expect(release("moved", "istiod")).toEqual(release("before", "istiod"));
    expect(release("moved", `istiod-${canary.name}`)).toEqual(release("canary", `istiod-${canary.name}`));
  }, 300_000);

  test("step 4 drops the old revision: one istiod, the canary's, from its own charts; istio-cni still at the pin", () => {
    const mesh = meshOf(4);
    const [canary] = mesh.istio.revisions;
    const step = renderStack("dropped", mesh);
    expect({ status: step.status, stderr: step.stderr }).toEqual({ status: 0, stderr: "" });
    expect(step.releases.filter((r) => r.name.startsWith("istiod")).map((r) => r.name)).toEqual([
      `istiod-${canary.name}`,
    ]);
    expect(release("dropped", `istiod-${canary.name}`)).toEqual(release("canary", `istiod-${canary.name}`));
    expect(release("dropped", "istio-base")).toEqual(release("moved", "istio-base"));
    expect(release("dropped", "istio-cni")).toEqual(release("before", "istio-cni"));
    expect(step.labels(appNamespace)).toEqual(rendered.get("moved")?.labels(appNamespace));
  }, 300_000);
});
