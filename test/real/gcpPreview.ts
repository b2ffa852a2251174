import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { MissingTools } from "./apiServer";
import { pulumiSession, repositoryRoot, writeNodeProject } from "./platformProgram";
import { pulumiEngine } from "./pulumi";
import { runTierScript, stepTimer } from "./script";
import { requireTools, type Tool } from "./tools";

/**
 * The real Pulumi engine previews the platform's GCP layer with the real Google provider:
 * `npx tsx test/real/gcpPreview.ts`. A JavaScript program (registering tsx, requiring this repository's
 * `lib/` as platformProgram.ts's does) builds a `GkeCluster` exactly as the `Platform` does, from the
 * stack's `platform:` config through `loadPlan`, for a dev stack and a prod stack. `pulumi preview --json`
 * runs each with the Google provider built by scripts/tools/build.sh (pulumi-resource-gcp, an ambient
 * plugin beside the CLI) and a made-up access token: the provider checks every input against its
 * Terraform schema (types, required fields, conflicts, validators) and plans each resource, offline, as
 * nothing is read from Google (the cluster's APIs and service agents are created by the program, so no
 * data source runs). Checked: the preview succeeds with no error diagnostics; exactly the resource types
 * the layer makes are planned, each a create; the cluster's planned inputs: private nodes, the Gateway API
 * standard channel, Workload Identity's pool, secrets encryption, deletion protection (on in prod, off in
 * dev). The provider's only call to Google (listing the project's regions) fails offline as a warning.
 * What it cannot prove: that Google accepts the requests (no project, no credentials).
 */

const project = "real-tier-gcp";
const region = "europe-west1";

/** The resource types the layer plans for a dev standard cluster with the tier defaults, each a create. */
const devTypes = [
  "gcp:compute/firewall:Firewall",
  "gcp:compute/network:Network",
  "gcp:compute/router:Router",
  "gcp:compute/routerNat:RouterNat",
  "gcp:compute/subnetwork:Subnetwork",
  "gcp:container/cluster:Cluster",
  "gcp:container/nodePool:NodePool",
  "gcp:kms/cryptoKey:CryptoKey",
  "gcp:kms/cryptoKeyIAMMember:CryptoKeyIAMMember",
  "gcp:kms/keyRing:KeyRing",
  "gcp:projects/iAMMember:IAMMember",
  "gcp:projects/service:Service",
  "gcp:projects/serviceIdentity:ServiceIdentity",
  "gcp:serviceaccount/account:Account",
];
/** Prod adds the cluster's backup plan (backups are on in prod). */
const expectedTypes = {
  dev: devTypes,
  prod: [...devTypes, "gcp:gkebackup/backupPlan:BackupPlan"].sort(),
} as const;

interface Step {
  readonly op: string;
  readonly urn: string;
  readonly newState?: { readonly type: string; readonly inputs?: Record<string, unknown> };
}

interface Preview {
  readonly steps?: readonly Step[];
  readonly diagnostics?: readonly {
    readonly severity: string;
    readonly message: string;
    readonly urn?: string;
  }[];
}

function writeProgram(dir: string): string {
  const lib = (p: string) => JSON.stringify(path.join(repositoryRoot, "lib", p));
  writeNodeProject(dir, "real-gcp-preview", path.join(repositoryRoot, "node_modules"), [
    `// Written by test/real/gcpPreview.ts; runs ${repositoryRoot}/lib.`,
    `require("tsx/cjs/api").register();`,
    `const { GkeCluster, loadPlan } = require(${lib("index.ts")});`,
    ``,
    `// The cluster as the Platform builds it (lib/platform/platform.ts), from the stack's config.`,
    `const plan = loadPlan();`,
    `const c = plan.config;`,
    `const cluster = new GkeCluster(c.cluster.name, {`,
    `  project: c.gcp.project,`,
    `  region: c.gcp.region,`,
    `  settings: { cluster: c.cluster, network: c.network },`,
    `  webhookPorts: plan.webhookPorts,`,
    `  proxyOnlySubnet: plan.proxyOnlySubnet,`,
    `});`,
    `exports.clusterName = cluster.clusterName;`,
    ``,
  ]);
  return dir;
}

/** The value at a dotted path of a step's planned inputs. */
function input(step: Step, at: string): unknown {
  let value: unknown = step.newState?.inputs;
  for (const key of at.split(".")) {
    value = value && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}

async function main(): Promise<number> {
  const set = requireTools(["pulumi-resource-gcp"]);
  if (!set.tools) throw new MissingTools(set.skip);
  const gcpProvider: Tool = set.tools["pulumi-resource-gcp"];
  const { step, printTimings } = stepTimer();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "real-gcp-preview-"));
  // A made-up token: the provider needs credentials to configure; its one request (the project's regions)
  // fails offline, as a warning.
  const engine = pulumiEngine(work, {
    GOOGLE_OAUTH_ACCESS_TOKEN: "real-tier-made-up-token",
    GOOGLE_APPLICATION_CREDENTIALS: "",
    GOOGLE_CREDENTIALS: "",
  });
  // Beside the CLI, as pulumiEngine places the others, so the engine finds it as an ambient plugin.
  const plugin = path.join(work, "bin", "pulumi-resource-gcp");
  try {
    fs.linkSync(gcpProvider.path, plugin);
  } catch {
    fs.copyFileSync(gcpProvider.path, plugin);
    fs.chmodSync(plugin, 0o755);
  }
  const program = writeProgram(path.join(work, "program"));
  const pulumi = pulumiSession(engine, program, path.join(work, "output"));
  const failed: string[] = [];
  const check = (what: string, ok: boolean, detail = "") => {
    console.log(`${ok ? "ok  " : "FAIL"} ${what}${ok || !detail ? "" : `\n     ${detail}`}`);
    if (!ok) failed.push(what);
  };
  try {
    for (const tier of ["dev", "prod"] as const) {
      await pulumi(["stack", "init", tier]);
      await pulumi([
        "config",
        "set-all",
        "--stack",
        tier,
        "--plaintext",
        `gcp:project=${project}`,
        "--plaintext",
        `gcp:region=${region}`,
        "--plaintext",
        `platform:tier=${tier}`,
      ]);
      const preview = JSON.parse(await pulumi(["preview", "--json", "--stack", tier])) as Preview;
      step(`pulumi preview of the ${tier} stack`);
      const errors = (preview.diagnostics ?? []).filter((d) => d.severity === "error");
      check(`${tier}: preview without errors`, errors.length === 0, errors.map((d) => d.message).join("\n"));
      const gcpSteps = (preview.steps ?? []).filter((s) => s.newState?.type.startsWith("gcp:"));
      const types = [...new Set(gcpSteps.map((s) => s.newState?.type ?? ""))].sort();
      check(
        `${tier}: the planned Google resources are exactly the layer's types: ${types.length} types, ${gcpSteps.length} resources`,
        JSON.stringify(types) === JSON.stringify(expectedTypes[tier]),
        `planned ${types.join(", ")}`,
      );
      const notCreates = gcpSteps.filter((s) => s.op !== "create");
      check(
        `${tier}: every Google resource is a create`,
        notCreates.length === 0,
        notCreates.map((s) => `${s.op} ${s.urn}`).join(", "),
      );
      const clusters = gcpSteps.filter((s) => s.newState?.type === "gcp:container/cluster:Cluster");
      check(`${tier}: one cluster`, clusters.length === 1, `${clusters.length}`);
      const cluster = clusters[0];
      if (!cluster) continue;
      // The bridge marks the inputs its Check has filled in; a resource the provider never checked has none.
      check(
        `${tier}: the provider checked the cluster's inputs (the bridge's __defaults marker is there)`,
        Array.isArray(input(cluster, "__defaults")),
        `planned inputs: ${Object.keys(cluster.newState?.inputs ?? {}).join(", ")}`,
      );
      const expected: [string, unknown][] = [
        ["databaseEncryption.state", "ENCRYPTED"],
        ["privateClusterConfig.enablePrivateNodes", true],
        ["gatewayApiConfig.channel", "CHANNEL_STANDARD"],
        ["workloadIdentityConfig.workloadPool", `${project}.svc.id.goog`],
        ["deletionProtection", tier === "prod"],
        ["networkingMode", "VPC_NATIVE"],
        ["location", tier === "prod" ? region : `${region}-b`],
      ];
      for (const [at, value] of expected) {
        const actual = input(cluster, at);
        check(
          `${tier}: the cluster's ${at} is ${JSON.stringify(value)}`,
          actual === value,
          `planned ${JSON.stringify(actual)}`,
        );
      }
    }
  } catch (err) {
    console.error(pulumi.lastOutput() ?? "");
    throw err;
  } finally {
    printTimings();
  }
  console.log(`gcpPreview.ts: ${engine.describe()}, pulumi-resource-gcp ${gcpProvider.version}`);
  if (failed.length === 0 && process.env.REAL_TIER_KEEP !== "1")
    fs.rmSync(work, { recursive: true, force: true });
  else console.log(`kept ${work}, with every pulumi command's output in output/`);
  return failed.length === 0 ? 0 : 1;
}

runTierScript("gcpPreview.ts", main);
