import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as YAML from "yaml";
import { docsLink, installedDoc } from "../../lib/config";
import { linkDocs } from "../../lib/render/cli";
import { nodeFloorProblem } from "../../lib/render/nodeFloor";
import { base, project, root, run, withEnv } from "./cliHarness";

/**
 * The command's newer work, beside test/render/cli.test.ts (which holds its options and messages): the
 * summary by names a reader knows, --json, --check and --all, init, preflight, completion, the Node.js
 * floor, and links to the docs a package user has.
 */

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "render-cli-"));
  project(tmp, "scratch", { good: base, other: base });
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("the summary: what was rendered, where, and in what order, by names a reader knows", () => {
  let shop: string;
  beforeAll(() => {
    shop = project(path.join(tmp, "shop"), "shop", {
      dev: `${base}  platform:apps:\n    - name: shop\n      image: web:1\n      port: 8080\n      expose:\n        host: shop.example.com\n`,
    });
  });

  test("names the files it wrote, counts resources apart from components, and shows each component by its type and purpose", async () => {
    const { code, stdout } = await run(shop, "render", "--out", "out/dev");
    expect(code).toBe(0);
    const lines = stdout.split("\n");
    expect(lines[0]).toMatch(
      /^Rendered shop\/dev in [\d.]+ s: \d+ resources in \d+ components \(\d+ Kubernetes objects, \d+ Helm releases\)$/,
    );
    expect(lines[1]).toBe(
      "  wrote resources.yaml, manifests.yaml, helm-releases.yaml, graph.mmd, certificates.yaml to out/dev/",
    );
    // Components by type and purpose; the Pulumi names (platform-app-shop-shop) stay in resources.yaml.
    expect(lines).toContain("  components, with the resources directly in each:");
    expect(lines).toContain("      App shop/shop: 1 Deployment, 1 Service, 1 ServiceAccount");
    expect(stdout).not.toContain("platform-app-shop-shop");
    const resources = YAML.parse(fs.readFileSync(path.join(shop, "out/dev/resources.yaml"), "utf8")) as {
      resources: { name: string; component?: boolean }[];
    };
    expect(resources.resources.filter((r) => r.component).map((r) => r.name)).toContain(
      "platform-app-shop-shop",
    );
    const counted = /: (\d+) resources in (\d+) components/.exec(lines[0]);
    expect([Number(counted?.[1]), Number(counted?.[2])]).toEqual([
      resources.resources.filter((r) => !r.component).length,
      resources.resources.filter((r) => r.component).length,
    ]);
  });

  test("the critical path: one line per component, each step by its kind and name, no internal names", async () => {
    const { stdout } = await run(shop, "render", "--out", "out/dev");
    const lines = stdout.split("\n");
    const head = lines.findIndex((l) => l.startsWith("  critical path: "));
    expect(lines[head]).toMatch(
      /^ {2}critical path: \d+ steps, the longest chain pulumi up creates one after another, by component:$/,
    );
    const steps = lines.slice(
      head + 1,
      lines.findIndex((l, i) => i > head && !l.startsWith("    ")),
    );
    expect(steps.map((l) => l.slice(0, l.indexOf(":")))).toEqual([
      "    GkeCluster gke-dev / ProjectServices apis",
      "    GkeCluster gke-dev / SecretsKey secrets",
      "    GkeCluster gke-dev",
      "    CertManager",
      "    Linkerd",
      "    Platform",
      "    App shop/shop",
    ]);
    expect(steps).toContain(
      "    Linkerd: Certificate cert-manager/linkerd-trust-anchor, Certificate linkerd/linkerd-identity-issuer, Release linkerd/linkerd-control-plane",
    );
    expect(steps).toContain("    CertManager: Namespace cert-manager, Release cert-manager/cert-manager");
    for (const l of steps) expect(l.length).toBeLessThan(160);
  });
});

describe("--json, --check and --all", () => {
  let multi: string;
  beforeAll(() => {
    multi = project(path.join(tmp, "multi"), "multi", {
      dev: base,
      prod: base.replace("platform:tier: dev", "platform:tier: prod"),
    });
  });

  test("--json prints one JSON document: each stack's counts, files, components, critical path and findings", async () => {
    const { code, stdout } = await run(multi, "render", "--stack", "dev", "--json", "--out", "out/json");
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      ok: boolean;
      stacks: {
        program: string;
        stack: string;
        outDir: string;
        files: string[];
        counts: { resources: number; components: number };
        components: { name: string; shown: string }[];
        criticalPath: { resource: string; shown: string; component?: string }[];
        invariants: { name: string; holds: boolean }[];
        findings: number;
      }[];
    };
    expect(report.ok).toBe(true);
    expect(report.stacks.map((s) => [s.program, s.stack, s.outDir, s.files, s.findings])).toEqual([
      [
        "multi",
        "dev",
        "out/json",
        ["resources.yaml", "manifests.yaml", "helm-releases.yaml", "graph.mmd", "certificates.yaml"],
        0,
      ],
    ]);
    const [dev] = report.stacks;
    expect(dev.components).toContainEqual(
      expect.objectContaining({ name: "platform-linkerd", shown: "Linkerd" }),
    );
    expect(dev.criticalPath[0]).toEqual(
      expect.objectContaining({ component: "GkeCluster gke-dev / ProjectServices apis" }),
    );
    expect(dev.invariants.every((i) => i.holds)).toBe(true);
  });

  test("--check writes nothing and exits 0 where every invariant holds", async () => {
    const { code, stdout } = await run(multi, "render", "--stack", "dev", "--check");
    expect(code).toBe(0);
    expect(stdout.split("\n")[0]).toMatch(
      /^Checked multi\/dev in [\d.]+ s, writing nothing: \d+ resources in \d+ components/,
    );
    expect(stdout).toContain("  safety invariants (10): all hold");
    expect(fs.existsSync(path.join(multi, "out", "dev"))).toBe(false);
  });

  test("--check exits 1 on a finding, writing nothing; --json says which", async () => {
    const dir = path.join(tmp, "bare-check");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: bare\nruntime: nodejs\nmain: index.js\n");
    fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), "config: {}\n");
    fs.writeFileSync(
      path.join(dir, "index.js"),
      `const k8s = require(${JSON.stringify(require.resolve("@pulumi/kubernetes"))});\n` +
        `module.exports = () => { new k8s.core.v1.Namespace("bare", { metadata: { name: "bare" } }); };\n`,
    );
    const text = await run(dir, "render", "--check");
    expect(text.code).toBe(1);
    expect(text.stdout).toContain("safety invariants (10): 1 violated");
    const json = await run(dir, "render", "--check", "--json");
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as {
      ok: boolean;
      stacks: {
        findings: number;
        checkOnly: boolean;
        invariants: { name: string; violations: { resource: string }[] }[];
      }[];
    };
    expect(report.ok).toBe(false);
    expect(report.stacks[0].findings).toBe(1);
    expect(report.stacks[0].checkOnly).toBe(true);
    expect(report.stacks[0].invariants.find((i) => i.name === "namespace-pod-security")?.violations).toEqual([
      expect.objectContaining({ resource: "kubernetes:core/v1:Namespace::bare" }),
    ]);
    expect(fs.readdirSync(dir).sort()).toEqual(["Pulumi.dev.yaml", "Pulumi.yaml", "index.js"]);
  });

  test("--all renders every stack into its own folder, then says how they all went", async () => {
    const { code, stdout } = await run(multi, "render", "--all", "--out", "out/all");
    expect(code).toBe(0);
    expect(stdout.split("\n").filter((l) => /^(Rendered|Checked) /.test(l))).toEqual([
      expect.stringMatching(/^Rendered multi\/dev in /),
      expect.stringMatching(/^Rendered multi\/prod in /),
      "Rendered 2 stacks of multi: dev, prod; all hold",
    ]);
    expect(fs.readdirSync(path.join(multi, "out/all")).sort()).toEqual(["dev", "prod"]);
  });

  test("--all goes on past a stack that fails, names it, and exits 1; --json reports its problems", async () => {
    fs.writeFileSync(path.join(multi, "Pulumi.broken.yaml"), `${base}  platform:mesh:\n    kind: linkred\n`);
    try {
      const text = await run(multi, "render", "--all", "--check");
      expect(text.code).toBe(1);
      expect(text.stderr).toContain(
        'multi/broken failed:\nInvalid environment config in Pulumi.broken.yaml:\n  platform:mesh.kind: "linkred" is not allowed',
      );
      expect(text.stdout.split("\n").pop()).toBe(
        "Checked 3 stacks of multi: broken, dev, prod; 1 failed or with findings: broken",
      );
      const json = JSON.parse((await run(multi, "render", "--all", "--check", "--json")).stdout) as {
        ok: boolean;
        stacks: { stack: string; error?: { problems: { path: string; fix: string }[] } }[];
      };
      expect(json.ok).toBe(false);
      expect(json.stacks.map((s) => [s.stack, s.error?.problems])).toEqual([
        [
          "broken",
          [
            expect.objectContaining({
              path: "platform:mesh.kind",
              fix: 'set platform:mesh.kind to "linkerd"',
            }),
          ],
        ],
        ["dev", undefined],
        ["prod", undefined],
      ]);
    } finally {
      fs.rmSync(path.join(multi, "Pulumi.broken.yaml"));
    }
  });
});

describe("init: a program of your own, ready to render", () => {
  test("writes the six files, checks its config first, and the new program renders at once", async () => {
    const dir = path.join(tmp, "mine");
    const made = await run(
      tmp,
      "init",
      "mine",
      "--mesh",
      "istio",
      "--ingress",
      "traefik",
      "--monitoring",
      "prometheus",
      "--no-install",
      "--from",
      "file:/nowhere/gke-mesh-platform.tgz",
    );
    expect(made.code).toBe(0);
    expect(made.stdout.split("\n")[0]).toBe(
      "Wrote a new program in mine: Pulumi.yaml, Pulumi.dev.yaml, index.ts, package.json, tsconfig.json, .gitignore",
    );
    expect(made.stdout).toContain("  cd mine && npm install");
    expect(made.stdout).toContain(
      "  cd mine && npx gke-mesh-platform render    # what the dev stack deploys, offline, into out/dev/",
    );
    expect(made.stdout).toContain("This machine's tools (gke-mesh-platform preflight):");
    const stack = fs.readFileSync(path.join(dir, "Pulumi.dev.yaml"), "utf8");
    expect(stack.split("\n")[0]).toBe(
      "# yaml-language-server: $schema=./node_modules/gke-mesh-platform/dist/stack-config.schema.json",
    );
    expect(YAML.parse(stack)).toEqual({
      config: {
        "gcp:project": "my-gcp-project",
        "gcp:region": "europe-west1",
        "platform:tier": "dev",
        "platform:mesh": { kind: "istio" },
        "platform:ingress": { kind: "traefik", acme: { email: "ops@example.com" } },
        "platform:monitoring": { backend: "prometheus" },
        "platform:apps": [
          {
            name: "hello",
            image: "us-docker.pkg.dev/google-samples/containers/gke/hello-app:2.0",
            port: 8080,
            expose: { host: "hello.example.com" },
          },
        ],
      },
    });
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as {
      name: string;
      dependencies: Record<string, string>;
      engines: { node: string };
    };
    const own = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
      peerDependencies: Record<string, string>;
      engines: { node: string };
    };
    expect(pkg.name).toBe("mine");
    expect(pkg.dependencies).toEqual({
      "gke-mesh-platform": "file:/nowhere/gke-mesh-platform.tgz",
      ...own.peerDependencies,
    });
    expect(pkg.engines).toEqual(own.engines);
    // Jest resolves gke-mesh-platform to lib/, as an installed package would be.
    const rendered = await run(dir, "render");
    expect(rendered.code).toBe(0);
    expect(rendered.stdout).toMatch(/^Rendered mine\/dev in /);
    expect(rendered.stdout).toContain("    Istio");
  });

  test("the README's Your own program shows the files init writes, as it writes them", async () => {
    const made = await run(tmp, "init", "my-platform", "--no-install", "--from", "file:/x.tgz");
    expect(made.code).toBe(0);
    const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
    const section = readme.slice(
      readme.indexOf("## Your own program"),
      readme.indexOf("\n## ", readme.indexOf("## Your own program") + 3),
    );
    const blocks = [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], text: m[2] }));
    const file = (name: string) => fs.readFileSync(path.join(tmp, "my-platform", name), "utf8");
    expect(blocks.find((b) => b.text.startsWith("# Pulumi.yaml\n"))?.text).toBe(
      `# Pulumi.yaml\n${file("Pulumi.yaml")}`,
    );
    expect(blocks.find((b) => b.lang === "yaml")?.text).toBe(file("Pulumi.dev.yaml"));
    expect(blocks.find((b) => b.lang === "ts")?.text).toBe(file("index.ts"));
    expect(section).toContain(
      "npx --yes --package ./gke-mesh-platform-0.1.0.tgz gke-mesh-platform init ../my-platform \\\n  --mesh linkerd --ingress gke-gateway --monitoring managed-prometheus",
    );
  });

  test("refuses a folder that has any of its files, and a choice it does not offer, naming what it offers", async () => {
    const dir = path.join(tmp, "taken");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "index.ts"), "");
    expect(await run(tmp, "init", "taken", "--no-install")).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "taken already has index.ts: init writes a new program and overwrites nothing; give an empty or new folder, such as gke-mesh-platform init my-platform",
    });
    expect(await run(tmp, "init", "fresh", "--mesh", "linkred")).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "gke-mesh-platform init: --mesh linkred is not one of linkerd, istio, none: did you mean --mesh linkerd?\nrun gke-mesh-platform init --help for how to use it",
    });
    expect(fs.existsSync(path.join(tmp, "fresh"))).toBe(false);
  });
});

describe("preflight, completion and the Node.js floor", () => {
  test("preflight names each tool, found or not, with what needs it and how to get it", async () => {
    const bin = fs.mkdtempSync(path.join(tmp, "bin-"));
    fs.writeFileSync(path.join(bin, "npm"), "#!/bin/sh\necho 10.9.0\n", { mode: 0o755 });
    const { code, stdout } = await withEnv({ PATH: bin, HOME: tmp, HELM: undefined }, () =>
      run(tmp, "preflight"),
    );
    expect(code).toBe(0);
    expect(stdout.split("\n")).toEqual([
      `  ok       Node.js                 ${process.versions.node}`,
      "  ok       npm                     10.9.0",
      "  missing  helm                    for render --charts: templating every release with the pinned charts, and the helm pull that fetches them; install Helm 3 (https://helm.sh/docs/intro/install/), or set HELM to its path",
      "  missing  pulumi                  for pulumi up: deploying; install the Pulumi CLI (https://www.pulumi.com/docs/install/)",
      "  missing  gcloud                  for signing in to Google Cloud (gcloud auth application-default login); install the Google Cloud SDK (https://cloud.google.com/sdk/docs/install)",
      "  missing  gke-gcloud-auth-plugin  for reaching a GKE cluster: the kubeconfig the platform makes authenticates through it; gcloud components install gke-gcloud-auth-plugin",
    ]);
  });

  test("bash completion offers the commands, each command's options, and the stacks after --stack", async () => {
    const script = (await run(tmp, "completion", "bash")).stdout;
    const complete = (...words: string[]) =>
      spawnSync(
        "bash",
        [
          "-c",
          `${script}\nCOMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(" ")}); COMP_CWORD=${words.length - 1}; _gke_mesh_platform; echo "\${COMPREPLY[*]}"`,
        ],
        { cwd: tmp, encoding: "utf8" },
      ).stdout.trim();
    expect(complete("gke-mesh-platform", "")).toBe(
      "render init versions preflight doctor completion --help --version",
    );
    expect(complete("gke-mesh-platform", "render", "--st")).toBe("--stack --stages");
    expect(complete("gke-mesh-platform", "render", "--stack", "")).toBe("good other");
    expect(complete("gke-mesh-platform", "init", "--mesh", "")).toBe("linkerd istio none");
    expect(complete("gke-mesh-platform", "doctor", "--k")).toBe("--kubeconfig");
  });

  // A Node.js below the floor on this machine, such as a system /usr/bin/node 20, runs the real command.
  const oldNode = ["/usr/bin/node", "/usr/local/bin/node", "/bin/node"].find((file) => {
    const version = spawnSync(file, ["--version"], { encoding: "utf8" }).stdout?.trim();
    return version !== undefined && version !== "" && nodeFloorProblem(version) !== undefined;
  });
  (oldNode ? test : test.skip)(
    `the real command and the tests on an old Node.js refuse in one line (${oldNode ?? "skipped: no Node.js below the floor on this machine"})`,
    () => {
      const version = spawnSync(oldNode as string, ["--version"], { encoding: "utf8" }).stdout.trim();
      const result = spawnSync(
        oldNode as string,
        [require.resolve("tsx/cli"), path.join(root, "lib/render/cli.ts"), "render", "dev"],
        { cwd: root, encoding: "utf8" },
      );
      expect({ status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
        status: 1,
        stdout: "",
        stderr: `${nodeFloorProblem(version)}\n`,
      });
      // So do the tests, before jest loads anything.
      const jest = spawnSync(oldNode as string, [require.resolve("jest/bin/jest"), "--listTests"], {
        cwd: root,
        encoding: "utf8",
      });
      expect({ status: jest.status, stderr: jest.stderr }).toEqual({
        status: 1,
        stderr: `the tests need Node.js 22 or later (package.json engines), and this is Node.js ${version.replace(/^v/, "")}: install Node.js 22 or a later LTS (https://nodejs.org/en/download), or switch to it (nvm use 22)\n`,
      });
    },
  );

  test("below the package's Node.js floor, the command says so in one line with the fix", () => {
    expect(nodeFloorProblem("20.19.0", ">=22")).toBe(
      "gke-mesh-platform needs Node.js 22 or later (package.json engines: >=22), and this is Node.js 20.19.0: install Node.js 22 or a later LTS (https://nodejs.org/en/download), or switch to it (nvm use 22)",
    );
    expect(nodeFloorProblem("22.0.0", ">=22")).toBeUndefined();
    expect(nodeFloorProblem("24.21.0", ">=22")).toBeUndefined();
    expect(nodeFloorProblem(process.versions.node)).toBeUndefined();
  });
});

describe("what the command prints names what a package user has", () => {
  test("a doc named in a message is where the reader has it: the installed package's docs/, or here", () => {
    // In this repository the file itself; the installed package (test/package) names node_modules/gke-mesh-platform/docs.
    expect(
      linkDocs("plan the move (docs/migrate-ingress-to-gateway.md); pins: lib/versions/charts.ts."),
    ).toBe("plan the move (docs/migrate-ingress-to-gateway.md); pins: lib/versions/charts.ts.");
    expect(installedDoc("docs/safety.md", "ca-keys-confined")).toBe(
      "node_modules/gke-mesh-platform/docs/safety.md#ca-keys-confined",
    );
    expect(fs.existsSync(path.join(root, "docs/safety.md"))).toBe(true);
  });

  test("the help names the files a render writes, and links the safety invariants' docs", async () => {
    const { stdout } = await run(tmp, "render", "--help");
    expect(stdout).toContain(
      "writes what it would deploy into out/<stack>/: resources.yaml, manifests.yaml, helm-releases.yaml,\ngraph.mmd and certificates.yaml (with --charts, cluster-objects.yaml; with --diff, diff.yaml).",
    );
    expect(stdout).toContain(`  ${docsLink("docs/safety.md")}`);
  });
});
