import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as YAML from "yaml";
import { main } from "../../lib/render/cli";
import {
  readProject,
  renderFiles,
  renderProject,
  secretText,
  stacksOf,
  stageGraph,
  summary,
  type RenderResult,
} from "../../lib/render";

const root = path.resolve(__dirname, "../..");
const examplesDir = path.join(root, "examples");

/** Every stack of the repository's program and every stack of every example. */
const targets: { label: string; dir: string; stack: string }[] = [
  ...stacksOf(readProject(root)).map((stack) => ({ label: `stacks/${stack}`, dir: root, stack })),
  ...fs
    .readdirSync(examplesDir)
    .sort()
    .flatMap((name) => {
      const dir = path.join(examplesDir, name);
      return stacksOf(readProject(dir)).map((stack) => ({
        label: `examples/${name} (${stack})`,
        dir,
        stack,
      }));
    }),
];

const rendered = new Map<string, RenderResult>();
const renderOf = async (label: string): Promise<RenderResult> => {
  const cached = rendered.get(label);
  if (cached) return cached;
  const t = targets.find((x) => x.label === label);
  if (!t) throw new Error(`no render target ${label}`);
  const result = await renderProject(t.dir, t.stack);
  rendered.set(label, result);
  return result;
};

test("the repository has the dev, staging and prod stacks, and examples", () => {
  expect(targets.map((t) => t.label)).toEqual(
    expect.arrayContaining(["stacks/dev", "stacks/staging", "stacks/prod", "examples/autopilot (dev)"]),
  );
});

describe.each(targets)("$label", ({ label }) => {
  test("renders the five files with a cluster connection and no undefined values", async () => {
    const result = await renderOf(label);
    const files = renderFiles(result);
    expect(Object.keys(files).sort()).toEqual([
      "certificates.yaml",
      "graph.mmd",
      "helm-releases.yaml",
      "manifests.yaml",
      "resources.yaml",
    ]);
    for (const [name, text] of Object.entries(files)) {
      expect({ name, undefinedFound: /undefined|\[object Object\]/.test(text) }).toEqual({
        name,
        undefinedFound: false,
      });
    }
    const doc = YAML.parse(files["resources.yaml"]) as {
      resources: { type: string }[];
      outputs: Record<string, unknown>;
    };
    expect(doc.resources.map((r) => r.type)).toContain("pulumi:providers:kubernetes");
    expect(doc.outputs.kubeconfig).toBe(secretText);
    expect(files["graph.mmd"].startsWith("flowchart LR\n")).toBe(true);
  });

  test("its certificate inventory lists every certificate, each with its renewer, and the summary prints it", async () => {
    const result = await renderOf(label);
    const { certificates } = YAML.parse(renderFiles(result)["certificates.yaml"]) as {
      certificates: { certificate: string; renewer: string; lifetime: string; issuer: string[] }[];
    };
    // Every render has cert-manager, a mesh or a Google-managed certificate: none is without certificates.
    expect(certificates.length).toBeGreaterThan(0);
    expect(certificates.filter((c) => c.renewer === "NOTHING RENEWS IT")).toEqual([]);
    const printed = summary(result, "out");
    expect(printed).toContain(
      `  certificates (${certificates.length}, each with a renewer; all in certificates.yaml):`,
    );
    for (const c of certificates) expect(printed).toContain(`    ${c.certificate}: `);
  });
});

test("two renders of the same input are byte-identical", async () => {
  const first = renderFiles(await renderProject(root, "dev"));
  const second = renderFiles(await renderProject(root, "dev"));
  expect(second).toEqual(first);
});

describe("what resources.yaml shows a reviewer", () => {
  const clusterOf = (result: RenderResult) => {
    const c = result.resources.find((r) => r.type === "gcp:container/cluster:Cluster");
    if (!c) throw new Error("no cluster");
    return c;
  };

  test("dev: zonal, spot, unprotected, Gateway API standard, private nodes, Workload Identity, KMS", async () => {
    const result = await renderOf("stacks/dev");
    const cluster = clusterOf(result);
    expect(cluster.inputs).toMatchObject({
      location: "europe-west1-b",
      deletionProtection: false,
      gatewayApiConfig: { channel: "CHANNEL_STANDARD" },
      privateClusterConfig: { enablePrivateNodes: true },
      workloadIdentityConfig: { workloadPool: "acme-platform-dev.svc.id.goog" },
      databaseEncryption: { state: "ENCRYPTED" },
    });
    expect(cluster.options.protect).toBe(false);
    const pool = result.resources.find((r) => r.type === "gcp:container/nodePool:NodePool");
    expect(pool?.inputs).toMatchObject({ nodeConfig: { spot: true } });
  });

  test("prod: regional, deletion protection and protect, backups, authorized networks", async () => {
    const cluster = clusterOf(await renderOf("stacks/prod"));
    expect(cluster.options.protect).toBe(true);
    expect(cluster.inputs).toMatchObject({
      location: "europe-west1",
      deletionProtection: true,
      addonsConfig: { gkeBackupAgentConfig: { enabled: true } },
      masterAuthorizedNetworksConfig: {
        cidrBlocks: [{ displayName: "ci-runners" }, { displayName: "office" }],
      },
    });
  });

  test("the Autopilot example: Autopilot with NET_ADMIN for Linkerd, same security posture", async () => {
    const cluster = clusterOf(await renderOf("examples/autopilot (dev)"));
    expect(cluster.inputs).toMatchObject({
      enableAutopilot: true,
      allowNetAdmin: true,
      gatewayApiConfig: { channel: "CHANNEL_STANDARD" },
      privateClusterConfig: { enablePrivateNodes: true },
      databaseEncryption: { state: "ENCRYPTED" },
    });
  });

  test("the existing-cluster example builds nothing of a cluster: no network, cluster, nodes or KMS", async () => {
    const result = await renderOf("examples/existing-cluster (dev)");
    const cluster = /^gcp:(container|kms|compute\/(network|subnetwork|router|routerNat|firewall)):/;
    expect(result.resources.filter((r) => cluster.test(r.type)).map((r) => r.type)).toEqual([]);
    expect(result.resources.filter((r) => r.type === "pulumi:providers:kubernetes")).toHaveLength(1);
  });
});

describe("npm run render", () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "render-"));
    // A project whose program is the repository's, with one good and one misspelled stack config.
    fs.writeFileSync(
      path.join(tmp, "Pulumi.yaml"),
      `name: scratch\nruntime: nodejs\nmain: ${JSON.stringify(path.join(root, "stacks", "index.ts"))}\n`,
    );
    const base = "config:\n  gcp:project: acme-scratch\n  gcp:region: europe-west1\n  platform:tier: dev\n";
    fs.writeFileSync(path.join(tmp, "Pulumi.good.yaml"), base);
    fs.writeFileSync(path.join(tmp, "Pulumi.bad.yaml"), `${base}  platform:mesh:\n    kind: linkred\n`);
  });

  test("writes out/<name>/ and prints a summary", async () => {
    const out = path.join(tmp, "out");
    const log = jest.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      expect(await main([tmp, "--stack", "good", "--out", out])).toBe(0);
      expect(log.mock.calls[0][0]).toMatch(/^Rendered scratch\/good to .*: \d+ resources in \d+ components/);
    } finally {
      log.mockRestore();
    }
    expect(fs.readdirSync(out).sort()).toEqual([
      "certificates.yaml",
      "graph.mmd",
      "helm-releases.yaml",
      "manifests.yaml",
      "resources.yaml",
    ]);
  });

  test("a misspelled config exits non-zero with one readable message and no stack trace", () => {
    const run = spawnSync(
      process.execPath,
      [require.resolve("tsx/cli"), path.join(root, "lib/render/cli.ts"), tmp, "--stack", "bad"],
      { cwd: root, encoding: "utf8" },
    );
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr.trim()).toBe(
      [
        "Invalid environment config in Pulumi.bad.yaml:",
        '  platform:mesh.kind: "linkred" is not allowed (did you mean "linkerd"?)',
        '    allowed: "linkerd", "istio", "none"',
        '    fix: set platform:mesh.kind to "linkerd"',
      ].join("\n"),
    );
  });

  test("an unknown stack or a bad argument is a usage error, not a crash", async () => {
    const error = jest.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      expect(await main([])).toBe(2);
      expect(await main(["no-such-stack", "--out", path.join(tmp, "x")])).toBe(1);
      expect(String(error.mock.calls[1][0])).toMatch(/^render failed: no stack "no-such-stack"/);
    } finally {
      error.mockRestore();
    }
  });
});

test("renders started together do not mix: the runtime is shared, so they take turns", async () => {
  const [dev, prod] = await Promise.all([renderProject(root, "dev"), renderProject(root, "prod")]);
  const location = (r: RenderResult) =>
    r.resources.find((x) => x.type === "gcp:container/cluster:Cluster")?.inputs.location;
  expect([dev.stack, location(dev), prod.stack, location(prod)]).toEqual([
    "dev",
    "europe-west1-b",
    "prod",
    "europe-west1",
  ]);
});

test("the README's picture of the stages is the dev stack's real dependency graph", async () => {
  const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
  const block = /<!-- stages:start -->\s*```mermaid\n([\s\S]*?)```\s*<!-- stages:end -->/.exec(readme)?.[1];
  expect(block).toBe(stageGraph((await renderOf("stacks/dev")).resources));
});

describe("each example builds what its README says", () => {
  const releasesOf = (r: RenderResult) =>
    r.resources
      .filter((x) => x.type === "kubernetes:helm.sh/v3:Release")
      .map((x) => String(x.inputs.name))
      .sort();
  const kindsOf = (r: RenderResult) =>
    new Set(r.resources.map((x) => (typeof x.inputs.kind === "string" ? x.inputs.kind : "")));

  test("linkerd-traefik: Linkerd, Traefik, Prometheus; an IngressRoute with a Let's Encrypt certificate", async () => {
    const r = await renderOf("examples/linkerd-traefik (dev)");
    expect(releasesOf(r)).toEqual([
      "cert-manager",
      "kube-prometheus-stack",
      "linkerd-control-plane",
      "linkerd-crds",
      "traefik",
      "trust-manager",
    ]);
    expect([...kindsOf(r)]).toEqual(
      expect.arrayContaining(["IngressRoute", "Middleware", "ClusterIssuer", "Deployment", "PodMonitor"]),
    );
  });

  test("linkerd-gke-gateway: the shared Gateway and the app's route and policies, Managed Prometheus", async () => {
    const r = await renderOf("examples/linkerd-gke-gateway (dev)");
    expect([...kindsOf(r)]).toEqual(
      expect.arrayContaining([
        "Gateway",
        "HTTPRoute",
        "HealthCheckPolicy",
        "GCPBackendPolicy",
        "GCPGatewayPolicy",
        "PodMonitoring",
      ]),
    );
    expect(kindsOf(r).has("PodMonitor")).toBe(false);
  });

  test("istio-ingress-nginx: ingress-nginx with its retirement warning", async () => {
    const r = await renderOf("examples/istio-ingress-nginx (dev)");
    expect(releasesOf(r)).toContain("ingress-nginx");
    expect(r.warnings).toEqual(
      expect.arrayContaining([expect.stringContaining("retired upstream in March 2026")]),
    );
  });

  test("building-blocks: cert-manager, Linkerd, Prometheus, Traefik and an app, without a Platform", async () => {
    const r = await renderOf("examples/building-blocks (dev)");
    expect(releasesOf(r)).toEqual([
      "cert-manager",
      "kube-prometheus-stack",
      "linkerd-control-plane",
      "linkerd-crds",
      "traefik",
      "trust-manager",
    ]);
    expect(r.resources.some((x) => x.type === "gke-mesh-platform:platform:Platform")).toBe(false);
    expect(r.resources.filter((x) => x.type.startsWith("gcp:"))).toEqual([]);
    expect([...kindsOf(r)]).toEqual(expect.arrayContaining(["Deployment", "PodMonitor", "Bundle"]));
  });

  test("autopilot and existing-cluster expose the app through the Gateway", async () => {
    for (const label of ["examples/autopilot (dev)", "examples/existing-cluster (dev)"]) {
      expect([...kindsOf(await renderOf(label))]).toEqual(
        expect.arrayContaining(["Gateway", "HTTPRoute", "Deployment"]),
      );
    }
  });
});
