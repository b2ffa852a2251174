import * as fs from "fs";
import * as path from "path";
import { MissingTools, type Cluster } from "./apiServer";
import { findHelm } from "../../lib/cluster";
import { issue, makeCa } from "./pki";
import { freePort, run, startProcess, tail, waitFor, type Running } from "./processes";
import { requireTools, toolVersion, type Tool } from "./tools";
import { chartsDir, referenceProblem } from "../upstream/reference";

/**
 * cert-manager (controller and cainjector) and trust-manager as local processes against a real API server
 * (apiServer.ts), as the charts run them but outside the cluster: each with the cluster's kubeconfig,
 * without leader election, with its log in a file. Their webhooks are not registered with the API server
 * (no Service could reach them), so objects are not validated or defaulted by them. The CRDs must be
 * applied first (`applyChartCrds`).
 */

/** Where cert-manager keeps a ClusterIssuer's Secrets, and trust-manager reads Bundle sources: as the charts install them. */
export const certManagerNamespace = "cert-manager";

export interface Controllers {
  readonly tools: { readonly [name: string]: Tool };
  /** Each process's log. */
  readonly logs: Readonly<Record<string, string>>;
  /** The last lines of every log, to explain a failure. */
  tails(lines?: number): string;
  stop(): Promise<void>;
}

/**
 * The CRDs of the controllers' versions, from their pinned charts (the reference's, test/upstream/reference.ts)
 * templated by helm with CRDs on, applied server-side; resolves once every one
 * is Established. Returns the CRDs' names.
 */
export async function applyControllerCrds(cluster: Cluster): Promise<string[]> {
  const helm = findHelm();
  if (!helm)
    throw new MissingTools("no helm binary (set HELM, put helm on PATH, or run .ci/run, which builds one)");
  if (!chartsDir) throw new MissingTools(referenceProblem ?? "no reference folder");
  const charts = [
    { release: "cert-manager", chart: `cert-manager-${toolVersion("cert-manager-controller")}` },
    { release: "trust-manager", chart: `trust-manager-${toolVersion("trust-manager")}` },
  ];
  let documents = "";
  for (const { release, chart } of charts) {
    const dir = path.join(chartsDir, chart);
    if (!fs.existsSync(dir))
      throw new MissingTools(
        `no chart ${chart} in ${chartsDir}: \`npm run reference\` prepares it from the Go module proxy (needs Go), or set CHARTS_DIR`,
      );
    const templates = fs.readdirSync(path.join(dir, "templates")).filter((f) => /^crds?[-.]/.test(f));
    documents += await run(helm, [
      "template",
      release,
      dir,
      `--namespace=${certManagerNamespace}`,
      "--set=crds.enabled=true",
      `--kube-version=${cluster.kubernetesVersion}`,
      ...templates.map((t) => `--show-only=templates/${t}`),
    ]);
    documents += "\n---\n";
  }
  const applied = await cluster.kubectl(
    ["apply", "--server-side", "--field-manager=real-tier", "-o", "name", "-f", "-"],
    { input: documents },
  );
  const names = applied.split("\n").filter((l) => l.startsWith("customresourcedefinition"));
  await cluster.kubectl(["wait", "--for=condition=Established", "--timeout=60s", ...names]);
  return names.map((n) => n.replace(/^[^/]+\//, ""));
}

export const controllerToolNames = [
  "cert-manager-controller",
  "cert-manager-cainjector",
  "trust-manager",
] as const;

export async function startControllers(cluster: Cluster): Promise<Controllers> {
  const set = requireTools(controllerToolNames);
  if (!set.tools) throw new MissingTools(set.skip);
  const tools = set.tools;
  const logDir = path.join(cluster.dir, "logs");
  await cluster
    .kubectl(["create", "namespace", certManagerNamespace, "--dry-run=client", "-o", "json"])
    .then((ns) =>
      cluster.kubectl(["apply", "--server-side", "--field-manager=real-tier", "-f", "-"], { input: ns }),
    );
  const processes: Running[] = [];
  const stop = async () => {
    for (const p of [...processes].reverse()) await p.stop();
  };
  try {
    processes.push(
      startProcess(
        "cert-manager-controller",
        tools["cert-manager-controller"].path,
        [
          `--kubeconfig=${cluster.kubeconfig}`,
          // The chart passes its own namespace (--cluster-resource-namespace=$(POD_NAMESPACE)).
          `--cluster-resource-namespace=${certManagerNamespace}`,
          "--v=2",
        ],
        { logDir },
      ),
      startProcess(
        "cert-manager-cainjector",
        tools["cert-manager-cainjector"].path,
        [`--kubeconfig=${cluster.kubeconfig}`, "--v=2"],
        { logDir },
      ),
    );

    // trust-manager's own command always serves its webhook: give it a certificate and a free port on
    // 127.0.0.1 (nothing calls it), and free ports for its metrics and readiness probe.
    const webhookDir = path.join(cluster.dir, "trust-manager-webhook");
    fs.mkdirSync(webhookDir, { recursive: true });
    const webhookCa = await makeCa(webhookDir, "webhook-ca");
    const serving = await issue(webhookCa, {
      name: "webhook",
      commonName: "trust-manager",
      dnsNames: ["localhost"],
      ipAddresses: ["127.0.0.1"],
      usage: "server",
    });
    fs.copyFileSync(serving.cert, path.join(webhookDir, "tls.crt"));
    fs.copyFileSync(serving.key, path.join(webhookDir, "tls.key"));
    const [webhookPort, metricsPort, readyzPort] = [await freePort(), await freePort(), await freePort()];
    const trustManager = startProcess(
      "trust-manager",
      tools["trust-manager"].path,
      [
        `--kubeconfig=${cluster.kubeconfig}`,
        `--trust-namespace=${certManagerNamespace}`,
        "--leader-elect=false",
        "--webhook-host=127.0.0.1",
        `--webhook-port=${webhookPort}`,
        `--webhook-certificate-dir=${webhookDir}`,
        `--metrics-port=${metricsPort}`,
        `--readiness-probe-port=${readyzPort}`,
        "--log-level=2",
        // No --default-package-location: the platform turns the default CA package off
        // (lib/addons/certManager.ts), so the chart passes none either.
      ],
      { logDir },
    );
    processes.push(trustManager);
    await waitFor(
      "trust-manager /readyz",
      async () => ((await fetch(`http://127.0.0.1:${readyzPort}/readyz`)).ok ? true : undefined),
      { watch: processes, timeoutMs: 60_000 },
    );
  } catch (err) {
    const tails = processes.map((p) => `--- ${p.name}:\n${tail(p.log)}`).join("\n");
    await stop();
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n${tails}`);
  }
  const logs = Object.fromEntries(processes.map((p) => [p.name, p.log]));
  return {
    tools,
    logs,
    tails: (lines = 25) =>
      processes.map((p) => `--- ${p.name}${p.done() ? " (exited)" : ""}:\n${tail(p.log, lines)}`).join("\n"),
    stop,
  };
}
