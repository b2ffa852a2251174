import * as fs from "node:fs";
import * as path from "node:path";
import { Platform } from "../../lib/platform";
import { namespaceNeed, parseEnvironment, planFor } from "../../lib/plan";
import { renderProgram } from "../../lib/render";
import { acmeSolverPodShape } from "../../lib/versions";
import { clusterTools, startCluster, type Cluster } from "./apiServer";
import { waitFor } from "./processes";
import { referenceDir, referenceProblem } from "../upstream/reference";
import { runTierScript, stepTimer } from "./script";

/**
 * Teams held to a real API server and controller manager: `npx tsx test/real/teams.ts [kubernetes minor]`.
 * Renders a Platform with two teams (no mesh, so every pod's requests are the rendered ones) on an existing
 * cluster, server-side applies every object in the teams' namespaces, and runs the ReplicaSet, Deployment,
 * ResourceQuota and ClusterRole aggregation controllers beside the tier's own. From what the real
 * components do:
 *   - Pod Security (the namespaces' `restricted` level) admits the pods the apps' ReplicaSets make;
 *   - the quota the config refuses anything below (`namespaceNeed`: each app's replicas and the pod its
 *     rollout adds) is exactly enough: the apps' pods, then a rollout of each, are admitted, and the
 *     quota's used equals its hard limit; one pod more is refused for exceeding it;
 *   - the LimitRange gives a container that asks for nothing the platform's requests and limit, and a
 *     container that requests more memory than the default limit without a limit of its own is refused
 *     (docs/teams.md says so);
 *   - RBAC with the real aggregated roles: each group and user the config names may do what its role
 *     allows in its team's namespaces and nothing in another team's, the platform's (cert-manager's
 *     Secrets) or the cluster's; no team member may change its quota or LimitRange;
 *   - the routes policy (ValidatingAdmissionPolicy, per namespace): the platform's own Ingresses (ingress-nginx)
 *     are admitted, a member's Ingress under its namespace's exposed host and path prefix is admitted, and
 *     one for another team's host, beside or outside the prefix, without host, with a defaultBackend or
 *     another host in tls is refused with the policy's message.
 * Unproven here (no kubelet, no network dataplane): that the NetworkPolicies are enforced, and anything a
 * running pod does. GKE's mapping of Google groups to Group subjects is GKE's (docs/teams.md).
 */

const name = "real tier teams";
const payments = "payments";
const search = "search-api";
const searchJobs = "search-jobs";
const devs = "payments-devs@example.com";
const auditors = "auditors@example.com";
const leads = "search-leads@example.com";
const alex = "alex@example.com";
const payHost = "pay.example.com";
const shopHost = "shop.example.com";

/** Two teams; payments' quota exactly what its apps need, which the config allows and nothing less. */
function environment(cluster: Cluster, quota: Record<string, unknown>): Record<string, unknown> {
  return {
    tier: "prod",
    gcp: { project: "acme-real", region: "europe-west1" },
    cluster: {
      mode: "existing",
      existing: { kubeconfigPath: cluster.kubeconfig },
      kubernetesVersion: cluster.kubernetesVersion.replace(/^v(\d+\.\d+).*/, "$1"),
    },
    mesh: { kind: "none" },
    // ingress-nginx: its routes are networking.k8s.io Ingresses, which need no CRD.
    ingress: { kind: "ingress-nginx", acme: { email: "platform@example.com" } },
    monitoring: { backend: "none" },
    teams: [
      { name: payments, access: { view: [auditors], edit: [devs, `user:${alex}`] }, quota },
      { name: "search", namespaces: [search, searchJobs], access: { admin: [leads] } },
    ],
    apps: [
      {
        name: "pay",
        team: payments,
        image: "europe-docker.pkg.dev/acme/apps/pay:1.0.0",
        port: 8080,
        replicas: 2,
        expose: { host: payHost, path: "/" },
      },
      {
        name: "ledger",
        team: payments,
        image: "europe-docker.pkg.dev/acme/apps/ledger:1.0.0",
        port: 9000,
        replicas: 1,
      },
      {
        name: "find",
        team: "search",
        image: "europe-docker.pkg.dev/acme/apps/find:1.0.0",
        port: 9100,
        replicas: 1,
        expose: { host: shopHost, path: "/search" },
      },
    ],
  };
}

interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
}

function isKubeObject(value: unknown): value is KubeObject {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { kind?: unknown }).kind === "string" &&
    typeof (value as { metadata?: { name?: unknown } }).metadata?.name === "string"
  );
}

/** Every rendered object in the teams' namespaces, and the Namespaces themselves. */
async function teamObjects(
  cluster: Cluster,
): Promise<{ objects: KubeObject[]; need: ReturnType<typeof namespaceNeed> }> {
  // First the need, from a quota large enough to plan; then the plan whose payments quota is exactly it.
  const probe = parseEnvironment(environment(cluster, { pods: 100 }), "real");
  const need = namespaceNeed(probe, payments);
  const mi = 1024 ** 2;
  const exact = {
    requests: { cpu: `${Math.round(need.cpu * 1000)}m`, memory: `${need.memory / mi}Mi` },
    limits: { memory: `${need.memoryLimit / mi}Mi` },
    pods: need.pods,
  };
  const config = parseEnvironment(environment(cluster, exact), "real");
  const result = await renderProgram({
    project: "real-teams",
    stack: "real",
    config: {},
    program: () => new Platform("platform", { plan: planFor(config) }).outputs(),
  });
  const namespaces = [payments, search, searchJobs];
  const objects = result.resources
    .map((r): unknown => r.inputs)
    .filter(isKubeObject)
    // No cert-manager here: the Ingresses' Certificates stay out (their CRD is not installed).
    .filter((o) => !o.apiVersion.startsWith("cert-manager.io/"))
    .filter((o) =>
      o.kind === "Namespace"
        ? namespaces.includes(o.metadata.name)
        : o.kind.startsWith("ValidatingAdmissionPolicy")
          ? namespaces.some((ns) => o.metadata.name === `team-routes-${ns}`)
          : namespaces.includes(o.metadata.namespace ?? ""),
    );
  return { objects, need };
}

async function apply(cluster: Cluster, objects: readonly object[]): Promise<void> {
  await cluster.kubectl(["apply", "--server-side", "--field-manager=real-tier", "-f", "-"], {
    input: JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }),
  });
}

/** The pods of a namespace, by the name of the ReplicaSet that made them (or their own name). */
async function podsOf(cluster: Cluster, namespace: string): Promise<string[]> {
  const out = await cluster.kubectl([
    "get",
    "pods",
    "-n",
    namespace,
    "-o",
    "jsonpath={.items[*].metadata.name}",
  ]);
  return out.split(/\s+/).filter(Boolean);
}

/** The quota's status: used and hard, by resource. */
async function quotaStatus(
  cluster: Cluster,
  namespace: string,
): Promise<{ used: Record<string, string>; hard: Record<string, string> }> {
  const out = await cluster.kubectl([
    "get",
    "resourcequota",
    `team-${payments}`,
    "-n",
    namespace,
    "-o",
    "json",
  ]);
  const status = (
    JSON.parse(out) as { status?: { used?: Record<string, string>; hard?: Record<string, string> } }
  ).status;
  return { used: status?.used ?? {}, hard: status?.hard ?? {} };
}

/** `kubectl auth can-i` as a user in groups: the real RBAC authorizer's answer. */
async function canI(
  cluster: Cluster,
  who: { user: string; groups?: readonly string[] },
  verb: string,
  resource: string,
  namespace?: string,
): Promise<boolean> {
  const args = [
    "auth",
    "can-i",
    verb,
    resource,
    `--as=${who.user}`,
    ...(who.groups ?? []).map((g) => `--as-group=${g}`),
  ];
  const out = await cluster
    .kubectl([...args, ...(namespace ? ["-n", namespace] : ["--all-namespaces"])])
    .catch((err: unknown) => (err instanceof Error ? err.message : String(err)));
  return /^yes\b/m.test(out.trim());
}

/** A pod the restricted Pod Security level admits, with the resources given. */
function restrictedPod(podName: string, namespace: string, resources: Record<string, unknown>): object {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: podName, namespace },
    spec: {
      automountServiceAccountToken: false,
      securityContext: { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: "RuntimeDefault" } },
      containers: [
        {
          name: "c",
          image: "europe-docker.pkg.dev/acme/apps/pay:1.0.0",
          resources,
          securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
        },
      ],
    },
  };
}

async function refusal(
  cluster: Cluster,
  object: object,
  who?: { user: string; groups?: readonly string[] },
): Promise<string | undefined> {
  const as = who ? [`--as=${who.user}`, ...(who.groups ?? []).map((g) => `--as-group=${g}`)] : [];
  try {
    await cluster.kubectl(["create", ...as, "-f", "-"], { input: JSON.stringify(object) });
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

async function main(): Promise<number> {
  const kubernetesVersion = process.argv[2];
  const tools = clusterTools(kubernetesVersion);
  if (tools.set.skip) {
    if (process.env.CI === "true") {
      console.error(`${name}: ${tools.set.skip}: CI must run it`);
      return 1;
    }
    console.log(`${name}: ${tools.set.skip}: skipped`);
    return 0;
  }
  const { step, printTimings } = stepTimer();
  const passed: string[] = [];
  const cluster = await startCluster({
    kubernetesVersion,
    extraControllers: [
      "replicaset-controller",
      "deployment-controller",
      "resourcequota-controller",
      "clusterrole-aggregation-controller",
    ],
  });
  step(`control plane ${cluster.kubernetesVersion} ready`);
  try {
    const { objects, need } = await teamObjects(cluster);
    const kinds = [...new Set(objects.map((o) => o.kind))].sort();
    for (const kind of [
      "Deployment",
      "Ingress",
      "LimitRange",
      "Namespace",
      "NetworkPolicy",
      "ResourceQuota",
      "RoleBinding",
      "ValidatingAdmissionPolicy",
      "ValidatingAdmissionPolicyBinding",
    ])
      if (!kinds.includes(kind))
        throw new Error(`the render has no ${kind} in the teams' namespaces (it has ${kinds.join(", ")})`);
    step(`rendered ${objects.length} objects in the teams' namespaces`);
    await apply(
      cluster,
      objects.filter((o) => o.kind === "Namespace"),
    );
    await apply(
      cluster,
      objects.filter((o) => o.kind === "ResourceQuota" || o.kind === "LimitRange"),
    );
    // Quota admission refuses pods until the quota controller has computed the quota's status.
    await waitFor("the quota controller's status of team-payments", async () =>
      Object.keys((await quotaStatus(cluster, payments)).hard).length > 0 ? true : undefined,
    );
    // The Ingresses wait for the routes' policy to be in force (step "routes").
    await apply(
      cluster,
      objects.filter((o) => !["Namespace", "ResourceQuota", "LimitRange", "Ingress"].includes(o.kind)),
    );
    const level = await cluster.kubectl([
      "get",
      "namespace",
      payments,
      "-o",
      "jsonpath={.metadata.labels.pod-security\\.kubernetes\\.io/enforce}",
    ]);
    if (level.trim() !== "restricted")
      throw new Error(`namespace ${payments} enforces ${level || "nothing"}, not restricted`);
    step(`applied ${objects.length} objects (${kinds.join(", ")})`);
    passed.push(`every object of the teams' namespaces stored: ${kinds.join(", ")}`);

    // The apps' pods: the ReplicaSets make them; Pod Security and the quota admit them.
    const replicas = 3;
    await waitFor(
      `${replicas} pods of the apps in ${payments}`,
      async () => ((await podsOf(cluster, payments)).length === replicas ? true : undefined),
      { timeoutMs: 60_000 },
    );
    step("the apps' pods made by their ReplicaSets");
    passed.push(`Pod Security (restricted) and the quota admit the apps' ${replicas} pods`);

    // A rollout of each app: the new ReplicaSet's first pod; no pod gets ready here, so each stops there.
    for (const app of ["pay", "ledger"]) {
      await cluster.kubectl([
        "patch",
        "deployment",
        app,
        "-n",
        payments,
        "--type=merge",
        "-p",
        JSON.stringify({ spec: { template: { metadata: { annotations: { "real-tier/rollout": "2" } } } } }),
      ]);
    }
    // pay's host is challenged through ingress-nginx (HTTP-01): the quota keeps a solver pod's room too.
    const solvers = 1;
    await waitFor(
      `${need.pods - solvers} pods in ${payments} (a rollout of each app)`,
      async () => ((await podsOf(cluster, payments)).length === need.pods - solvers ? true : undefined),
      { timeoutMs: 60_000 },
    );
    // An ACME solver pod as cert-manager makes it (its default resources, acmeSolverPodShape), mid-rollout.
    const solver = await refusal(
      cluster,
      restrictedPod("cm-acme-http-solver", payments, {
        requests: {
          cpu: `${acmeSolverPodShape.cpuRequestMillis}m`,
          memory: `${acmeSolverPodShape.memoryRequestMi}Mi`,
        },
        limits: { cpu: "100m", memory: `${acmeSolverPodShape.memoryLimitMi}Mi` },
      }),
    );
    if (solver) throw new Error(`an ACME solver pod during the rollouts was refused: ${solver}`);
    const full = await waitFor("the quota's used to reach its hard limit", async () => {
      const s = await quotaStatus(cluster, payments);
      return s.used.pods === String(need.pods) ? s : undefined;
    });
    const mismatched = Object.keys(full.hard).filter((k) => full.used[k] !== full.hard[k]);
    if (mismatched.length > 0)
      throw new Error(
        `the quota is not exactly full after the rollouts: used ${JSON.stringify(full.used)}, hard ${JSON.stringify(full.hard)}`,
      );
    step("a rollout of each app admitted; the quota exactly full");
    passed.push(
      `the quota the config requires (${need.pods} pods: replicas and a rollout's pod each, and an ACME solver's) admits a rollout of every app and a certificate's challenge at once, and is then exactly full (used ${JSON.stringify(full.used)})`,
    );
    const over = await refusal(cluster, restrictedPod("one-more", payments, {}));
    if (!over || !/exceeded quota: team-payments/.test(over))
      throw new Error(`one pod over the quota was not refused for it: ${over ?? "admitted"}`);
    passed.push("one pod more is refused: exceeded quota: team-payments");

    // The LimitRange, in the team whose quota has room.
    await waitFor("the quota controller's status in search-api", async () => {
      const out = await cluster.kubectl([
        "get",
        "resourcequota",
        "team-search",
        "-n",
        search,
        "-o",
        "jsonpath={.status.hard.pods}",
      ]);
      return out.trim() ? true : undefined;
    });
    const bare = await refusal(cluster, restrictedPod("asks-nothing", search, {}));
    if (bare) throw new Error(`a container asking for nothing was refused: ${bare}`);
    const resources = JSON.parse(
      await cluster.kubectl([
        "get",
        "pod",
        "asks-nothing",
        "-n",
        search,
        "-o",
        "jsonpath={.spec.containers[0].resources}",
      ]),
    ) as unknown;
    const expected = { limits: { memory: "256Mi" }, requests: { cpu: "100m", memory: "128Mi" } };
    if (JSON.stringify(resources) !== JSON.stringify(expected))
      throw new Error(`the LimitRange gave ${JSON.stringify(resources)}, not ${JSON.stringify(expected)}`);
    passed.push(`a container asking for nothing gets ${JSON.stringify(expected)} and is admitted`);
    const big = await refusal(
      cluster,
      restrictedPod("asks-512mi", search, { requests: { memory: "512Mi" } }),
    );
    if (!big || !/must be less than or equal to memory limit/.test(big))
      throw new Error(
        `a container requesting 512Mi without a limit was not refused as docs/teams.md says: ${big ?? "admitted"}`,
      );
    passed.push("a container requesting 512Mi with no limit is refused (the default limit is below it)");
    const privileged = await refusal(cluster, {
      ...(restrictedPod("privileged", search, {}) as Record<string, unknown>),
      spec: { containers: [{ name: "c", image: "busybox", securityContext: { privileged: true } }] },
    });
    if (!privileged || !/violates PodSecurity "restricted/.test(privileged))
      throw new Error(`a privileged pod was not refused by Pod Security: ${privileged ?? "admitted"}`);
    passed.push('a privileged pod in a team namespace is refused: violates PodSecurity "restricted"');
    step("LimitRange and Pod Security");

    // RBAC: the real authorizer with the real aggregated roles.
    await waitFor("the aggregated role edit filled by its controller", async () =>
      (await cluster.kubectl(["get", "clusterrole", "edit", "-o", "jsonpath={.rules}"])).includes(
        "deployments",
      )
        ? true
        : undefined,
    );
    const dev = { user: "someone@example.com", groups: [devs] };
    const auditor = { user: "someone-else@example.com", groups: [auditors] };
    const lead = { user: "lead@example.com", groups: [leads] };
    const user = { user: alex };
    const cases: [
      string,
      { user: string; groups?: readonly string[] },
      string,
      string,
      string | undefined,
      boolean,
    ][] = [
      ["payments' editors deploy in payments", dev, "create", "deployments", payments, true],
      ["a user entry binds the user", user, "create", "deployments", payments, true],
      [
        "editors write their own NetworkPolicies (docs/teams.md)",
        dev,
        "create",
        "networkpolicies",
        payments,
        true,
      ],
      ["editors cannot raise their quota", dev, "update", "resourcequotas", payments, false],
      ["editors cannot remove their LimitRange", dev, "delete", "limitranges", payments, false],
      ["editors reach nothing in another team's namespace", dev, "get", "pods", search, false],
      [
        "editors cannot read the platform's Secrets (cert-manager's)",
        dev,
        "get",
        "secrets",
        "cert-manager",
        false,
      ],
      ["editors cannot read Secrets cluster-wide", dev, "list", "secrets", undefined, false],
      ["viewers read pods", auditor, "list", "pods", payments, true],
      ["viewers cannot read Secrets", auditor, "get", "secrets", payments, false],
      ["viewers cannot deploy", auditor, "create", "deployments", payments, false],
      ["search's admins bind roles in their namespace", lead, "create", "rolebindings", search, true],
      ["search's admins cannot raise their quota", lead, "update", "resourcequotas", search, false],
      ["search's admins reach nothing in payments", lead, "list", "pods", payments, false],
      ["search's admins make no ClusterRoleBinding", lead, "create", "clusterrolebindings", undefined, false],
    ];
    const wrong: string[] = [];
    for (const [what, who, verb, resource, namespace, allowed] of cases) {
      const answer = await canI(cluster, who, verb, resource, namespace);
      if (answer !== allowed)
        wrong.push(
          `${what}: ${verb} ${resource} in ${namespace ?? "every namespace"} was ${answer ? "allowed" : "refused"}`,
        );
    }
    if (wrong.length > 0) throw new Error(`RBAC answered otherwise than the model:\n  ${wrong.join("\n  ")}`);
    passed.push(
      `RBAC, ${cases.length} cases through the real authorizer and aggregated roles: ${cases.map((c) => c[0]).join("; ")}`,
    );
    step("RBAC");

    // Routes: each namespace's Ingresses confined to its exposed apps' hosts and path prefixes.
    const ingress = (ingressName: string, namespace: string, spec: Record<string, unknown>) => ({
      apiVersion: "networking.k8s.io/v1",
      kind: "Ingress",
      metadata: { name: ingressName, namespace },
      spec: { ingressClassName: "nginx", ...spec },
    });
    const rule = (host: string | undefined, path: string, service: string, port: number) => ({
      ...(host ? { host } : {}),
      http: {
        paths: [
          { path, pathType: "Prefix", backend: { service: { name: service, port: { number: port } } } },
        ],
      },
    });
    // The admission plugin loads a new policy and binding asynchronously: probe until it refuses.
    const hostless = ingress("no-host", payments, { rules: [rule(undefined, "/", "pay", 8080)] });
    const refusedHostless = await waitFor("the routes policy in force in payments", async () => {
      const r = await refusal(cluster, hostless, dev);
      if (r === undefined) await cluster.kubectl(["delete", "ingress", "no-host", "-n", payments]);
      return r;
    });
    const policyName = `team-routes-${payments}`;
    if (!refusedHostless.includes(`ValidatingAdmissionPolicy '${policyName}'`))
      throw new Error(`an Ingress without host was refused, but not by ${policyName}: ${refusedHostless}`);
    if (!refusedHostless.includes(`namespace ${payments} may route only ${payHost} (every path)`))
      throw new Error(`the refusal does not name the namespace's routes: ${refusedHostless}`);
    if (!refusedHostless.includes("ask the platform team to add the app to platform:apps with expose"))
      throw new Error(`the refusal does not name the fix: ${refusedHostless}`);
    passed.push(`an Ingress without host in ${payments} is refused: ${refusedHostless.trim()}`);
    const own = objects.filter((o) => o.kind === "Ingress");
    const ownNames = own.map((o) => `${o.metadata.namespace ?? ""}/${o.metadata.name}`).sort();
    if (JSON.stringify(ownNames) !== JSON.stringify([`${payments}/pay`, `${search}/find`]))
      throw new Error(
        `the render's Ingresses are ${ownNames.join(", ")}, not payments/pay and search-api/find`,
      );
    await apply(cluster, own);
    passed.push(`the platform's own Ingresses (${ownNames.join(", ")}) are admitted under the policy`);
    const routeCases: [string, object, { user: string; groups?: readonly string[] }, RegExp | undefined][] = [
      [
        `payments' editors cannot route another team's host (${shopHost}/search/login)`,
        ingress("steal", payments, { rules: [rule(shopHost, "/search/login", "pay", 8080)] }),
        dev,
        /Every rule of an Ingress needs a host and paths under a route of the namespace; namespace payments may route only pay\.example\.com \(every path\)/,
      ],
      [
        "payments' editors cannot name another team's host in tls",
        ingress("steal-tls", payments, {
          tls: [{ hosts: [shopHost], secretName: "x" }],
          rules: [rule(payHost, "/", "pay", 8080)],
        }),
        dev,
        /Every tls entry of an Ingress needs hosts, each a host of the namespace/,
      ],
      [
        "payments' editors cannot set a defaultBackend",
        ingress("default", payments, {
          defaultBackend: { service: { name: "pay", port: { number: 8080 } } },
        }),
        dev,
        /An Ingress may not have a defaultBackend/,
      ],
      [
        `payments' editors route their own host (${payHost}/v2)`,
        ingress("own", payments, {
          tls: [{ hosts: [payHost], secretName: "pay-tls" }],
          rules: [rule(payHost, "/v2", "pay", 8080)],
        }),
        dev,
        undefined,
      ],
      [
        "search's admins cannot route a path beside their prefix (/searchx)",
        ingress("beside", search, { rules: [rule(shopHost, "/searchx", "find", 9100)] }),
        lead,
        /namespace search-api may route only shop\.example\.com \(paths under \/search\)/,
      ],
      [
        "search's admins cannot route outside their prefix (/checkout)",
        ingress("outside", search, { rules: [rule(shopHost, "/checkout", "find", 9100)] }),
        lead,
        /namespace search-api may route only/,
      ],
      [
        "search's admins route under their prefix (/search/v2)",
        ingress("under", search, { rules: [rule(shopHost, "/search/v2", "find", 9100)] }),
        lead,
        undefined,
      ],
      [
        "a namespace without exposed apps routes nothing",
        ingress("none", searchJobs, { rules: [rule(shopHost, "/search", "find", 9100)] }),
        lead,
        /namespace search-jobs may route only none: no app of the namespace is exposed/,
      ],
    ];
    const routeWrong: string[] = [];
    for (const [what, object, who, refused] of routeCases) {
      const answer = await refusal(cluster, object, who);
      if (refused ? !answer || !refused.test(answer) : answer !== undefined)
        routeWrong.push(`${what}: ${answer ?? "admitted"}`);
    }
    if (routeWrong.length > 0)
      throw new Error(`the routes policy answered otherwise than the model:\n  ${routeWrong.join("\n  ")}`);
    passed.push(
      `routes, ${routeCases.length} cases through the real admission: ${routeCases.map((c) => c[0]).join("; ")}`,
    );
    step("routes: Ingress");

    // Gateway API routes: the standard channel's HTTPRoute and GRPCRoute CRDs, as the reference holds them.
    if (!referenceDir)
      throw new Error(`no reference folder for the Gateway API CRDs: ${referenceProblem ?? ""}`);
    const gatewayApi = path.join(referenceDir, "gateway-api-v1.5.1-standard");
    for (const kind of ["httproutes", "grpcroutes"]) {
      const file = path.join(gatewayApi, `gateway.networking.k8s.io_${kind}.yaml`);
      if (!fs.existsSync(file))
        throw new Error(`no ${file}: the reference folder lacks it (npm run reference)`);
      await cluster.kubectl(["apply", "--server-side", "--field-manager=real-tier", "-f", file]);
      await cluster.kubectl([
        "wait",
        "--for=condition=Established",
        `crd/${kind}.gateway.networking.k8s.io`,
        "--timeout=60s",
      ]);
    }
    // The shape of the platform's own route on the shared Gateway (lib/manifests/exposure.ts).
    const gatewayParent = { name: "shared", namespace: "gateway", sectionName: "https" };
    const route = (
      kind: "HTTPRoute" | "GRPCRoute",
      routeName: string,
      namespace: string,
      spec: Record<string, unknown>,
    ) => ({
      apiVersion: "gateway.networking.k8s.io/v1",
      kind,
      metadata: { name: routeName, namespace },
      spec: { parentRefs: [gatewayParent], ...spec },
    });
    const prefix = (value: string, backend: string, port: number, type = "PathPrefix") => ({
      matches: [{ path: { type, value } }],
      backendRefs: [{ name: backend, port }],
    });
    // As the cluster's admin: Kubernetes' aggregated edit and admin roles hold no Gateway API routes (a
    // cluster's may, through a ClusterRole aggregated to them), and the policy binds every user.
    const gatewayCases: [string, object, RegExp | undefined][] = [
      [
        `payments' route as the platform writes it (${payHost}, PathPrefix /)`,
        route("HTTPRoute", "pay", payments, { hostnames: [payHost], rules: [prefix("/", "pay", 8080)] }),
        undefined,
      ],
      [
        `search's route as the platform writes it (${shopHost}, PathPrefix /search)`,
        route("HTTPRoute", "find", search, {
          hostnames: [shopHost],
          rules: [prefix("/search", "find", 9100)],
        }),
        undefined,
      ],
      [
        `a route in payments cannot take another team's host (${shopHost}/search/login)`,
        route("HTTPRoute", "steal", payments, {
          hostnames: [shopHost],
          rules: [prefix("/search/login", "pay", 8080, "Exact")],
        }),
        /An HTTPRoute on a Gateway needs hostnames of the namespace .*namespace payments may route only pay\.example\.com/,
      ],
      [
        "a route in payments cannot leave out hostnames (every host of the listener)",
        route("HTTPRoute", "any-host", payments, { rules: [prefix("/", "pay", 8080)] }),
        /An HTTPRoute on a Gateway needs hostnames/,
      ],
      [
        "a route in search-api cannot take a path beside its prefix (Exact /searchx)",
        route("HTTPRoute", "beside", search, {
          hostnames: [shopHost],
          rules: [prefix("/searchx", "find", 9100, "Exact")],
        }),
        /namespace search-api may route only shop\.example\.com \(paths under \/search\)/,
      ],
      [
        "a route in search-api cannot have a rule without matches (every path)",
        route("HTTPRoute", "everything", search, {
          hostnames: [shopHost],
          rules: [{ backendRefs: [{ name: "find", port: 9100 }] }],
        }),
        /An HTTPRoute on a Gateway needs/,
      ],
      [
        "a route in search-api cannot match by RegularExpression",
        route("HTTPRoute", "regex", search, {
          hostnames: [shopHost],
          rules: [prefix("/search/.*", "find", 9100, "RegularExpression")],
        }),
        /An HTTPRoute on a Gateway needs/,
      ],
      [
        "a route in search-api may match under its prefix (Exact /search/v2)",
        route("HTTPRoute", "under", search, {
          hostnames: [shopHost],
          rules: [prefix("/search/v2", "find", 9100, "Exact")],
        }),
        undefined,
      ],
      [
        "a mesh route (parent: the app's Service) needs no hostnames",
        {
          ...route("HTTPRoute", "pay-mesh", payments, {
            rules: [{ backendRefs: [{ name: "pay", port: 8080 }] }],
          }),
          spec: {
            parentRefs: [{ group: "", kind: "Service", name: "pay", port: 8080 }],
            rules: [{ backendRefs: [{ name: "pay", port: 8080 }] }],
          },
        },
        undefined,
      ],
      [
        `payments' GRPCRoute on its whole host (${payHost})`,
        route("GRPCRoute", "pay-grpc", payments, {
          hostnames: [payHost],
          rules: [{ backendRefs: [{ name: "pay", port: 8080 }] }],
        }),
        undefined,
      ],
      [
        `a GRPCRoute in search-api cannot take a host it holds only a prefix of (${shopHost})`,
        route("GRPCRoute", "find-grpc", search, {
          hostnames: [shopHost],
          rules: [{ backendRefs: [{ name: "find", port: 9100 }] }],
        }),
        /A GRPCRoute on a Gateway needs hostnames the namespace is exposed on whole/,
      ],
    ];
    const gatewayWrong: string[] = [];
    for (const [what, object, refused] of gatewayCases) {
      const answer = await refusal(cluster, object);
      if (refused ? !answer || !refused.test(answer) : answer !== undefined)
        gatewayWrong.push(`${what}: ${answer ?? "admitted"}`);
    }
    if (gatewayWrong.length > 0)
      throw new Error(`the routes policy answered otherwise than the model:\n  ${gatewayWrong.join("\n  ")}`);
    passed.push(
      `Gateway routes, ${gatewayCases.length} cases through the real admission: ${gatewayCases.map((c) => c[0]).join("; ")}`,
    );
    step("routes: Gateway API");
  } finally {
    await cluster.stop();
  }
  console.log(`${name} at ${cluster.kubernetesVersion}: ${passed.length} passed`);
  for (const p of passed) console.log(`  ✓ ${p}`);
  console.log(
    "Not proven here (no kubelet, no network dataplane): NetworkPolicy enforcement, anything a running pod does.",
  );
  printTimings();
  return 0;
}

runTierScript(name, main);
