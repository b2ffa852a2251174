import * as fs from "fs";
import * as https from "https";
import * as os from "os";
import * as path from "path";
import { supportedKubernetes } from "../../lib/versions";
import { issue, makeCa, makeServiceAccountKey, type KeyPair } from "./pki";
import { freePort, run, startProcess, tail, waitFor, type Running } from "./processes";
import { kubernetesTools, requireTools, type Tool } from "./tools";

/**
 * A real Kubernetes control plane on localhost (../shared/reference/real-cluster.md): etcd, kube-apiserver
 * and kube-controller-manager, built by scripts/tools/build.sh. Objects are stored, admitted and
 * garbage-collected as on GKE; no node, kubelet or scheduler, so pods never run.
 */

/** The admission plugins GKE enables beyond the defaults (real-cluster.md). */
export const gkeAdmissionPlugins = [
  "NamespaceLifecycle",
  "LimitRanger",
  "ServiceAccount",
  "ResourceQuota",
  "PodSecurity",
  "MutatingAdmissionWebhook",
  "ValidatingAdmissionWebhook",
  "ValidatingAdmissionPolicy",
] as const;

/**
 * The controllers of kube-controller-manager the tier runs: the garbage collector (without it a foreground
 * deletion never finishes), the namespace controller (a deleted namespace is emptied, then removed), and
 * the service account controllers (each namespace's `default` ServiceAccount and `kube-root-ca.crt`).
 */
export const controllerManagerControllers = [
  "garbage-collector-controller",
  "namespace-controller",
  "serviceaccount-controller",
  "serviceaccount-token-controller",
  "root-ca-certificate-publisher-controller",
] as const;

/** Thrown where a tool is missing; its message says which and how to build it. */
export class MissingTools extends Error {}

export interface Cluster {
  /** The exact Kubernetes version of the API server, e.g. v1.36.3. */
  readonly kubernetesVersion: string;
  readonly server: string;
  /** An admin kubeconfig (a client certificate in group system:masters). */
  readonly kubeconfig: string;
  /** The folder holding the cluster's files; removed by stop(). */
  readonly dir: string;
  /** Each process's log. */
  readonly logs: Readonly<Record<string, string>>;
  readonly kubectlTool: Tool;
  /** Runs kubectl with the admin kubeconfig (or another); resolves with its output. */
  kubectl(
    args: readonly string[],
    options?: { readonly input?: string; readonly kubeconfig?: string },
  ): Promise<string>;
  /**
   * A kubeconfig for a user who may only read: bound to the `view` ClusterRole, and allowed to get, list
   * and watch CustomResourceDefinitions and Namespaces (which `view` leaves out).
   */
  readOnlyKubeconfig(): Promise<string>;
  /** A kubeconfig for a user with the given groups (a client certificate signed by the cluster's CA). */
  userKubeconfig(user: string, groups?: readonly string[]): Promise<string>;
  /** Stops every process and removes the folder (unless REAL_TIER_KEEP=1; then it says where it is). */
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** The minor to run: the highest or lowest the platform supports. @default supportedKubernetes.highest */
  readonly kubernetesVersion?: string;
  /**
   * Controllers of kube-controller-manager to run besides `controllerManagerControllers`, e.g. the
   * ReplicaSet and ResourceQuota controllers where a script needs pods made and counted. @default none
   */
  readonly extraControllers?: readonly string[];
}

/** The tools a cluster of that version needs, or why it cannot start. */
export function clusterTools(kubernetesVersion: string = supportedKubernetes.highest) {
  const k = kubernetesTools(kubernetesVersion);
  return { names: k, set: requireTools(["etcd", k.apiServer, k.controllerManager, "kubectl"]) };
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const { names, set } = clusterTools(options.kubernetesVersion);
  if (!set.tools) throw new MissingTools(set.skip);
  const tools = set.tools;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "real-cluster-"));
  const removeDir = () => {
    if (process.env.REAL_TIER_KEEP === "1") console.log(`real tier: kept ${dir}`);
    else fs.rmSync(dir, { recursive: true, force: true });
  };
  // A script that dies before stop() leaves no folder behind (its processes are killed by processes.ts).
  process.once("exit", removeDir);
  const logDir = path.join(dir, "logs");
  const processes: Running[] = [];
  const stopAll = async () => {
    for (const p of [...processes].reverse()) await p.stop();
  };
  try {
    const pki = path.join(dir, "pki");
    fs.mkdirSync(pki);
    const ca = await makeCa(pki, "ca");
    const serving = await issue(ca, {
      name: "apiserver",
      commonName: "kube-apiserver",
      dnsNames: ["localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"],
      ipAddresses: ["127.0.0.1"],
      usage: "server",
    });
    const admin = await issue(ca, {
      name: "admin",
      commonName: "real-tier-admin",
      organizations: ["system:masters"],
      usage: "client",
    });
    const controllerManager = await issue(ca, {
      name: "controller-manager",
      commonName: "system:kube-controller-manager",
      usage: "client",
    });
    const serviceAccount = makeServiceAccountKey(pki);

    const [etcdClient, etcdPeer, securePort] = [await freePort(), await freePort(), await freePort()];
    const etcdUrl = `http://127.0.0.1:${etcdClient}`;
    const etcd = startProcess(
      "etcd",
      tools.etcd.path,
      [
        "--name=real",
        `--data-dir=${path.join(dir, "etcd")}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-cluster=real=http://127.0.0.1:${etcdPeer}`,
        // A test's data need not survive a crash of the machine.
        "--unsafe-no-fsync",
        "--log-level=warn",
      ],
      { logDir },
    );
    processes.push(etcd);
    await waitFor(
      "etcd",
      async () => {
        const res = await fetch(`${etcdUrl}/health`);
        return res.ok && ((await res.json()) as { health?: string }).health === "true" ? true : undefined;
      },
      { watch: [etcd], timeoutMs: 30_000 },
    );

    const server = `https://127.0.0.1:${securePort}`;
    const apiServer = startProcess(
      "kube-apiserver",
      tools[names.apiServer].path,
      [
        `--etcd-servers=${etcdUrl}`,
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        `--secure-port=${securePort}`,
        `--cert-dir=${path.join(dir, "apiserver")}`,
        `--tls-cert-file=${serving.cert}`,
        `--tls-private-key-file=${serving.key}`,
        `--client-ca-file=${ca.cert}`,
        `--service-account-key-file=${serviceAccount.publicKey}`,
        `--service-account-signing-key-file=${serviceAccount.privateKey}`,
        "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
        "--service-cluster-ip-range=10.96.0.0/16",
        "--authorization-mode=Node,RBAC",
        `--enable-admission-plugins=${gkeAdmissionPlugins.join(",")}`,
        "--allow-privileged=true",
        // The `kubernetes` Service's endpoint would be 127.0.0.1, which an EndpointSlice may not hold.
        "--endpoint-reconciler-type=none",
        "--profiling=false",
        "--v=1",
      ],
      { logDir },
    );
    processes.push(apiServer);
    await waitFor("kube-apiserver /readyz", () => readyz(server, ca, admin), {
      watch: [etcd, apiServer],
      timeoutMs: 90_000,
    });

    const kubeconfig = writeKubeconfig(
      path.join(dir, "admin.kubeconfig"),
      server,
      ca,
      admin,
      "real-tier-admin",
    );
    const controllerManagerKubeconfig = writeKubeconfig(
      path.join(dir, "controller-manager.kubeconfig"),
      server,
      ca,
      controllerManager,
      "system:kube-controller-manager",
    );
    const kcm = startProcess(
      "kube-controller-manager",
      tools[names.controllerManager].path,
      [
        `--kubeconfig=${controllerManagerKubeconfig}`,
        // No serving: nothing here scrapes or probes it.
        "--secure-port=0",
        "--leader-elect=false",
        // Each controller acts as its own service account, with the RBAC a real cluster gives it.
        "--use-service-account-credentials=true",
        `--service-account-private-key-file=${serviceAccount.privateKey}`,
        `--root-ca-file=${ca.cert}`,
        `--controllers=${[...controllerManagerControllers, ...(options.extraControllers ?? [])].join(",")}`,
        "--cluster-name=real",
        "--v=1",
      ],
      { logDir },
    );
    processes.push(kcm);

    const kubectl = (
      args: readonly string[],
      opts: { readonly input?: string; readonly kubeconfig?: string } = {},
    ): Promise<string> =>
      run(tools.kubectl.path, [`--kubeconfig=${opts.kubeconfig ?? kubeconfig}`, ...args], {
        input: opts.input,
      });
    // The controller manager is up once its service account controller has made a namespace's `default`.
    await waitFor(
      "kube-controller-manager (the default ServiceAccount in namespace default)",
      async () =>
        (await kubectl(["get", "serviceaccount", "default", "-n", "default", "-o", "name"]))
          ? true
          : undefined,
      { watch: [etcd, apiServer, kcm], timeoutMs: 60_000 },
    );

    const userKubeconfig = async (user: string, groups: readonly string[] = []): Promise<string> => {
      const name = user.replace(/[^a-zA-Z0-9-]/g, "-");
      const pair = await issue(ca, {
        name: `user-${name}`,
        commonName: user,
        organizations: groups,
        usage: "client",
      });
      return writeKubeconfig(path.join(dir, `${name}.kubeconfig`), server, ca, pair, user);
    };
    let readOnly: Promise<string> | undefined;
    const logs = Object.fromEntries(processes.map((p) => [p.name, p.log]));
    return {
      kubernetesVersion: tools[names.apiServer].version,
      server,
      kubeconfig,
      dir,
      logs,
      kubectlTool: tools.kubectl,
      kubectl,
      userKubeconfig,
      readOnlyKubeconfig() {
        readOnly ??= (async () => {
          const file = await userKubeconfig("real-tier-viewer");
          await kubectl(["apply", "--server-side", "--field-manager=real-tier", "-f", "-"], {
            input: JSON.stringify(readOnlyRbac("real-tier-viewer")),
          });
          // The authorizer reads bindings from its cache: wait until it has this one.
          await waitFor("the read-only user's bindings", async () =>
            (await kubectl(["get", "crd,namespaces", "-o", "name"], { kubeconfig: file })) !== undefined
              ? true
              : undefined,
          );
          return file;
        })();
        return readOnly;
      },
      async stop() {
        await stopAll();
        process.removeListener("exit", removeDir);
        removeDir();
      },
    };
  } catch (err) {
    const logs = processes.map((p) => `--- ${p.name} (${p.log}):\n${tail(p.log)}`).join("\n");
    await stopAll();
    process.removeListener("exit", removeDir);
    removeDir();
    throw new Error(`${err instanceof Error ? err.message : String(err)}${logs ? `\n${logs}` : ""}`);
  }
}

/** /readyz with the admin certificate: true once it answers ok. */
function readyz(server: string, ca: KeyPair, client: KeyPair): Promise<true | undefined> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      `${server}/readyz`,
      {
        ca: fs.readFileSync(ca.cert),
        cert: fs.readFileSync(client.cert),
        key: fs.readFileSync(client.key),
        timeout: 5_000,
      },
      (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => (body += chunk.toString()));
        res.on("end", () =>
          res.statusCode === 200 && body.trim() === "ok" ? resolve(true) : resolve(undefined),
        );
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
  });
}

/** A kubeconfig with everything embedded, so it can be copied anywhere. */
function writeKubeconfig(file: string, server: string, ca: KeyPair, client: KeyPair, user: string): string {
  const b64 = (f: string) => fs.readFileSync(f).toString("base64");
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "real", cluster: { server, "certificate-authority-data": b64(ca.cert) } }],
    users: [
      {
        name: user,
        user: { "client-certificate-data": b64(client.cert), "client-key-data": b64(client.key) },
      },
    ],
    contexts: [{ name: "real", context: { cluster: "real", user } }],
    "current-context": "real",
  };
  fs.writeFileSync(file, JSON.stringify(config, null, 2), { mode: 0o600 });
  return file;
}

/** `view` for the user, plus reading CustomResourceDefinitions. */
function readOnlyRbac(user: string): object {
  return {
    apiVersion: "v1",
    kind: "List",
    items: [
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: "real-tier:read-crds" },
        rules: [
          {
            apiGroups: ["apiextensions.k8s.io"],
            resources: ["customresourcedefinitions"],
            verbs: ["get", "list", "watch"],
          },
          // `view` is meant to be bound in a namespace, so it leaves out listing namespaces.
          { apiGroups: [""], resources: ["namespaces"], verbs: ["get", "list", "watch"] },
        ],
      },
      ...[
        ["real-tier:view", "view"],
        ["real-tier:read-crds", "real-tier:read-crds"],
      ].map(([name, role]) => ({
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
        subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: user }],
      })),
    ],
  };
}
