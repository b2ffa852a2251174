import * as fs from "fs";
import { liveEngineRefusal } from "../../lib/render/run";
import { runTierScript, stepTimer } from "./script";
import * as path from "path";
import { clusterTools, startCluster, type Cluster } from "./apiServer";
import {
  applyControllerCrds,
  certManagerNamespace,
  controllerToolNames,
  startControllers,
} from "./controllers";
import { openssl } from "./pki";
import { pulumiEngine, pulumiToolNames } from "./pulumi";
import { run, tail, waitFor } from "./processes";
import { requireTools } from "./tools";

/**
 * The real tier's smoke test: `npx tsx test/real/smoke.ts [kubernetes minor]`. Starts a local control
 * plane, applies cert-manager's and trust-manager's CRDs from their charts, starts both controllers, then
 * issues a CA and a leaf certificate through them and distributes the CA with a Bundle:
 *   - a self-signed ClusterIssuer signs a CA Certificate; a CA ClusterIssuer on its Secret signs a leaf;
 *   - a Bundle copies the CA into a ConfigMap in every namespace with the label, and in no other;
 *   - cainjector writes the CA into a webhook configuration that asks for it;
 *   - the garbage collector completes a foreground deletion, and a deleted namespace goes away;
 *   - a read-only kubeconfig lists CRDs and is refused a write;
 *   - where the Pulumi engine is built, `pulumi up` and `pulumi destroy` of a one-ConfigMap program;
 * and checks the leaf's chain against the distributed CA with openssl. Proves the tools work.
 * Where a tool is missing it says which and how to build it, and skips (with CI=true it fails).
 */

const ns = "real-smoke";
const unlabelled = "real-smoke-unlabelled";
const trustLabel = "real-tier.gke-mesh-platform.dev/trust";

function objects(): object[] {
  const issuerRef = (name: string) => ({ group: "cert-manager.io", kind: "ClusterIssuer", name });
  return [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: ns, labels: { [trustLabel]: "true" } } },
    { apiVersion: "v1", kind: "Namespace", metadata: { name: unlabelled } },
    {
      apiVersion: "cert-manager.io/v1",
      kind: "ClusterIssuer",
      metadata: { name: "real-selfsigned" },
      spec: { selfSigned: {} },
    },
    {
      apiVersion: "cert-manager.io/v1",
      kind: "Certificate",
      metadata: { name: "real-ca", namespace: certManagerNamespace },
      spec: {
        isCA: true,
        commonName: "real-tier-ca",
        secretName: "real-ca",
        duration: "24h",
        privateKey: { algorithm: "ECDSA", size: 256 },
        issuerRef: issuerRef("real-selfsigned"),
      },
    },
    {
      apiVersion: "cert-manager.io/v1",
      kind: "ClusterIssuer",
      metadata: { name: "real-ca" },
      spec: { ca: { secretName: "real-ca" } },
    },
    {
      apiVersion: "cert-manager.io/v1",
      kind: "Certificate",
      metadata: { name: "leaf", namespace: ns },
      spec: {
        secretName: "leaf-tls",
        dnsNames: [`leaf.${ns}.svc.cluster.local`],
        duration: "2h",
        privateKey: { algorithm: "ECDSA", size: 256 },
        issuerRef: issuerRef("real-ca"),
      },
    },
    {
      apiVersion: "trust.cert-manager.io/v1alpha1",
      kind: "Bundle",
      metadata: { name: "real-ca-bundle" },
      spec: {
        sources: [{ secret: { name: "real-ca", key: "ca.crt" } }],
        target: {
          configMap: { key: "ca.crt" },
          namespaceSelector: { matchLabels: { [trustLabel]: "true" } },
        },
      },
    },
  ];
}

/** A webhook configuration that asks cainjector for the CA; it matches nothing that is ever created. */
function injectable(): object {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: {
      name: "real-smoke-injection",
      annotations: { "cert-manager.io/inject-ca-from": `${certManagerNamespace}/real-ca` },
    },
    webhooks: [
      {
        name: "injection.real-tier.gke-mesh-platform.dev",
        clientConfig: { service: { name: "nothing", namespace: ns, path: "/validate" } },
        rules: [
          {
            apiGroups: ["real-tier.gke-mesh-platform.dev"],
            apiVersions: ["v1"],
            operations: ["CREATE"],
            resources: ["nothings"],
          },
        ],
        failurePolicy: "Ignore",
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
      },
    ],
  };
}

async function main(): Promise<number> {
  const kubernetesVersion = process.argv[2];
  const tools = clusterTools(kubernetesVersion);
  const controllerSet = requireTools(controllerToolNames);
  const pulumiSet = requireTools(pulumiToolNames);
  const skip =
    tools.set.skip ?? controllerSet.skip ?? (process.env.CI === "true" ? pulumiSet.skip : undefined);
  if (skip) {
    const reason = `real tier smoke: ${skip}`;
    if (process.env.CI === "true") {
      console.error(`${reason}: CI must run it`);
      return 1;
    }
    console.log(`${reason}: skipped`);
    return 0;
  }

  const { step, printTimings } = stepTimer();
  const passed: string[] = [];
  const started = Date.now();
  const cluster = await startCluster({ kubernetesVersion });
  step(`control plane ${cluster.kubernetesVersion} ready`);
  let controllers: Awaited<ReturnType<typeof startControllers>> | undefined;
  try {
    const crds = await applyControllerCrds(cluster);
    step(`${crds.length} CRDs established`);
    controllers = await startControllers(cluster);
    step("cert-manager and trust-manager started");

    await apply(cluster, objects());
    await cluster.kubectl([
      "wait",
      "--for=condition=Ready",
      "--timeout=90s",
      "-n",
      certManagerNamespace,
      "certificate/real-ca",
    ]);
    await cluster.kubectl(["wait", "--for=condition=Ready", "--timeout=90s", "-n", ns, "certificate/leaf"]);
    step("CA and leaf Certificates Ready");
    passed.push("Certificates issued by a self-signed and a CA ClusterIssuer");

    const bundle = await waitFor(
      `ConfigMap real-ca-bundle in namespace ${ns}`,
      async () => jsonpath(cluster, ["configmap", "real-ca-bundle", "-n", ns], "{.data.ca\\.crt}"),
      { timeoutMs: 60_000 },
    );
    step("Bundle's ConfigMap in the labelled namespace");
    const elsewhere = await cluster.kubectl(["get", "configmap", "-n", unlabelled, "-o", "name"]);
    if (elsewhere.includes("real-ca-bundle"))
      throw new Error(`the Bundle reached the unlabelled namespace ${unlabelled}`);
    passed.push("Bundle distributed to the labelled namespace only");

    const caSecret = b64(
      await cluster.kubectl([
        "get",
        "secret",
        "real-ca",
        "-n",
        certManagerNamespace,
        "-o",
        "jsonpath={.data.ca\\.crt}",
      ]),
    );
    const leafSecret = {
      crt: b64(
        await cluster.kubectl(["get", "secret", "leaf-tls", "-n", ns, "-o", "jsonpath={.data.tls\\.crt}"]),
      ),
      ca: b64(
        await cluster.kubectl(["get", "secret", "leaf-tls", "-n", ns, "-o", "jsonpath={.data.ca\\.crt}"]),
      ),
    };
    if (bundle.trim() !== caSecret.trim())
      throw new Error("the Bundle's ConfigMap does not hold the CA Secret's ca.crt");
    if (leafSecret.ca.trim() !== caSecret.trim()) throw new Error("the leaf Secret's ca.crt is not the CA");
    const files = path.join(cluster.dir, "smoke");
    fs.mkdirSync(files);
    fs.writeFileSync(path.join(files, "bundle.pem"), bundle);
    fs.writeFileSync(path.join(files, "leaf.pem"), leafSecret.crt);
    const verified = await run(openssl, [
      "verify",
      "-CAfile",
      path.join(files, "bundle.pem"),
      path.join(files, "leaf.pem"),
    ]);
    if (!verified.trim().endsWith(": OK")) throw new Error(`openssl verify: ${verified}`);
    const san = await run(openssl, [
      "x509",
      "-noout",
      "-ext",
      "subjectAltName",
      "-in",
      path.join(files, "leaf.pem"),
    ]);
    if (!san.includes(`DNS:leaf.${ns}.svc.cluster.local`)) throw new Error(`leaf's subjectAltName: ${san}`);
    passed.push("leaf chain verified by openssl against the distributed CA");

    await apply(cluster, [injectable()]);
    const injected = await waitFor(
      "cainjector to fill the webhook's caBundle",
      async () =>
        jsonpath(
          cluster,
          ["validatingwebhookconfiguration", "real-smoke-injection"],
          "{.webhooks[0].clientConfig.caBundle}",
        ),
      { timeoutMs: 60_000 },
    );
    if (b64(injected).trim() !== caSecret.trim()) throw new Error("cainjector injected another CA");
    await cluster.kubectl([
      "delete",
      "validatingwebhookconfiguration",
      "real-smoke-injection",
      "--wait=true",
    ]);
    step("cainjector filled a webhook configuration's caBundle");
    passed.push("cainjector injected the CA");

    await apply(cluster, [
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "owner", namespace: ns }, data: { a: "b" } },
    ]);
    const uid = await cluster.kubectl([
      "get",
      "configmap",
      "owner",
      "-n",
      ns,
      "-o",
      "jsonpath={.metadata.uid}",
    ]);
    await apply(cluster, [
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: {
          name: "dependent",
          namespace: ns,
          ownerReferences: [
            { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid, blockOwnerDeletion: true },
          ],
        },
      },
    ]);
    await cluster.kubectl([
      "delete",
      "configmap",
      "owner",
      "-n",
      ns,
      "--cascade=foreground",
      "--timeout=60s",
    ]);
    await waitFor("the garbage collector to delete the dependent", async () =>
      (await cluster.kubectl(["get", "configmap", "-n", ns, "-o", "name"])).includes("configmap/dependent")
        ? undefined
        : true,
    );
    await cluster.kubectl(["delete", "namespace", unlabelled, "--timeout=60s"]);
    step("foreground deletion and namespace deletion completed");
    passed.push("garbage collector and namespace controller complete deletions");

    const readOnly = await cluster.readOnlyKubeconfig();
    const crdNames = await cluster.kubectl(["get", "crd", "-o", "name"], { kubeconfig: readOnly });
    if (!crdNames.includes("certificates.cert-manager.io"))
      throw new Error("the read-only user cannot list CRDs");
    const refused = await cluster
      .kubectl(["create", "namespace", "real-smoke-forbidden"], { kubeconfig: readOnly })
      .then(
        () => false,
        (err: unknown) => err instanceof Error && err.message.includes("Forbidden"),
      );
    if (!refused) throw new Error("the read-only user could create a namespace");
    step("read-only kubeconfig reads CRDs and may not write");
    passed.push("read-only kubeconfig");

    if (pulumiSet.skip) console.log(`real tier smoke: the Pulumi engine is skipped: ${pulumiSet.skip}`);
    else {
      const engine = pulumiEngine(path.join(cluster.dir, "pulumi"), { KUBECONFIG: cluster.kubeconfig });
      const program = writeProgram(path.join(cluster.dir, "pulumi", "program"));
      await engine.pulumi(["stack", "init", "real"], program);
      step("pulumi stack init");
      await engine.pulumi(["up", "--yes", "--skip-preview"], program);
      const data = await cluster.kubectl([
        "get",
        "configmap",
        "pulumi-smoke",
        "-n",
        ns,
        "-o",
        "jsonpath={.data.engine}",
      ]);
      if (data !== "real") throw new Error(`pulumi up: ConfigMap pulumi-smoke holds ${JSON.stringify(data)}`);
      step(`pulumi up (${engine.describe()})`);
      const refusal = (await engine.pulumi(["stack", "output", "renderInsideEngine"], program)).trim();
      if (refusal !== liveEngineRefusal)
        throw new Error(`renderProgram under pulumi up answered ${JSON.stringify(refusal)}, not its refusal`);
      step("renderProgram refuses inside the live engine");
      await engine.pulumi(["destroy", "--yes", "--skip-preview"], program);
      const left = await cluster.kubectl(["get", "configmap", "-n", ns, "-o", "name"]);
      if (left.includes("pulumi-smoke")) throw new Error("pulumi destroy left ConfigMap pulumi-smoke");
      await engine.pulumi(["stack", "rm", "--yes"], program);
      step("pulumi destroy");
      passed.push(`Pulumi engine created and deleted a ConfigMap (${engine.describe()})`);
      passed.push("renderProgram refused inside pulumi up");
    }
  } catch (err) {
    console.error(`real tier smoke failed: ${err instanceof Error ? err.message : String(err)}`);
    if (controllers) console.error(controllers.tails());
    for (const [name, log] of Object.entries(cluster.logs)) console.error(`--- ${name}:\n${tail(log, 15)}`);
    await controllers?.stop();
    await cluster.stop();
    console.log(`real tier smoke: ${passed.length} passed, 1 failed`);
    return 1;
  }
  await controllers?.stop();
  await cluster.stop();
  step("stopped");
  printTimings();
  for (const p of passed) console.log(`  ok  ${p}`);
  console.log(
    `real tier smoke (Kubernetes ${cluster.kubernetesVersion}, cert-manager ${controllerSet.tools?.["cert-manager-controller"].version}, trust-manager ${controllerSet.tools?.["trust-manager"].version}): ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  console.log(`${passed.length} passed, 0 failed`);
  return 0;
}

/**
 * A one-resource Pulumi program in JavaScript: a component holding a ConfigMap, through a Kubernetes
 * provider on the cluster's kubeconfig. It loads @pulumi/pulumi and @pulumi/kubernetes from the
 * repository's node_modules; and calls the offline render's renderProgram, whose answer it exports.
 */
function writeProgram(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.symlinkSync(path.resolve(__dirname, "../../node_modules"), path.join(dir, "node_modules"));
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "real-smoke", main: "index.js" }));
  fs.writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    "name: real-smoke\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: index.js\n",
  );
  fs.writeFileSync(
    path.join(dir, "index.js"),
    [
      `const fs = require("fs");`,
      `const pulumi = require("@pulumi/pulumi");`,
      `const k8s = require("@pulumi/kubernetes");`,
      `const provider = new k8s.Provider("real", { kubeconfig: fs.readFileSync(process.env.KUBECONFIG, "utf8") });`,
      `class Smoke extends pulumi.ComponentResource {`,
      `  constructor(name, opts) {`,
      `    super("real:smoke:Smoke", name, {}, opts);`,
      `    this.configMap = new k8s.core.v1.ConfigMap(name, {`,
      `      metadata: { name: "pulumi-smoke", namespace: ${JSON.stringify(ns)} },`,
      `      data: { engine: "real" },`,
      `    }, { parent: this, provider });`,
      `    this.registerOutputs({ name: this.configMap.metadata.name });`,
      `  }`,
      `}`,
      `exports.name = new Smoke("smoke").configMap.metadata.name;`,
      // gke-mesh-platform/render inside a live engine: renderProgram must refuse, not swap in its mocks.
      `require("tsx/cjs/api").register();`,
      `const { renderProgram } = require(${JSON.stringify(path.resolve(__dirname, "../../lib/render/run.ts"))});`,
      `exports.renderInsideEngine = renderProgram({ project: "p", stack: "s", config: {}, program: () => undefined })`,
      `  .then(() => "rendered", (err) => err.message);`,
      "",
    ].join("\n"),
  );
  return dir;
}

function apply(cluster: Cluster, items: readonly object[]): Promise<string> {
  return cluster.kubectl(["apply", "--server-side", "--field-manager=real-tier", "-f", "-"], {
    input: JSON.stringify({ apiVersion: "v1", kind: "List", items }),
  });
}

/** A field of an object, or undefined while it is missing or empty. */
async function jsonpath(
  cluster: Cluster,
  object: readonly string[],
  expression: string,
): Promise<string | undefined> {
  try {
    const out = await cluster.kubectl(["get", ...object, "-o", `jsonpath=${expression}`]);
    return out.trim() ? out : undefined;
  } catch {
    return undefined;
  }
}

function b64(value: string): string {
  return Buffer.from(value.trim(), "base64").toString("utf8");
}

runTierScript("real tier smoke", main);
