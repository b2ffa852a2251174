import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { main, parseFlags, renderFlags, UsageError, type CliIo } from "../../lib/render/cli";
import { progressReporter } from "../../lib/render/progress";
import { defaultOutDir, readProject, readStackConfig } from "../../lib/render";
import { findHelm } from "../../lib/cluster";
import { chartsDir, chartsProblem } from "../upstream/reference";

/**
 * The render as a command: help exits 0; a wrong command line exits 2 naming what is wrong and how
 * to get help; a config or program error exits 1 with its message and no stack trace; each stack
 * gets its own folder.
 */

const root = path.resolve(__dirname, "../..");
let tmp: string;

/** The command run in `cwd`, its output captured. */
async function run(
  cwd: string,
  ...argv: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    cwd,
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    invokedAs: "gke-mesh-platform render",
    // Jest loads TypeScript itself.
    registerTypeScript: false,
  };
  // File names in messages are relative to the working folder, as in a shell there.
  const before = process.cwd();
  process.chdir(cwd);
  try {
    const code = await main(argv, io);
    return { code, stdout: out.join("\n"), stderr: err.join("\n") };
  } finally {
    process.chdir(before);
  }
}

const base = "config:\n  gcp:project: acme-scratch\n  gcp:region: europe-west1\n  platform:tier: dev\n";

/** A project whose program is the repository's, with stack files by name. */
function project(dir: string, name: string, stacks: Record<string, string>): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    `name: ${name}\nruntime: nodejs\nmain: ${JSON.stringify(path.join(root, "stacks", "index.ts"))}\n`,
  );
  for (const [stack, text] of Object.entries(stacks))
    fs.writeFileSync(path.join(dir, `Pulumi.${stack}.yaml`), text);
  return dir;
}

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
    [[], "give a command: render or versions or doctor"],
    [["rendr"], 'unknown command "rendr" (did you mean render?)'],
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
      ". has 5 stacks (bad, broken, good, other, typo): choose one with --stack, such as gke-mesh-platform render . --stack bad",
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
        "examples/books has 2 stacks (istio, linkerd): choose one with --stack, such as gke-mesh-platform render examples/books --stack istio",
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
      /^Rendered scratch\/good to out\/scratch\/good\/: \d+ resources in \d+ components/,
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
        "Invalid environment config in Pulumi.typo.yaml (2 problems):",
        '  platfrom:monitoring: is in namespace "platfrom", which nothing reads (did you mean "platform"?)',
        "    allowed: platform:<key>, with a key of tier, network, cluster, mesh, ingress, monitoring, crds, chartSource, apps, sizing, overrides",
        "    fix: rename it to platform:monitoring",
        '  scratch:mesh: is in the program\'s own namespace "scratch", where the platform does not look; mesh is a platform key',
        "    allowed: platform:mesh",
        "    fix: rename it to platform:mesh (in a stack file, a key without a namespace belongs to the program)",
      ].join("\n"),
    });
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

  test("a misspelled config exits 1 with one readable message and no stack trace, from the real process", () => {
    const result = spawnSync(
      process.execPath,
      [require.resolve("tsx/cli"), path.join(root, "lib/render/cli.ts"), "render", tmp, "--stack", "bad"],
      { cwd: root, encoding: "utf8" },
    );
    expect({ status: result.status, stdout: result.stdout, stderr: result.stderr.trim() }).toEqual({
      status: 1,
      stdout: "",
      stderr: [
        "Invalid environment config in Pulumi.bad.yaml:",
        '  platform:mesh.kind: "linkred" is not allowed (did you mean "linkerd"?)',
        '    allowed: "linkerd", "istio", "none"',
        '    fix: set platform:mesh.kind to "linkerd"',
      ].join("\n"),
    });
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
        "Invalid environment config in Pulumi.kms.yaml:",
        "  platform:ingress.acme.email: is encrypted (secure:), and this render could not decrypt it, so its value cannot be checked",
        "    allowed: an email address such as ops@example.com",
        "    fix: render with PULUMI_CONFIG_PASSPHRASE set to the stack's passphrase (passphrase secrets provider); with another secrets provider, pulumi preview checks it",
      ].join("\n"),
    });
  });
});

describe("progress on long renders", () => {
  test("nothing for a short render; after 3 s a line, then one every 5 s, and one on resolving", () => {
    let now = 0;
    const lines: string[] = [];
    const report = progressReporter(
      "books/linkerd",
      (l) => lines.push(l),
      () => now,
    );
    for (let n = 1; n <= 12_000; n++) {
      now = n; // one resource a millisecond: 12 s of registering
      report({ phase: "registering", resources: n });
    }
    now = 13_000;
    report({ phase: "resolving", resources: 12_000 });
    expect(lines).toEqual([
      "rendering books/linkerd: 3,000 resources registered (3 s)",
      "rendering books/linkerd: 8,000 resources registered (8 s)",
      "rendering books/linkerd: resolving what 12,000 resources wait for (13 s)",
    ]);
    const quiet: string[] = [];
    const short = progressReporter(
      "dev",
      (l) => quiet.push(l),
      () => 100,
    );
    short({ phase: "registering", resources: 1 });
    short({ phase: "resolving", resources: 1 });
    expect(quiet).toEqual([]);
  });
});

describe("--charts: what the cluster receives", () => {
  const helm = findHelm();

  test("a chart folder without the pinned charts names each one and the helm pull that fetches it", async () => {
    const empty = fs.mkdtempSync(path.join(tmp, "charts-"));
    const { code, stderr } = await run(
      tmp,
      "render",
      "good",
      "--charts",
      empty,
      "--out",
      path.join(tmp, "out-empty"),
    );
    expect(code).toBe(1);
    expect(stderr).toContain(`${empty} lacks cert-manager v1.21.2`);
    expect(stderr).toContain(
      `helm pull linkerd-control-plane --repo https://helm.linkerd.io/edge --version 2026.8.3 --untar --untardir ${empty}/linkerd-control-plane-2026.8.3`,
    );
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
    expect(stdout).toContain("safety invariants (9): 1 violated");
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
    expect(stdout).toContain("safety invariants (9): all hold");
  });
});
