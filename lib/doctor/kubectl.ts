import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { KubeObject } from "../cluster";
import { isObj, str } from "./objects";
import { resourceArg, type ResourceType } from "./resources";
import type { ClusterIdentity, KubeSource, ListOutcome, SecretOutcome } from "./source";

/**
 * Reading a live cluster with the user's own kubectl and credentials: kubectl handles every way a
 * kubeconfig authenticates (GKE's gke-gcloud-auth-plugin among them). Only `get` is ever run.
 */

/** The doctor cannot read the cluster at all: its message says why and what to do. */
export class DoctorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DoctorError";
  }
}

/**
 * The kubectl to run: `KUBECTL`, else kubectl on PATH, else the newest `kubectl-v*` that
 * scripts/tools/build.sh put in the tools cache (`TOOLS_CACHE`, default ~/.cache/gke-mesh-platform).
 */
export function findKubectl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.KUBECTL) return fs.existsSync(env.KUBECTL) ? env.KUBECTL : undefined;
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, process.platform === "win32" ? "kubectl.exe" : "kubectl");
    if (isExecutable(file)) return file;
  }
  const cache = path.join(
    env.TOOLS_CACHE ?? path.join(env.HOME ?? os.homedir(), ".cache/gke-mesh-platform"),
    "bin",
  );
  const built = fs.existsSync(cache)
    ? fs
        .readdirSync(cache)
        .filter((f) => /^kubectl-v\d+\.\d+\.\d+$/.test(f))
        .sort((a, b) => compareVersions(b.slice("kubectl-".length), a.slice("kubectl-".length)))
    : [];
  return built.length > 0 ? path.join(cache, built[0]) : undefined;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function compareVersions(a: string, b: string): number {
  const pa = a.replace(/^v/, "").split(".").map(Number);
  const pb = b.replace(/^v/, "").split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** What a missing kubectl is told. */
export const kubectlMissing =
  "kubectl not found: the doctor reads the cluster with kubectl and your kubeconfig. Install it " +
  "(gcloud components install kubectl, or https://kubernetes.io/docs/tasks/tools/), put it on PATH, " +
  "or name it with KUBECTL=/path/to/kubectl";

export interface KubectlOptions {
  /** The kubeconfig file. @default kubectl's own: KUBECONFIG, else ~/.kube/config */
  readonly kubeconfig?: string;
  /** The kubeconfig context. @default its current context */
  readonly context?: string;
  /** The kubectl binary. @default `findKubectl()` */
  readonly kubectl?: string;
  /** How many kubectl processes run at once. @default 6 */
  readonly concurrency?: number;
  readonly env?: NodeJS.ProcessEnv;
}

/** A source reading the cluster through kubectl: `get` only, `-o json`. */
export function kubectlSource(options: KubectlOptions = {}): KubeSource {
  const binary = options.kubectl ?? findKubectl(options.env);
  if (!binary) throw new DoctorError(kubectlMissing);
  const global = [
    ...(options.kubeconfig ? [`--kubeconfig=${options.kubeconfig}`] : []),
    ...(options.context ? [`--context=${options.context}`] : []),
    "--request-timeout=60s",
  ];
  const limit = options.concurrency ?? 6;
  let running = 0;
  const queue: (() => void)[] = [];
  const slot = async <T>(f: () => Promise<T>): Promise<T> => {
    if (running >= limit) await new Promise<void>((resolve) => queue.push(resolve));
    running++;
    try {
      return await f();
    } finally {
      running--;
      queue.shift()?.();
    }
  };
  const kubectl = (args: readonly string[]) =>
    slot(() => run(binary, [...global, ...args], options.env ?? process.env));

  let checked: Promise<ClusterIdentity> | undefined;
  /** The first call: the context and server, then the API server's version (which proves it answers). */
  const identity = (): Promise<ClusterIdentity> =>
    (checked ??= (async () => {
      const view = await kubectl([
        "config",
        "view",
        "--minify",
        "-o",
        'jsonpath={.contexts[0].name}{"\\n"}{.clusters[0].cluster.server}',
      ]);
      if (view.code !== 0) throw new DoctorError(`kubectl cannot use the kubeconfig: ${view.stderr.trim()}`);
      const [context, server] = view.stdout.split("\n");
      const version = await kubectl(["get", "--raw", "/version"]);
      if (version.code !== 0)
        throw new DoctorError(
          `cannot reach the cluster${server ? ` at ${server}` : ""} (context ${context || "none"}): ${version.stderr.trim()}`,
        );
      let gitVersion: string | undefined;
      try {
        const parsed: unknown = JSON.parse(version.stdout);
        gitVersion = isObj(parsed) ? str(parsed.gitVersion) : undefined;
      } catch {
        gitVersion = undefined;
      }
      return { context: context || undefined, server: server || undefined, version: gitVersion };
    })());

  return {
    describe: identity,
    async list(type: ResourceType): Promise<ListOutcome> {
      await identity();
      const args = [
        "get",
        resourceArg(type),
        "--all-namespaces",
        ...(type.fieldSelector
          ? [`--field-selector=${type.fieldSelector.field}=${type.fieldSelector.value}`]
          : []),
        // Who wrote each field: kubectl leaves managedFields out of its output unless asked.
        "--show-managed-fields",
        "-o",
        "json",
      ];
      const out = await kubectl(args);
      if (out.code === 0) {
        const parsed: unknown = JSON.parse(out.stdout);
        const items = isObj(parsed) && Array.isArray(parsed.items) ? (parsed.items as KubeObject[]) : [];
        // A List's items carry no apiVersion and kind of their own when kubectl prints them: fill them in.
        const apiVersion = items[0]?.apiVersion;
        return {
          items: items.map((o) => ({
            ...o,
            kind: o.kind ?? type.kind,
            apiVersion: o.apiVersion ?? apiVersion ?? (type.group ? `${type.group}/v1` : "v1"),
          })),
        };
      }
      return classify(out.stderr, `kubectl ${args.join(" ")}`);
    },
    async secretCertificates(namespace: string, name: string): Promise<SecretOutcome> {
      await identity();
      // Only the type, tls.crt and ca.crt are asked for: the key never leaves the API server.
      const out = await kubectl([
        "get",
        "secret",
        name,
        `--namespace=${namespace}`,
        "-o",
        'jsonpath={.type}{"\\t"}{.data.tls\\.crt}{"\\t"}{.data.ca\\.crt}',
      ]);
      if (out.code === 0) {
        const [type, tls, ca] = out.stdout.split("\t");
        const pem = (b64: string | undefined) =>
          b64 ? Buffer.from(b64.trim(), "base64").toString("utf8") : undefined;
        return { certificates: { type: type ?? "", tlsCrt: pem(tls), caCrt: pem(ca) } };
      }
      if (/\(NotFound\)/.test(out.stderr)) return { notFound: true };
      const outcome = classify(out.stderr, `kubectl get secret ${name} --namespace=${namespace}`);
      if ("forbidden" in outcome) return { forbidden: outcome.forbidden };
      throw new DoctorError(`kubectl get secret ${name} --namespace=${namespace}: ${out.stderr.trim()}`);
    },
  };
}

/** kubectl's failure, read: a refusal, a type the cluster does not serve, or the cluster unreachable. */
function classify(stderr: string, what: string): ListOutcome {
  const text = stderr.trim();
  const forbidden = /Error from server \(Forbidden\): (.*)/.exec(text);
  if (forbidden) return { forbidden: forbidden[1] };
  if (/the server doesn't have a resource type/.test(text)) return { absent: true };
  throw new DoctorError(`${what}: ${text}`);
}

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(file: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(file, args, { env, maxBuffer: 1024 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (!err) return resolve({ code: 0, stdout, stderr });
      const code = typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : 1;
      resolve({ code, stdout, stderr: stderr || err.message });
    });
  });
}
