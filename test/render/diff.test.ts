import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as YAML from "yaml";
import { findHelm } from "../../lib/cluster";
import { run } from "./cliHarness";
import {
  applyOrder,
  clusterObjectsOf,
  diffRenders,
  diffSummary,
  diffYaml,
  readRenderFolder,
  renderFiles,
  renderStack,
  type RenderDiff,
  type RenderFiles,
  type RenderResult,
} from "../../lib/render";
import { charts, gatewayApi } from "../../lib/versions";
import { chartsDir, chartsProblem, referenceDir, skipReason } from "../upstream/reference";

/**
 * The upgrade preview, `render --diff`: per component, what an upgrade adds, changes (by field path),
 * removes and replaces (naming the field and the upstream code that forces it), never a secret's value.
 */

const root = path.resolve(__dirname, "../..");
const helm = findHelm();
let tmp = "";

beforeAll(() => {
  // Made when the tests run, not when the file is read: a filtered run leaves nothing behind.
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "render-diff-test-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The repository's dev stack, as its stack file holds it. */
const devConfig = (): Record<string, unknown> =>
  (
    YAML.parse(fs.readFileSync(path.join(root, "stacks", "Pulumi.dev.yaml"), "utf8")) as {
      config: Record<string, unknown>;
    }
  ).config;

/** A program folder whose program is the repository's, with one stack, dev, of this config. */
function program(name: string, config: Record<string, unknown>): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    `name: gke-mesh-platform\nruntime: nodejs\nmain: ${JSON.stringify(path.join(root, "stacks", "index.ts"))}\n`,
  );
  fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), YAML.stringify({ config }));
  return dir;
}

const render = (dir: string, out: string, withCharts = false) =>
  renderStack({
    program: dir,
    stack: "dev",
    out: path.join(tmp, out),
    registerTypeScript: false,
    ...(withCharts && chartsDir ? { chartsDir } : {}),
  });

const component = (diff: RenderDiff, label: string) => {
  const found = diff.components.find((c) => c.component === label);
  if (!found)
    throw new Error(`no component ${label} in ${diff.components.map((c) => c.component).join(", ")}`);
  return found;
};
const object = (diff: RenderDiff, label: string, name: string) => {
  const found = component(diff, label).objects.find((o) => o.object === name);
  if (!found) throw new Error(`no ${name} under ${label}`);
  return found;
};

describe("Pulumi resources: resources.yaml", () => {
  test("the same render twice: no differences, and diff.yaml is the same every time", async () => {
    const dir = program("same", devConfig());
    await render(dir, "same-a");
    await render(dir, "same-b");
    const diff = diffRenders(
      readRenderFolder(path.join(tmp, "same-a")),
      readRenderFolder(path.join(tmp, "same-b")),
      {
        before: "a",
        after: "b",
      },
    );
    expect(diff.counts).toEqual({ added: 0, changed: 0, removed: 0, replaced: 0 });
    expect(diff.components).toEqual([]);
    expect(diffSummary(diff)).toBe(
      [
        "  changes from a: none",
        "  note: the objects each chart renders are not compared: render with --charts to compare them too",
      ].join("\n"),
    );
    expect(diffYaml(diff)).toBe(
      diffYaml(
        diffRenders(readRenderFolder(path.join(tmp, "same-a")), readRenderFolder(path.join(tmp, "same-b")), {
          before: "a",
          after: "b",
        }),
      ),
    );
  }, 60_000);

  test("more replicas change a field; a new app adds its objects; an on-demand pool replaces the spot one", async () => {
    const dir = program("config", devConfig());
    await render(dir, "config-before");
    const config = devConfig();
    const apps = config["platform:apps"] as Record<string, unknown>[];
    config["platform:apps"] = [
      { ...apps[0], replicas: 3 },
      { name: "cart", image: "us-docker.pkg.dev/google-samples/containers/gke/hello-app:2.0", port: 8080 },
    ];
    config["platform:cluster"] = {
      nodePools: [{ name: "default", machineType: "e2-standard-4", minNodes: 1, maxNodes: 3, spot: false }],
    };
    fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), YAML.stringify({ config }));
    await render(dir, "config-after");
    const diff = diffRenders(
      readRenderFolder(path.join(tmp, "config-before")),
      readRenderFolder(path.join(tmp, "config-after")),
    );

    const shop = object(diff, "platform-app-shop-shop (App)", "Deployment shop/shop");
    expect(shop).toMatchObject({
      change: "changed",
      key: "kubernetes:apps/v1:Deployment::platform-app-shop-shop-deployment-shop-shop",
    });
    expect(shop.fields).toContainEqual({ path: "spec.replicas", change: "1 -> 3" });
    expect(
      component(diff, "platform-app-cart-cart (App)").objects.map((o) => `${o.change} ${o.object}`),
    ).toEqual(
      expect.arrayContaining([
        "added Deployment cart/cart",
        "added Service cart/cart",
        "added ServiceAccount cart/cart",
      ]),
    );

    // GKE cannot turn a spot pool into an on-demand one: the platform renames the pool, and both replace it.
    const pool = object(diff, "gke-dev (GkeCluster)", "NodePool gke-dev-default");
    expect(pool.change).toBe("replaced");
    expect(pool.fields).toEqual([
      {
        path: "name",
        change: "default-spot -> default",
        forcesReplacement: expect.stringMatching(
          /terraform-provider-google-beta v7\.45\.0 google-beta\/services\/container\/resource_container_node_pool\.go/,
        ) as unknown,
      },
      {
        path: "nodeConfig.spot",
        change: "true -> false",
        forcesReplacement: expect.stringMatching(
          /google-beta\/services\/container\/node_config\.go/,
        ) as unknown,
      },
    ]);
    expect(pool.notes).toEqual(["Pulumi creates the replacement, then deletes the old one"]);
    // Nothing else of the cloud changes.
    expect(diff.counts.replaced).toBe(1);

    const summary = diffSummary(diff);
    expect(summary).toContain(
      "      changed   Deployment shop/shop\n                  spec.replicas: 1 -> 3",
    );
    expect(summary).toContain(
      "      replaced  NodePool gke-dev-default\n                  name: default-spot -> default [forces replacement: hashicorp/terraform-provider-google-beta v7.45.0",
    );
  }, 90_000);
});

/** A render's files, as a test writes them: resources.yaml of these resources, and chart objects. */
function files(
  resources: readonly Record<string, unknown>[],
  chartObjects?: readonly { release: string; chart: string; object: Record<string, unknown> }[],
): RenderFiles {
  const docs = (chartObjects ?? []).map((c) => {
    const doc = new YAML.Document(c.object);
    doc.commentBefore = ` ${String(c.object.kind)} from release ${c.release} (${c.chart})`;
    return doc.toString();
  });
  return {
    "resources.yaml": YAML.stringify({ project: "p", stack: "dev", resources }),
    ...(chartObjects ? { "cluster-objects.yaml": `# header\n\n${docs.join("---\n")}` } : {}),
  };
}

const k8sObject = (
  type: string,
  name: string,
  inputs: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) => ({
  type,
  name,
  parent: "my:index:Shop::shop",
  ...extra,
  inputs,
});
const shopComponent = { type: "my:index:Shop", name: "shop", component: true };

describe("replacements, each from its upstream rule", () => {
  test("a Secret's value is never printed; Pulumi replaces a Secret whose data changes", () => {
    const secret = (password: string) =>
      k8sObject("kubernetes:core/v1:Secret", "db", {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "db", namespace: "shop" },
        stringData: { password },
      });
    const settings = (token: string) =>
      k8sObject("kubernetes:core/v1:ConfigMap", "settings", {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "settings", namespace: "shop" },
        data: { token },
      });
    const chartSecret = (password: string) => ({
      release: "shop/vault",
      chart: "vault 1.0.0",
      object: {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "admin", namespace: "shop" },
        data: { password },
      },
    });
    const diff = diffRenders(
      files([shopComponent, secret("hunter2"), settings("hunter2-token")], [chartSecret("aHVudGVyMg==")]),
      files([shopComponent, secret("hunter3"), settings("[secret]")], [chartSecret("aHVudGVyMw==")]),
    );
    const shown = diffYaml(diff) + diffSummary(diff);
    for (const value of ["hunter", "aHVudGVy"]) expect(shown).not.toContain(value);

    const db = object(diff, "shop (Shop)", "Secret shop/db");
    expect(db.fields).toEqual([
      {
        path: "stringData.password",
        change: "changed (secret)",
        forcesReplacement: expect.stringContaining("IsSecret") as unknown,
      },
    ]);
    expect(db.change).toBe("replaced");
    expect(db.notes).toContain(
      "Pulumi deletes it, then creates it again: the new object has the same name (pulumi/pulumi-kubernetes v4.25.0 (provider/v4@v4.0.0-20260115033456-f47bc2d6f199) provider/pkg/provider/provider.go Diff (deleteBeforeReplace))",
    );
    // A value that became a Pulumi secret shows as [secret]: said so, not printed.
    expect(object(diff, "shop (Shop)", "ConfigMap shop/settings").fields).toEqual([
      {
        path: "data.token",
        change: "changed (secret)",
        forcesReplacement: expect.stringContaining("IsConfigMap") as unknown,
      },
    ]);
    expect(
      object(diff, "(outside any component) / release shop/vault (vault 1.0.0)", "Secret shop/admin").fields,
    ).toEqual([{ path: "data.password", change: "changed (secret)" }]);
  });

  test("immutable fields: what Pulumi replaces, what the API server refuses, what Helm cannot patch", () => {
    const service = (clusterIP?: string) =>
      k8sObject("kubernetes:core/v1:Service", "svc", {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "svc", namespace: "shop" },
        spec: { ...(clusterIP ? { clusterIP } : {}), ports: [{ name: "http", port: 80 }] },
      });
    const job = (image: string, completionMode: string) =>
      k8sObject("kubernetes:batch/v1:Job", "migrate", {
        apiVersion: "batch/v1",
        kind: "Job",
        metadata: { name: "migrate", namespace: "shop" },
        spec: { completionMode, template: { spec: { containers: [{ name: "migrate", image }] } } },
      });
    const deployment = (app: string) => ({
      release: "shop/web",
      chart: "web 1.0.0",
      object: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "web", namespace: "shop" },
        spec: { replicas: 1, selector: { matchLabels: { app } } },
      },
    });
    const diff = diffRenders(
      files([shopComponent, service("None"), job("m:1", "NonIndexed")], [deployment("web")]),
      files([shopComponent, service(), job("m:2", "Indexed")], [deployment("web-v2")]),
    );
    expect(object(diff, "shop (Shop)", "Service shop/svc").replacedBy).toEqual([
      {
        field: "spec.clusterIP",
        source:
          "pulumi/pulumi-kubernetes v4.25.0 (provider/v4@v4.0.0-20260115033456-f47bc2d6f199) provider/pkg/provider/diff.go forceNew",
      },
    ]);
    // The provider's table replaces a Job for its template; completionMode only the API server guards.
    expect(object(diff, "shop (Shop)", "Job shop/migrate").replacedBy?.map((r) => r.field)).toEqual([
      "spec.template",
      "spec.completionMode",
    ]);
    const web = object(diff, "(outside any component) / release shop/web (web 1.0.0)", "Deployment shop/web");
    expect(web.change).toBe("replaced");
    expect(web.replacedBy).toEqual([
      {
        field: "spec.selector",
        source:
          "kubernetes/kubernetes v1.36.3 pkg/apis/apps/validation/validation.go ValidateDeploymentUpdate",
      },
    ]);
    expect(web.notes?.[0]).toMatch(
      /^Helm cannot patch it \(helm\/helm v3\.18\.6 pkg\/kube\/client\.go updateResource\)/,
    );
  });

  test("GCP: a subnet that grows is updated, one that moves is replaced; an ignored field changes nothing", () => {
    const subnet = (ipCidrRange: string) => ({
      type: "gcp:compute/subnetwork:Subnetwork",
      name: "nodes",
      inputs: { name: "nodes", ipCidrRange, region: "europe-west1" },
    });
    const pool = (initialNodeCount: number) => ({
      type: "gcp:container/nodePool:NodePool",
      name: "pool",
      options: { ignoreChanges: ["initialNodeCount"] },
      inputs: { name: "default", initialNodeCount },
    });
    const grown = diffRenders(
      files([subnet("10.0.0.0/20"), pool(1)]),
      files([subnet("10.0.0.0/19"), pool(3)]),
    );
    expect(object(grown, "(outside any component)", "Subnetwork nodes").change).toBe("changed");
    expect(object(grown, "(outside any component)", "NodePool pool")).toMatchObject({
      change: "changed",
      fields: [{ path: "initialNodeCount", change: "1 -> 3", ignored: true }],
      notes: [
        expect.stringMatching(/^pulumi up applies none of this: every changed field is in ignoreChanges/),
      ],
    });
    const moved = diffRenders(files([subnet("10.0.0.0/20")]), files([subnet("10.16.0.0/20")]));
    expect(object(moved, "(outside any component)", "Subnetwork nodes").replacedBy).toEqual([
      {
        field: "ipCidrRange",
        source:
          "hashicorp/terraform-provider-google-beta v7.45.0 google-beta/services/compute/resource_compute_subnetwork.go CustomizeDiff ForceNewIfChange(ip_cidr_range, IsShrinkageIpCidr)",
      },
    ]);
  });

  test("a provider for another cluster replaces every object it deploys; a protected one is refused", () => {
    const provider = (cluster: string) => ({
      type: "pulumi:providers:kubernetes",
      name: "k8s",
      inputs: { clusterIdentifier: cluster, kubeconfig: "[secret]" },
    });
    const ns = k8sObject(
      "kubernetes:core/v1:Namespace",
      "ns",
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } },
      { provider: "pulumi:providers:kubernetes::k8s", options: { protect: true } },
    );
    const diff = diffRenders(
      files([shopComponent, provider("a"), ns]),
      files([shopComponent, provider("b"), ns]),
    );
    expect(object(diff, "(outside any component)", "Provider (kubernetes) k8s").replacedBy?.[0].field).toBe(
      "clusterIdentifier",
    );
    const namespace = object(diff, "shop (Shop)", "Namespace shop");
    expect(namespace.change).toBe("replaced");
    expect(namespace.replacedBy?.[0].source).toMatch(
      /^its provider pulumi:providers:kubernetes::k8s is replaced/,
    );
    expect(namespace.notes).toContainEqual(
      expect.stringMatching(/^protected: pulumi up refuses to replace it/),
    );
  });
});

describe("chart objects: cluster-objects.yaml", () => {
  // The earlier chart, v1.21.1, is the shared reference's; the pinned ones are the reference's (chartsProblem).
  const earlierChart = chartsDir && path.join(chartsDir, "cert-manager-v1.21.1");
  const chartsReason =
    chartsProblem ?? (earlierChart && fs.existsSync(earlierChart) ? undefined : `no ${earlierChart}`);
  (helm && chartsDir && !chartsReason ? test : test.skip)(
    `a chart bump: the release's version, and the images of cert-manager's Deployments (${helm ? "helm found" : "no helm: set HELM"}, ${chartsReason ? `skipped: ${chartsReason}` : "charts found"})`,
    async () => {
      const dir = program("bump", devConfig());
      const rendered = await render(dir, "bump", true);
      // The earlier state: the same render with cert-manager at v1.21.1, templated from that chart.
      const resources = rendered.result.resources.map((r) =>
        r.type === "kubernetes:helm.sh/v3:Release" && r.inputs.chart === "cert-manager"
          ? { ...r, inputs: { ...r.inputs, version: "v1.21.1" } }
          : r,
      );
      const earlier: RenderResult = { ...rendered.result, resources, order: applyOrder(resources) };
      const before: RenderFiles = {
        ...renderFiles(earlier),
        "cluster-objects.yaml": (
          await clusterObjectsOf("bump/dev", earlier, { chartsDir: chartsDir as string })
        ).file,
      };
      const now = charts.certManager.version;
      const diff = diffRenders(before, readRenderFolder(path.join(tmp, "bump")));

      expect(
        object(diff, "platform-cert-manager (CertManager)", "Release cert-manager/cert-manager").fields,
      ).toEqual([{ path: "version", change: `v1.21.1 -> ${now}` }]);
      const release = `platform-cert-manager (CertManager) / release cert-manager/cert-manager (cert-manager v1.21.1 -> ${now})`;
      for (const [deployment, container] of [
        ["cert-manager", "cert-manager-controller"],
        ["cert-manager-webhook", "cert-manager-webhook"],
        ["cert-manager-cainjector", "cert-manager-cainjector"],
      ]) {
        expect(object(diff, release, `Deployment cert-manager/${deployment}`).fields).toContainEqual({
          path: `spec.template.spec.containers[${container}].image`,
          change: `quay.io/jetstack/${container}:v1.21.1 -> quay.io/jetstack/${container}:${now}`,
        });
      }
      // CRDs come from the chart's templates: changed with the release, not replaced.
      expect(object(diff, release, "CustomResourceDefinition certificates.cert-manager.io").change).toBe(
        "changed",
      );
      expect(diff.counts.replaced).toBe(0);
      expect(diffSummary(diff)).toContain(`    ${release}\n      on every changed object here: `);
    },
    180_000,
  );

  (referenceDir ? test : test.skip)(
    `a Gateway API bundle the platform owns, v1.5.0 to v1.5.1: every CRD changed, none replaced (${referenceDir ? "reference found" : skipReason})`,
    async () => {
      const bundle = path.join(tmp, "standard-install.yaml");
      // The release's standard-install.yaml is its kustomization's files, in order.
      const assemble = (version: string) => {
        const folder = path.join(referenceDir as string, `gateway-api-${version}-standard`);
        const order = (
          YAML.parse(fs.readFileSync(path.join(folder, "kustomization.yaml"), "utf8")) as {
            resources: string[];
          }
        ).resources;
        fs.writeFileSync(
          bundle,
          order.map((f) => `---\n${fs.readFileSync(path.join(folder, path.basename(f)), "utf8")}`).join(""),
        );
      };
      const config = devConfig();
      delete config["platform:apps"];
      const dir = program("gateway-api", {
        ...config,
        "platform:ingress": { kind: "traefik" },
        "platform:cluster": { gatewayApi: "disabled" },
        "platform:crds": { gatewayApiBundleFile: bundle },
      });
      // The platform accepts only the pinned bundle: the earlier render is made as v1.5.0 was pinned.
      assemble("v1.5.0");
      const pinned = jest.replaceProperty(gatewayApi, "version", "v1.5.0" as typeof gatewayApi.version);
      try {
        await render(dir, "gateway-api-before");
      } finally {
        pinned.restore();
      }
      expect(gatewayApi.version).toBe("v1.5.1");
      assemble("v1.5.1");
      await render(dir, "gateway-api-after");
      const diff = diffRenders(
        readRenderFolder(path.join(tmp, "gateway-api-before")),
        readRenderFolder(path.join(tmp, "gateway-api-after")),
      );
      const crds = component(diff, "platform-gateway-api-crds (GatewayApiCrds)").objects;
      expect(crds.map((o) => `${o.change} ${o.object}`).sort()).toEqual(
        [
          "backendtlspolicies",
          "gatewayclasses",
          "gateways",
          "grpcroutes",
          "httproutes",
          "listenersets",
          "referencegrants",
          "tlsroutes",
        ].map((n) => `changed CustomResourceDefinition ${n}.gateway.networking.k8s.io`),
      );
      for (const crd of crds) {
        expect(crd.fields).toContainEqual({
          path: 'metadata.annotations["gateway.networking.k8s.io/bundle-version"]',
          change: "v1.5.0 -> v1.5.1",
        });
      }
      // HTTPRoute's schema gains the rule that a CORS filter may not repeat, in each version's rules and filters.
      const httproutes = crds.find(
        (o) => o.object === "CustomResourceDefinition httproutes.gateway.networking.k8s.io",
      );
      const schema = (httproutes?.fields ?? []).filter((f) => f.path.endsWith("x-kubernetes-validations"));
      expect(schema.length).toBeGreaterThan(0);
      for (const f of schema) {
        expect(f.path).toMatch(
          /^spec\.versions\[v1(beta1)?\]\.schema\.openAPIV3Schema\.properties\.spec\.properties\.rules\./,
        );
        expect(f.change).toMatch(/\(1 added, 0 removed\)$/);
      }
      expect(diff.counts).toMatchObject({ added: 0, removed: 0, replaced: 0 });
    },
    120_000,
  );
});

// ---------------------------------------------------------------------------------------------------
// The command

const usage = (message: string) =>
  `gke-mesh-platform render: ${message}\nrun gke-mesh-platform render --help for how to use it`;

const gitVersion = (() => {
  try {
    return execFileSync("git", ["--version"], { encoding: "utf8" }).trim();
  } catch {
    return undefined;
  }
})();

/** A one-file program that needs only @pulumi/kubernetes, in its own git repository. */
function gitProgram(name: string): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: teams\nruntime: nodejs\nmain: index.js\n");
  fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), "config:\n  teams:team: blue\n");
  fs.writeFileSync(
    path.join(dir, "index.js"),
    'const k8s = require("@pulumi/kubernetes");\nconst pulumi = require("@pulumi/pulumi");\n' +
      "module.exports = () => {\n" +
      '  const team = new pulumi.Config().require("team");\n' +
      '  new k8s.core.v1.Namespace("team", { metadata: { name: "team", labels: { team, "pod-security.kubernetes.io/enforce": "restricted" } } });\n' +
      "};\n",
  );
  // Its packages are installed, not committed: the worktree of a ref must be given them.
  fs.symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"), "dir");
  fs.writeFileSync(path.join(dir, ".gitignore"), "node_modules\nout/\n");
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=test", "-c", "user.email=test@example.com", ...args], {
      cwd: dir,
      stdio: "ignore",
    });
  git("init", "--quiet");
  git("add", ".");
  git("commit", "--quiet", "-m", "teams");
  return dir;
}

describe("render --diff", () => {
  (gitVersion ? test : test.skip)(
    `a git ref: HEAD of an unchanged tree differs in nothing; a change since is shown (${gitVersion ?? "no git"})`,
    async () => {
      const dir = gitProgram("teams");
      const unchanged = await run(dir, "render", ".", "--diff", "HEAD", "--out", "out/dev");
      expect(unchanged.code).toBe(0);
      expect(unchanged.stdout).toMatch(/\n {2}changes from HEAD \([0-9a-f]{12}\): none\n/);
      expect(unchanged.stderr).toMatch(
        /^rendering HEAD \([0-9a-f]{12}\) in a temporary git worktree for --diff$/m,
      );
      expect(YAML.parse(fs.readFileSync(path.join(dir, "out", "dev", "diff.yaml"), "utf8"))).toMatchObject({
        after: "out/dev",
        summary: { added: 0, changed: 0, removed: 0, replaced: 0 },
        components: [],
      });

      fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), "config:\n  teams:team: green\n");
      const changed = await run(dir, "render", ".", "--diff", "HEAD", "--out", "out/dev");
      expect(changed.code).toBe(0);
      expect(changed.stdout).toContain(
        [
          "    (outside any component)",
          "      changed   Namespace team",
          "                  metadata.labels.team: blue -> green",
        ].join("\n"),
      );
      // The worktree is gone again.
      expect(
        execFileSync("git", ["worktree", "list"], { cwd: dir, encoding: "utf8" }).trim().split("\n"),
      ).toHaveLength(1);
    },
    120_000,
  );

  test("the folder of an earlier render, even the one this render overwrites", async () => {
    const dir = program("folder", devConfig());
    await render(dir, "folder-out");
    const result = await run(
      dir,
      "render",
      ".",
      "--diff",
      path.join(tmp, "folder-out"),
      "--out",
      path.join(tmp, "folder-out"),
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`\n  changes from ${path.join(tmp, "folder-out")}: none`);
    expect(fs.existsSync(path.join(tmp, "folder-out", "diff.yaml"))).toBe(true);
  }, 60_000);

  test("a wrong --diff exits 2, saying what it may be and how to make one", async () => {
    const dir = program("wrong", devConfig());
    fs.mkdirSync(path.join(dir, "empty"));
    expect(await run(dir, "render", ".", "--diff", "nosuch")).toEqual({
      code: 2,
      stdout: "",
      stderr: usage(
        "--diff nosuch: neither a folder holding an earlier render nor a git ref (. is not in a git repository); give the folder an earlier render wrote (gke-mesh-platform render ... --out <dir>), or a commit, branch or tag such as HEAD",
      ),
    });
    expect(await run(dir, "render", ".", "--diff", "empty")).toEqual({
      code: 2,
      stdout: "",
      stderr: usage(
        "--diff empty: empty holds no resources.yaml, so it is not a render; make one before the change with gke-mesh-platform render . --stack dev --out empty, or give a git ref such as HEAD",
      ),
    });
    expect(await run(dir, "render", ".", "--diff")).toEqual({
      code: 2,
      stdout: "",
      stderr: usage("--diff needs a value: --diff <dir|ref>"),
    });
  });

  (gitVersion ? test : test.skip)(
    `a name that is no ref of the program's repository (${gitVersion ?? "no git"})`,
    async () => {
      const dir = gitProgram("no-ref");
      expect(await run(dir, "render", ".", "--diff", "v9.9.9")).toEqual({
        code: 2,
        stdout: "",
        stderr: usage(
          "--diff v9.9.9: neither a folder holding an earlier render nor a git ref of the repository at .; give the folder an earlier render wrote (gke-mesh-platform render ... --out <dir>), or a commit, branch or tag such as HEAD",
        ),
      });
    },
  );
});
