import { spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";
import type { Cluster } from "./apiServer";
import { startControllers, type Controllers } from "./controllers";
import type { PulumiEngine } from "./pulumi";
import { tail, waitFor } from "./processes";

/**
 * What platformUp.ts and upgrade.ts share: the Pulumi program that runs the platform's Kubernetes layer
 * from a source tree's `lib/` (with the test-only stack transformation platformUp.ts's doc comment
 * explains), Helm's post-renderer, the dev stack's config, the pulumi commands with their output in files
 * of their own, and `pulumi up` with the real controllers started as soon as their CRDs exist.
 */

/** This repository: the sources under test. */
export const repositoryRoot = path.resolve(__dirname, "../..");

/** The webhook configurations the post-renderer drops, by kind and name, as the charts render them. */
export const droppedWebhooks = [
  "ValidatingWebhookConfiguration cert-manager-webhook",
  "MutatingWebhookConfiguration cert-manager-webhook",
  "ValidatingWebhookConfiguration trust-manager",
  "MutatingWebhookConfiguration linkerd-proxy-injector-webhook-config",
  "ValidatingWebhookConfiguration linkerd-sp-validator-webhook-config",
  "ValidatingWebhookConfiguration linkerd-policy-validator-webhook-config",
] as const;

/**
 * Helm's post-renderer: reads the release's manifests on standard input, writes them back without the
 * admission webhook configurations, and logs each one it drops (kind and name) to `log`.
 */
export function postRenderer(file: string, log: string): string {
  fs.writeFileSync(
    file,
    [
      "#!/usr/bin/env node",
      `const fs = require("fs");`,
      `const input = fs.readFileSync(0, "utf8");`,
      `const kept = [];`,
      `for (const doc of input.split(/^---[^\\n]*$/m)) {`,
      `  const kind = /^kind:\\s*((?:Validating|Mutating)WebhookConfiguration)\\s*$/m.exec(doc);`,
      `  if (kind) {`,
      `    const name = /^metadata:\\s*\\n(?:[ \\t]+.*\\n)*?[ \\t]+name:\\s*"?([^"\\s]+)"?/m.exec(doc);`,
      `    fs.appendFileSync(${JSON.stringify(log)}, kind[1] + " " + (name ? name[1] : "?") + "\\n");`,
      `    continue;`,
      `  }`,
      `  if (doc.trim()) kept.push(doc.replace(/^\\n+/, ""));`,
      `}`,
      `process.stdout.write(kept.map((d) => "---\\n" + d).join(""));`,
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  return file;
}

/** The source tree a program runs: its `lib/`, and the node_modules that library loads. */
export interface ProgramSource {
  /** The tree whose `lib/` the program requires: this repository, or an earlier release's tree. */
  readonly root: string;
  /** The node_modules the program links, the same the tree's `lib/` resolves (so one Pulumi runtime). */
  readonly nodeModules: string;
}

/**
 * A JavaScript Pulumi project in `dir` named `name`: its package.json, Pulumi.yaml and `index.js`
 * (`lines`), with `nodeModules` linked so the program and the library it requires share one Pulumi runtime.
 */
export function writeNodeProject(
  dir: string,
  name: string,
  nodeModules: string,
  lines: readonly string[],
): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.rmSync(path.join(dir, "node_modules"), { force: true });
  fs.symlinkSync(nodeModules, path.join(dir, "node_modules"));
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, main: "index.js" }));
  fs.writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    `name: ${name}\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: index.js\n`,
  );
  fs.writeFileSync(path.join(dir, "index.js"), lines.join("\n"));
}

/**
 * The Pulumi program, in JavaScript: registers tsx so the source tree's `lib/` (TypeScript) loads as it
 * is, without a build; @pulumi/pulumi and @pulumi/kubernetes come from the tree's node_modules (linked),
 * so the program and the library share one Pulumi runtime. Writing it again over the same folder (same
 * project, same stacks) switches the program to another tree's `lib/`.
 */
export function writeProgram(
  dir: string,
  options: { readonly postrender: string; readonly charts: string; readonly source?: ProgramSource },
): string {
  const source = options.source ?? {
    root: repositoryRoot,
    nodeModules: path.join(repositoryRoot, "node_modules"),
  };
  const lib = (p: string) => JSON.stringify(path.join(source.root, "lib", p));
  writeNodeProject(dir, "real-platform-up", source.nodeModules, [
    `// Written by test/real/platformProgram.ts; runs ${source.root}/lib.`,
    `require("tsx/cjs/api").register();`,
    `const pulumi = require("@pulumi/pulumi");`,
    `const { CertManager, ExistingCluster, Linkerd, Platform, loadPlan, standaloneCharts } = require(${lib("index.ts")});`,
    `const { sizingProfile } = require(${lib("config/index.ts")});`,
    `const { single } = require(${lib("deploy/index.ts")});`,
    ``,
    `const config = new pulumi.Config();`,
    `const layer = config.require("layer");`,
    `const identityGroups = ["cert-manager.io/", "trust.cert-manager.io/"];`,
    `// No pod runs (no kubelet): Helm and the provider must not wait for any; the identity objects keep`,
    `// their awaits, which the real cert-manager and trust-manager meet. Test-only: see platformUp.ts.`,
    `pulumi.runtime.registerStackTransformation(({ type, props, opts }) => {`,
    `  if (type === "kubernetes:helm.sh/v3:Release")`,
    `    return { props: { ...props, skipAwait: true, disableWebhooks: true, postrender: ${JSON.stringify(options.postrender)} }, opts };`,
    `  if (!type.startsWith("kubernetes:") || type.startsWith("kubernetes:helm") || !props.metadata) return undefined;`,
    `  if (identityGroups.some((g) => String(props.apiVersion ?? "").startsWith(g))) return undefined;`,
    `  return { props: { ...props, metadata: pulumi.output(props.metadata).apply((m) => ({`,
    `    ...m, annotations: { ...(m.annotations ?? {}), "pulumi.com/skipAwait": "true" } })) }, opts };`,
    `});`,
    ``,
    `if (layer === "platform") {`,
    `  // The whole platform from the stack's config (Pulumi.real.yaml, written by the test).`,
    `  exports.clusterName = new Platform("platform", { plan: loadPlan() }).clusterName;`,
    `} else {`,
    `  const cluster = new ExistingCluster("real", {`,
    `    project: "real-tier",`,
    `    existing: { kubeconfigPath: process.env.KUBECONFIG },`,
    `  });`,
    `  const charts = {`,
    `    ...standaloneCharts({ certManager: "certManager", trustManager: "trustManager", linkerd: "linkerdCrds" }),`,
    `    source: { folder: ${JSON.stringify(options.charts)}, digests: {} },`,
    `  };`,
    `  const certManager = new CertManager("cert-manager", {`,
    `    charts,`,
    `    trustManager: true,`,
    `    provider: cluster.provider,`,
    `    sizing: {`,
    `      certManager: { ...single(sizingProfile.certManager), replicas: config.getNumber("certManagerReplicas") ?? 1 },`,
    `      certManagerWebhook: single(sizingProfile.certManagerWebhook),`,
    `      certManagerCainjector: single(sizingProfile.certManagerCainjector),`,
    `      trustManager: single(sizingProfile.trustManager),`,
    `    },`,
    `  });`,
    `  exports.certManager = certManager.certManager.status.name;`,
    `  if (layer === "building-blocks") {`,
    `    const linkerd = new Linkerd("linkerd", { charts, certManager, provider: cluster.provider });`,
    `    exports.linkerd = linkerd.controlPlane.status.name;`,
    `  }`,
    `}`,
    ``,
  ]);
  return dir;
}

/**
 * The dev stack's config for the `platform` layer, appended to the stack's file (`Pulumi.<stack>.yaml`,
 * made by `pulumi stack init` and `pulumi config set layer platform`): an existing cluster by the control
 * plane's kubeconfig, Linkerd, ingress and monitoring off, one app, charts from `charts`.
 */
export function writeDevStackConfig(file: string, cluster: Cluster, charts: string): void {
  fs.appendFileSync(
    file,
    [
      `  gcp:project: real-tier`,
      `  gcp:region: europe-west1`,
      `  platform:tier: dev`,
      `  platform:cluster: ${JSON.stringify({ mode: "existing", existing: { kubeconfigPath: cluster.kubeconfig }, kubernetesVersion: cluster.kubernetesVersion.replace(/^v(\d+\.\d+).*/, "$1") })}`,
      `  platform:mesh: {"kind": "linkerd"}`,
      `  platform:ingress: {"kind": "none"}`,
      `  platform:monitoring: {"backend": "none"}`,
      `  platform:chartSource: ${JSON.stringify({ folder: charts })}`,
      `  platform:apps: [{"name": "shop", "image": "us-docker.pkg.dev/google-samples/containers/gke/hello-app:2.0", "port": 8080}]`,
      "",
    ].join("\n"),
  );
}

/** The process groups of the pulumi commands running: killed, with their plugins, if the script exits. */
const running = new Set<number>();
process.once("exit", () => {
  for (const pid of running) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

/**
 * `pulumi <args>` in its own process group (so its plugins end with it), standard output streamed to
 * `<base>.log` and standard error to `<base>.err`; resolves with the standard output, or rejects with
 * the end of both.
 */
export function runPulumi(
  engine: PulumiEngine,
  args: readonly string[],
  cwd: string,
  base: string,
): Promise<string> {
  const out = fs.openSync(`${base}.log`, "w");
  const err = fs.openSync(`${base}.err`, "w");
  const child = spawn(engine.tools.pulumi.path, [...args, "--non-interactive"], {
    env: engine.env,
    cwd,
    detached: true,
    stdio: ["ignore", out, err],
  });
  fs.closeSync(out);
  fs.closeSync(err);
  if (child.pid) running.add(child.pid);
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      if (child.pid) running.delete(child.pid);
      const stdout = fs.readFileSync(`${base}.log`, "utf8");
      if (code === 0) return resolve(stdout);
      reject(
        new Error(
          `pulumi ${args.join(" ")} exited with ${signal ?? code}:\n${tail(`${base}.log`, 40)}\n${tail(`${base}.err`, 10)}`,
        ),
      );
    });
  });
}

/** Runs pulumi commands in one program's folder, each command's output in numbered files of its own. */
export interface PulumiSession {
  (args: readonly string[]): Promise<string>;
  /** The end of the last command's output files, to explain a failure. */
  lastOutput(): string | undefined;
}

export function pulumiSession(engine: PulumiEngine, program: string, outputs: string): PulumiSession {
  fs.mkdirSync(outputs, { recursive: true });
  let runs = 0;
  let last: string | undefined;
  const session = (args: readonly string[]) => {
    const base = path.join(outputs, `${String(++runs).padStart(2, "0")}-${args[0]}`);
    last = base;
    return runPulumi(engine, args, program, base);
  };
  return Object.assign(session, {
    lastOutput: () =>
      last && `--- ${path.basename(last)}:\n${tail(`${last}.log`, 40)}\n${tail(`${last}.err`, 10)}`,
  });
}

/** Pulumi's one-line result: `+ 24 created`, `~ 1 updated, 23 unchanged`, with its duration. */
export function summary(output: string): string {
  const lines = output.split("\n");
  const at = lines.findIndex((l) => l.trim() === "Resources:");
  if (at < 0) return "no summary";
  const counts: string[] = [];
  for (const l of lines.slice(at + 1)) {
    if (!l.startsWith("    ")) break;
    counts.push(l.trim());
  }
  const duration = lines.find((l) => l.startsWith("Duration:"))?.replace("Duration: ", "");
  return `${counts.join(", ")}${duration ? ` in ${duration}` : ""}`;
}

/**
 * `pulumi up` of a program that installs cert-manager and trust-manager, with their real controllers
 * started (controllers.ts) as soon as the releases' CRDs are Established, so the engine's awaits on the
 * identity objects are met. Resolves with the up's output and the controllers (still running), or, where
 * the up ended before the CRDs existed, with why (`crds`) and no controllers.
 */
export async function upWithControllers(
  cluster: Cluster,
  pulumi: PulumiSession,
  step: (what: string) => void = () => undefined,
): Promise<{ readonly output: string; readonly crds: string; readonly controllers?: Controllers }> {
  const up = pulumi(["up", "--yes", "--skip-preview"]);
  let upEnded = false;
  void up.then(
    () => (upEnded = true),
    () => (upEnded = true),
  );
  const crds = await waitFor(
    "cert-manager's and trust-manager's CRDs from the releases",
    async () => {
      if (upEnded) return "pulumi up ended first";
      const out = await cluster.kubectl([
        "get",
        "crd",
        "certificates.cert-manager.io",
        "bundles.trust.cert-manager.io",
        "-o",
        `jsonpath={range .items[*]}{.status.conditions[?(@.type=="Established")].status}{end}`,
      ]);
      return out === "TrueTrue" ? "established" : undefined;
    },
    { timeoutMs: 8 * 60_000, intervalMs: 500 },
  );
  let controllers: Controllers | undefined;
  if (crds === "established") {
    step("pulumi up: cert-manager's and trust-manager's CRDs established");
    controllers = await startControllers(cluster);
    step("cert-manager, cainjector and trust-manager started");
  }
  try {
    return { output: await up, crds, controllers };
  } catch (err) {
    await controllers?.stop();
    throw err;
  }
}

/** Why a platform program's run stopped: the error, pulumi's last output, the controllers' and the control plane's logs. */
export function printRunFailure(
  name: string,
  err: unknown,
  pulumi: PulumiSession | undefined,
  controllers: Controllers | undefined,
  cluster: Cluster,
): void {
  console.error(`${name} failed: ${err instanceof Error ? err.message : String(err)}`);
  const last = pulumi?.lastOutput();
  if (last) console.error(last);
  if (controllers) console.error(controllers.tails());
  for (const [n, log] of Object.entries(cluster.logs)) console.error(`--- ${n}:\n${tail(log, 15)}`);
}
