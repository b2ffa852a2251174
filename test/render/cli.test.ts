import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { parseFlags, UsageError } from "../../lib/render/commandLine";
import { renderFlags } from "../../lib/render/renderCommand";
import { base, project, root, run, withEnv } from "./cliHarness";
import { docsLink } from "../../lib/config";
import { progressReporter } from "../../lib/render/progress";
import { clusterInputOf, defaultOutDir, readProject, readStackConfig, renderStack } from "../../lib/render";
import { noHelm } from "../../lib/render/stack";
import { findHelm } from "../../lib/cluster";
import { chartsDir, chartsProblem } from "../upstream/reference";
import { charts as pins } from "../../lib/versions";

/**
 * The render as a command: help exits 0; a wrong command line exits 2 naming what is wrong and how
 * to get help; a config or program error exits 1 with its message and no stack trace; each stack
 * gets its own folder.
 */

let tmp: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "render-cli-"));
  project(tmp, "scratch", {
    good: base,
    other: base,
    bad: `${base}  platform:mesh:\n    kind: linkred\n`,
    typo: `${base}  platfrom:monitoring:\n    backend: prometheus\n  mesh:\n    kind: istio\n`,
    broken: `${base}  platform:mesh: kind: istio\n`,
  });
});

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const usage = (message: string) =>
  `gke-mesh-platform render: ${message}\nrun gke-mesh-platform render --help for how to use it`;

describe("options are a table: every way to get one wrong names it", () => {
  const parse = (...args: string[]) => parseFlags(args, renderFlags);

  test("--name value, --name=value, switches and -- all read", () => {
    const { flags, positionals } = parse("dir", "--stack", "dev", "--out=x/y", "--stages", "--", "--odd");
    expect([...flags.entries()]).toEqual([
      ["--stack", "dev"],
      ["--out", "x/y"],
      ["--stages", true],
    ]);
    expect(positionals).toEqual(["dir", "--odd"]);
  });

  test.each([
    [["--stak", "dev"], "unknown option --stak (did you mean --stack?)"],
    [["--colour"], "unknown option --colour"],
    [["--stack"], "--stack needs a value: --stack <name>"],
    [["--stack", "--out", "x"], "--stack needs a value: --stack <name>"],
    [["--out="], "--out needs a value: --out <dir>"],
    [["--stack", "a", "--stack", "b"], "--stack is given twice"],
    [["--stages=yes"], "--stages takes no value"],
  ])("%j: %s", (args, message) => {
    expect(() => parse(...args)).toThrow(new UsageError(message));
  });
});

describe("help and wrong command lines", () => {
  test("--help prints every option of the table and exits 0; so does help of the command", async () => {
    const help = await run(tmp, "render", "--help");
    expect(help.code).toBe(0);
    for (const flag of renderFlags) expect(help.stdout).toContain(flag.name);
    expect((await run(tmp, "--help")).code).toBe(0);
    expect((await run(tmp, "help")).code).toBe(0);
  });

  test.each([
    [
      [],
      "give a command: render, init, versions, preflight, doctor or completion, such as gke-mesh-platform render .",
    ],
    [["rendr"], 'unknown command "rendr" (did you mean render?)'],
    [
      ["deploy"],
      'unknown command "deploy": the commands are render, init, versions, preflight, doctor or completion',
    ],
  ])("%j exits 2 naming the commands: %s", async (argv, message) => {
    expect(await run(tmp, ...argv)).toEqual({
      code: 2,
      stdout: "",
      stderr: `gke-mesh-platform: ${message}\nrun gke-mesh-platform --help for how to use it`,
    });
  });

  test.each([
    [["render", "--stak", "good"], "unknown option --stak (did you mean --stack?)"],
    [["render", ".", "--out"], "--out needs a value: --out <dir>"],
    [
      ["render", "good", "--stack", "other"],
      '"good" names the stack, and so does --stack other: give the stack once',
    ],
    [["render", "a", "b"], "give one program folder or stack, not 2: a b"],
    [["render", "./nosuch"], "./nosuch: no such folder"],
    [
      ["render", "goood"],
      '"goood" is neither a program\'s folder nor a stack of scratch (did you mean "good"?)',
    ],
    [
      ["render", ".", "--stack", "goood"],
      'no stack "goood" in the current folder: it has no Pulumi.goood.yaml (did you mean "good"?)',
    ],
    [
      ["render", "."],
      ". has 5 stacks (bad, broken, good, other, typo): choose one with --stack, such as gke-mesh-platform render . --stack bad, or render them all with --all",
    ],
    [
      ["render", ".", "--stack", "Pulumi.good.yaml"],
      "--stack takes a stack's name, not its config file: for Pulumi.good.yaml, give --stack good",
    ],
    [
      ["render", "Pulumi.good.yaml"],
      'Pulumi.good.yaml is the config of stack "good": give the program\'s folder and the stack, such as gke-mesh-platform render . --stack good',
    ],
    [
      ["render", ".", "--all", "--stack", "good"],
      "--all and --stack go not together: --all renders every stack and --stack names one; give one of them",
    ],
    [
      ["render", "good", "--all"],
      '--all renders every stack, and "good" names one: give the program\'s folder with --all, such as gke-mesh-platform render . --all',
    ],
    [
      ["render", "good", "--check", "--out", "x"],
      "--check and --out go not together: --check writes nothing, so there is nothing for --out; give one of them",
    ],
  ])("%j exits 2: %s", async (argv, message) => {
    expect(await run(tmp, ...argv)).toEqual({ code: 2, stdout: "", stderr: usage(message) });
  });

  test("from the repository, examples/nosuch is a missing folder, not a stack name", async () => {
    expect(await run(root, "render", "examples/nosuch")).toEqual({
      code: 2,
      stdout: "",
      stderr: usage("examples/nosuch: no such folder"),
    });
  });

  test("a multi-stack example without --stack says how to choose", async () => {
    expect((await run(root, "render", "examples/books")).stderr).toBe(
      usage(
        "examples/books has 2 stacks (istio, linkerd): choose one with --stack, such as gke-mesh-platform render examples/books --stack istio, or render them all with --all",
      ),
    );
  });
});

describe("one folder per stack", () => {
  test("two stacks of one program write two folders under out/", async () => {
    const cwd = fs.mkdtempSync(path.join(tmp, "cwd-"));
    const good = await run(cwd, "render", tmp, "--stack", "good");
    const other = await run(cwd, "render", tmp, "--stack", "other");
    expect([good.code, other.code]).toEqual([0, 0]);
    expect(good.stdout).toMatch(
      /^Rendered scratch\/good in [\d.]+ s: \d+ resources in \d+ components \(\d+ Kubernetes objects, \d+ Helm releases\)\n {2}wrote resources.yaml, manifests.yaml, helm-releases.yaml, graph.mmd, certificates.yaml to out\/scratch\/good\/\n/,
    );
    for (const stack of ["good", "other"]) {
      expect(fs.readdirSync(path.join(cwd, "out", "scratch", stack)).sort()).toEqual([
        "certificates.yaml",
        "graph.mmd",
        "helm-releases.yaml",
        "manifests.yaml",
        "resources.yaml",
      ]);
    }
  });

  test("the default folder: out/<stack> here, out/<path>/<stack> below, out/<project>/<stack> elsewhere", () => {
    const cwd = path.join(tmp, "work");
    expect(defaultOutDir(cwd, "shop", "dev", cwd)).toBe(path.join("out", "dev"));
    expect(defaultOutDir(path.join(cwd, "examples/books"), "books", "istio", cwd)).toBe(
      path.join("out", "examples", "books", "istio"),
    );
    expect(defaultOutDir(path.join(tmp, "elsewhere"), "shop", "prod", cwd)).toBe(
      path.join("out", "shop", "prod"),
    );
  });

  test("a stack named as the argument renders the program in the current folder", async () => {
    const rendered = await run(tmp, "render", "good", "--out", path.join(tmp, "by-name"));
    expect(rendered.code).toBe(0);
    expect(fs.existsSync(path.join(tmp, "by-name", "resources.yaml"))).toBe(true);
  });
});

describe("what the render refuses, with the whole message and exit 1", () => {
  test("a misspelled namespace and a platform key without platform: are both named", async () => {
    expect(await run(tmp, "render", ".", "--stack", "typo")).toEqual({
      code: 1,
      stdout: "",
      stderr: [
        "rendering scratch/typo: loading the program",
        "Invalid environment config in Pulumi.typo.yaml (2 problems):",
        '  platfrom:monitoring: is in namespace "platfrom", which nothing reads (did you mean "platform"?)',
        "    allowed: platform:<key>, with a key of tier, network, cluster, mesh, isolation, ingress, monitoring, crds, chartSource, teams, apps, sizing, overrides",
        "    fix: rename it to platform:monitoring",
        '  scratch:mesh: is in the program\'s own namespace "scratch", where the platform does not look; mesh is a platform key',
        "    allowed: platform:mesh",
        "    fix: rename it to platform:mesh (in a stack file, a key without a namespace belongs to the program)",
      ].join("\n"),
    });
  });

  test("a config problem a component finds (the kubeconfig's context) names the stack file too", async () => {
    const dir = path.join(tmp, "existing");
    const kubeconfig = path.join(tmp, "kubeconfig-kind");
    fs.writeFileSync(
      kubeconfig,
      "apiVersion: v1\nkind: Config\ncurrent-context: kind-dev\ncontexts:\n  - name: kind-dev\n    context: { cluster: kind-dev }\nclusters:\n  - name: kind-dev\n    cluster: { server: https://127.0.0.1:6443 }\n",
    );
    project(dir, "existing", {
      dev: `${base}  platform:cluster:\n    mode: existing\n    existing:\n      kubeconfigPath: ${kubeconfig}\n      context: prod\n`,
    });
    const result = await run(dir, "render");
    expect({ ...result, stderr: result.stderr.split("\n").slice(1).join("\n") }).toEqual({
      code: 1,
      stdout: "",
      stderr: [
        "Invalid environment config in Pulumi.dev.yaml:",
        '  platform:cluster.existing.context: context "prod" is not in ' + kubeconfig,
        "    allowed: kind-dev",
        "    fix: set platform:cluster.existing.context to one of its contexts",
      ].join("\n"),
    });
  });

  test("a key indented wrongly is pointed at where it starts, not at the line's first column", async () => {
    fs.writeFileSync(
      path.join(tmp, "Pulumi.indent.yaml"),
      `${base}  platform:mesh:\n    kind: linkerd\n   platform:ingress: {}\n`,
    );
    try {
      const result = await run(tmp, "render", ".", "--stack", "indent");
      expect(result).toEqual({
        code: 1,
        stdout: "",
        stderr: [
          "Pulumi.indent.yaml:7:4: not valid YAML: All mapping items must start at the same column",
          "",
          "   platform:ingress: {}",
          "   ^",
        ].join("\n"),
      });
    } finally {
      fs.rmSync(path.join(tmp, "Pulumi.indent.yaml"));
    }
  });

  test("a YAML syntax error names the file, line and column, and shows the line", async () => {
    const result = await run(tmp, "render", ".", "--stack", "broken");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      [
        "Pulumi.broken.yaml:5:18: not valid YAML: Nested mappings are not allowed in compact mappings",
        "",
        "  platform:mesh: kind: istio",
        "                 ^",
      ].join("\n"),
    );
  });

  test("from the real process: a misspelled config is one readable message, no stack trace; a warning links its docs", () => {
    // One process for both (it compiles the library first): --all goes on past the stack that fails.
    const dir = project(path.join(tmp, "real"), "real", {
      bad: `${base}  platform:mesh:\n    kind: linkred\n`,
      nginx: `${base}  platform:ingress:\n    kind: ingress-nginx\n`,
    });
    const result = spawnSync(
      process.execPath,
      [require.resolve("tsx/cli"), path.join(root, "lib/render/cli.ts"), "render", dir, "--all", "--check"],
      { cwd: dir, encoding: "utf8" },
    );
    expect({
      status: result.status,
      stderr: result.stderr
        .trim()
        .split("\n")
        .filter((l) => !l.startsWith("rendering "))
        .join("\n"),
    }).toEqual({
      status: 1,
      stderr: [
        "real/bad failed:",
        "Invalid environment config in Pulumi.bad.yaml:",
        '  platform:mesh.kind: "linkred" is not allowed (did you mean "linkerd"?)',
        '    allowed: "linkerd", "istio", "none"',
        '    fix: set platform:mesh.kind to "linkerd"',
      ].join("\n"),
    });
    expect(result.stdout).toMatch(/^Checked real\/nginx in /);
    expect(result.stdout).toContain(docsLink("docs/migrate-ingress-to-gateway.md"));
  });
});

describe("encrypted config", () => {
  // Written by `pulumi config set --secret PASSWORD opensesame` in a stack whose passphrase is "demo".
  const salt = "v1:nApVG/BPNYo=:v1:z9nHwmyDsdP6VFnP:L7VCw7Vi7030vC906zmeQ/RlTnjnjg==";
  const secret = "v1:bzTfJl4IRVFb9hqI:pWFaDaug9O6jdGibQ2VtnJZHr7WTjjpYFsQ=";
  let dir: string;
  beforeAll(() => {
    const withEmail = (extra: string) =>
      `${extra}${base}  platform:ingress:\n    kind: traefik\n    acme:\n      email:\n        secure: ${secret}\n  platform:apps:\n    - name: web\n      image: web:1\n      port: 8080\n      expose:\n        host: web.example.com\n`;
    dir = project(path.join(tmp, "secrets"), "secrets", {
      passphrase: withEmail(`encryptionsalt: ${salt}\n`),
      kms: withEmail("secretsprovider: gcpkms://projects/acme/locations/global/keyRings/r/cryptoKeys/k\n"),
    });
  });
  const withPassphrase = async <T>(value: string | undefined, body: () => Promise<T>): Promise<T> => {
    const before = process.env.PULUMI_CONFIG_PASSPHRASE;
    if (value === undefined) delete process.env.PULUMI_CONFIG_PASSPHRASE;
    else process.env.PULUMI_CONFIG_PASSPHRASE = value;
    try {
      return await body();
    } finally {
      if (before === undefined) delete process.env.PULUMI_CONFIG_PASSPHRASE;
      else process.env.PULUMI_CONFIG_PASSPHRASE = before;
    }
  };

  test("with the stack's passphrase, a value Pulumi encrypted is read as Pulumi reads it", () => {
    const stack = readStackConfig(readProject(dir), "passphrase", { PULUMI_CONFIG_PASSPHRASE: "demo" });
    expect(JSON.parse(stack.config["platform:ingress"])).toMatchObject({ acme: { email: "opensesame" } });
    expect(stack.secretKeys).toEqual(["platform:ingress"]);
    expect(stack.undecrypted).toBeUndefined();
  });

  test("decrypted, the value is checked, and the message does not quote it", async () => {
    const result = await withPassphrase("demo", () => run(dir, "render", ".", "--stack", "passphrase"));
    expect(result).toEqual({
      code: 1,
      stdout: "",
      stderr: [
        "rendering secrets/passphrase: loading the program",
        "Invalid environment config in Pulumi.passphrase.yaml:",
        "  platform:ingress.acme.email: the secret value is not an email address",
        "    allowed: an email address such as ops@example.com",
        "    fix: set the secret again: pulumi config set --secret --path 'platform:ingress.acme.email' <value>",
      ].join("\n"),
    });
  });

  test("a wrong passphrase is said to be wrong", async () => {
    const result = await withPassphrase("not-demo", () => run(dir, "render", ".", "--stack", "passphrase"));
    expect(result).toEqual({
      code: 1,
      stdout: "",
      stderr: "the passphrase in PULUMI_CONFIG_PASSPHRASE is not the one of Pulumi.passphrase.yaml",
    });
  });

  test("where the render cannot decrypt, it says so plainly, and why", async () => {
    const result = await withPassphrase(undefined, () => run(dir, "render", ".", "--stack", "kms"));
    expect(result).toEqual({
      code: 1,
      stdout: "",
      stderr: [
        "note: platform:ingress is encrypted and shown as [secret]: the render cannot decrypt Pulumi.kms.yaml's secrets, as its secrets provider is gcpkms://projects/acme/locations/global/keyRings/r/cryptoKeys/k, which needs the cloud",
        "rendering secrets/kms: loading the program",
        "Invalid environment config in Pulumi.kms.yaml:",
        "  platform:ingress.acme.email: is encrypted (secure:), and this render could not decrypt it, so its value cannot be checked",
        "    allowed: an email address such as ops@example.com",
        "    fix: render with PULUMI_CONFIG_PASSPHRASE set to the stack's passphrase (passphrase secrets provider); with another secrets provider, pulumi preview checks it",
      ].join("\n"),
    });
  });
});

describe("progress: what the render is doing, from the first second", () => {
  test("a line as each phase starts; once registering has gone on for a second, one, then one every 5 s", () => {
    let now = 0;
    const lines: string[] = [];
    const report = progressReporter("books/linkerd", (l) => lines.push(l), {
      now: () => now,
      loading: () => "compiling index.ts with ts-node, transpile-only",
    });
    report({ phase: "loading", resources: 0, components: 0 });
    for (let n = 1; n <= 12_000; n++) {
      now = n; // one registration a millisecond: 12 s of registering, every tenth a component
      report({ phase: "registering", resources: n - Math.floor(n / 10), components: Math.floor(n / 10) });
    }
    now = 13_000;
    report({ phase: "resolving", resources: 10_800, components: 1_200 });
    now = 13_400;
    report({ phase: "checking", resources: 10_800, components: 1_200 });
    now = 14_000;
    report({ phase: "writing", resources: 10_800, components: 1_200 });
    expect(lines).toEqual([
      "rendering books/linkerd: loading the program: compiling index.ts with ts-node, transpile-only",
      "rendering books/linkerd: registering: 901 resources in 100 components (1 s)",
      "rendering books/linkerd: registering: 5,401 resources in 600 components (6 s)",
      "rendering books/linkerd: registering: 9,901 resources in 1,100 components (11 s)",
      "rendering books/linkerd: resolving what 10,800 resources wait for (13 s)",
      "rendering books/linkerd: checking the safety invariants (13 s)",
      "rendering books/linkerd: writing the files (14 s)",
    ]);
  });

  test("a render's progress counts what its summary counts: resources, not the components that group them", async () => {
    const lines: string[] = [];
    const result = await run(tmp, "render", "good", "--out", path.join(tmp, "out-progress"));
    lines.push(...result.stderr.split("\n"));
    const resolving = lines.find((l) => l.includes("resolving what"));
    const counted = /^Rendered scratch\/good in [\d.]+ s: (\d+) resources in (\d+) components/.exec(
      result.stdout,
    );
    expect(counted).not.toBeNull();
    expect(resolving).toMatch(
      new RegExp(`^rendering scratch/good: resolving what ${counted?.[1]} resources wait for \\(\\d+ s\\)$`),
    );
    expect(lines[0]).toBe("rendering scratch/good: loading the program");
    expect(lines.slice(-2).map((l) => l.replace(/\(\d+ s\)$/, "(n s)"))).toEqual([
      "rendering scratch/good: checking the safety invariants (n s)",
      "rendering scratch/good: writing the files (n s)",
    ]);
  });
});

describe("--charts: what the cluster receives", () => {
  const helm = findHelm();

  /** The body run where no helm is found: HELM unset, a PATH and a home folder without one. */
  const withoutHelm = <T>(body: () => Promise<T>): Promise<T> =>
    withEnv({ PATH: path.dirname(process.execPath), HOME: tmp, HELM: undefined }, () => {
      expect(findHelm()).toBeUndefined();
      return body();
    });

  test("without helm, an empty chart folder names each pinned chart it lacks, the helm pull that fetches it, and that helm is missing too", async () => {
    const empty = fs.mkdtempSync(path.join(tmp, "charts-"));
    const { code, stdout, stderr } = await withoutHelm(() =>
      run(tmp, "render", "good", "--charts", empty, "--out", path.join(tmp, "out-empty")),
    );
    expect({ code, stdout }).toEqual({ code: 1, stdout: "" });
    const lines = stderr.split("\n").filter((l) => !l.startsWith("rendering "));
    const pulls = lines.slice(1, -1);
    const pull = (c: { chart: string; repo: string; version: string }) =>
      `  helm pull ${c.chart} --repo ${c.repo} --version ${c.version} --untar --untardir ${empty}/${c.chart}-${c.version}`;
    expect(lines[0]).toBe(
      `${empty} lacks ${pulls.map((p) => /helm pull (\S+) .*--version (\S+)/.exec(p)?.slice(1).join(" ")).join(", ")}; fetch them with:`,
    );
    expect(pulls).toEqual(expect.arrayContaining([pull(pins.certManager), pull(pins.linkerdControlPlane)]));
    expect(lines[lines.length - 1]).toBe(`${noHelm}; the helm pull commands need it too`);
    expect(noHelm).toBe(
      "no helm binary: --charts templates each release with Helm 3; install it (https://helm.sh/docs/intro/install/) or set HELM to its path",
    );
  });

  test("without helm, a chart folder that has every chart says only that helm is missing", async () => {
    const full = fs.mkdtempSync(path.join(tmp, "charts-"));
    const rendered = await renderStack({
      program: tmp,
      stack: "good",
      write: false,
      registerTypeScript: false,
    });
    for (const r of clusterInputOf("scratch/good", "dev", rendered.result).releases) {
      // The CRD chart and its release can share a chart.
      fs.mkdirSync(path.join(full, `${r.chart}-${r.version}`), { recursive: true });
      fs.writeFileSync(
        path.join(full, `${r.chart}-${r.version}`, "Chart.yaml"),
        `name: ${r.chart}\nversion: ${r.version}\n`,
      );
    }
    const result = await withoutHelm(() =>
      run(tmp, "render", "good", "--charts", full, "--out", path.join(tmp, "out-full")),
    );
    expect({
      ...result,
      stderr: result.stderr.split("\n").filter((l) => !l.startsWith("rendering ")),
    }).toEqual({
      code: 1,
      stdout: "",
      stderr: [noHelm],
    });
  });

  (helm && chartsDir && !chartsProblem ? test : test.skip)(
    `every release templated and checked (${helm ? "helm found" : "no helm: set HELM"}, ${chartsProblem ? `skipped: ${chartsProblem}` : "charts found"})`,
    async () => {
      const out = path.join(tmp, "out-charts");
      const { code, stdout } = await run(tmp, "render", "good", "--charts", chartsDir ?? "", "--out", out);
      const file = fs.readFileSync(path.join(out, "cluster-objects.yaml"), "utf8");
      // The charts' own objects, each naming the release it came from.
      expect(file).toContain(
        "# Deployment linkerd/linkerd-destination from release linkerd/linkerd-control-plane (linkerd-control-plane 2026.8.3)",
      );
      expect(stdout).toMatch(/cluster invariants \(\d+\): /);
      // The trust boundary: each CA key and who may read it, the accepted readers marked.
      expect(stdout).toContain(
        `  CA keys and who may read them (docs/safety.md, "Who may read a CA key"; Kubernetes' own identities aside):`,
      );
      expect(stdout).toMatch(
        /\n    - linkerd\/linkerd-identity-issuer: [^\n]*linkerd-destination in its control plane's namespace \(accepted\)/,
      );
      // A violated invariant fails the render.
      expect(code).toBe(/cluster invariants \(\d+\): all hold/.test(stdout) ? 0 : 1);
    },
    120_000,
  );
});

describe("safety invariants: every render lists them, and a violated one fails it", () => {
  test("a program whose namespace enforces no Pod Security level exits 1, naming the invariant and the resource", async () => {
    const dir = path.join(tmp, "bare-namespace");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: bare\nruntime: nodejs\nmain: index.js\n");
    fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), "config: {}\n");
    fs.writeFileSync(
      path.join(dir, "index.js"),
      `const k8s = require(${JSON.stringify(require.resolve("@pulumi/kubernetes"))});\n` +
        `module.exports = () => { new k8s.core.v1.Namespace("bare", { metadata: { name: "bare" } }); };\n`,
    );
    const { code, stdout } = await run(tmp, "render", dir, "--out", path.join(tmp, "out-bare"));
    expect(code).toBe(1);
    expect(stdout).toContain("safety invariants (10): 1 violated");
    expect(stdout).toContain(
      "violated  namespace-pod-security: Every namespace enforces a Pod Security level.",
    );
    expect(stdout).toMatch(/- kubernetes:core\/v1:Namespace::bare: /);
    // The others are listed as holding.
    expect(stdout).toContain("holds     single-crd-owner:");
  });

  test("the platform's own stacks hold every invariant", async () => {
    const { code, stdout } = await run(tmp, "render", "good", "--out", path.join(tmp, "out-good"));
    expect(code).toBe(0);
    expect(stdout).toContain("safety invariants (10): all hold");
  });
});
