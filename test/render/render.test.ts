import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as YAML from "yaml";
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

describe("the files are for review: nothing a reviewer need not read", () => {
  test.each(targets)(
    "$label: options only where they differ from Pulumi's defaults, no empty dependsOn",
    async ({ label }) => {
      const doc = YAML.parse(renderFiles(await renderOf(label))["resources.yaml"]) as {
        resources: { options?: Record<string, unknown>; dependsOn?: string[] }[];
      };
      for (const r of doc.resources) {
        for (const [option, value] of Object.entries(r.options ?? {})) {
          expect({ option, value }).not.toEqual({ option, value: false });
          expect({ option, value }).not.toEqual({ option, value: [] });
        }
        expect(r.dependsOn).not.toEqual([]);
      }
    },
  );

  test("prod's cluster shows it is protected; dev's, which is not, does not say so", async () => {
    const clusterOf = (text: string) =>
      (
        YAML.parse(text) as { resources: { type: string; options?: Record<string, unknown> }[] }
      ).resources.find((r) => r.type === "gcp:container/cluster:Cluster");
    expect(clusterOf(renderFiles(await renderOf("stacks/prod"))["resources.yaml"])?.options).toMatchObject({
      protect: true,
    });
    expect(
      clusterOf(renderFiles(await renderOf("stacks/dev"))["resources.yaml"])?.options,
    ).not.toHaveProperty("protect");
  });

  test.each(targets)("$label: each resource waits for another once", async ({ label }) => {
    const repeated = (await renderOf(label)).resources.filter(
      (r) => new Set(r.dependsOn).size !== r.dependsOn.length,
    );
    expect(repeated.map((r) => r.key)).toEqual([]);
  });

  test("the dev stack monitors nothing it does not install: no Linkerd multicluster", async () => {
    const names = (await renderOf("stacks/dev")).resources.map(
      (r) => (r.inputs.metadata as { name?: string } | undefined)?.name,
    );
    expect(names.filter((n) => n?.includes("multicluster"))).toEqual([]);
  });

  test("graph labels name the kind once", async () => {
    const graph = renderFiles(await renderOf("stacks/dev"))["graph.mmd"];
    expect(graph).toContain('["Deployment<br/>shop/shop"]');
    expect(graph).not.toMatch(/\["(\w+)<br\/>\1 /);
  });

  test("the summary lists every component, each with its own resources", async () => {
    const result = await renderOf("stacks/dev");
    const lines = summary(result, "out/dev").split("\n");
    const components = result.resources.filter((r) => !r.custom);
    expect(lines[0]).toContain(`in ${components.length} components`);
    for (const c of components) {
      expect(lines.filter((l) => l.trimStart().startsWith(`${c.name} (`))).toHaveLength(1);
    }
    expect(lines).toContain("    gke-dev (GkeCluster): 1 Cluster, 1 NodePool, 1 Provider (kubernetes)");
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
  expect(block).toBe(stageGraph(await renderOf("stacks/dev")));
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
      "linkerd-cni",
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

test("a render leaves no temp folder behind", async () => {
  const temps = () =>
    fs
      .readdirSync(os.tmpdir())
      .filter((f) => f.startsWith("cdk8s"))
      .sort();
  const before = temps();
  await renderProject(root, "prod");
  expect(temps()).toEqual(before);
});
