import * as k8s from "@pulumi/kubernetes";
import type { AdmissionObject } from "../../lib/meshes";
import { meshAdmissions } from "../../lib/meshes/models";
import { isPlatformNamespace, namespaceNeed } from "../../lib/plan";
import { Team } from "../../lib/platform";
import * as path from "path";
import { renderProject, viewsOf, type RenderResult } from "../../lib/render";
import { checkInvariants } from "../../lib/safety";
import { linkerdFacts } from "../../lib/versions";
import { at, config, find, render, renderPlatform, waitsFor } from "../helpers";

/**
 * Teams (docs/teams.md): each team's namespaces with their quota, limits and access; and who reaches a
 * team's pods, in each direction, as the meshes' models read the rendered grants and as the rendered
 * NetworkPolicies admit: the team's own namespaces, another team only through allowFrom, the ingress,
 * Prometheus, and kubelet's probes (the invariants).
 */

const teams = [
  {
    name: "payments",
    access: { view: ["auditors@example.com"], edit: ["payments-devs@example.com", "user:alex@example.com"] },
    allowFrom: ["search"],
  },
  {
    name: "search",
    namespaces: ["search-api", "search-jobs"],
    access: { admin: ["search-leads@example.com"] },
  },
];
// The teams' access entries include Google groups, which GKE matches only through Google Groups for RBAC.
const groupsRbac = { googleGroups: { securityGroup: "gke-security-groups@example.com" } };
const apps = [
  {
    name: "pay",
    team: "payments",
    image: "pay:1",
    port: 8080,
    metrics: { path: "/metrics" },
    expose: { host: "pay.example.com" },
  },
  { name: "indexer", team: "search", image: "indexer:1", port: 9000 },
  { name: "crawler", team: "search", namespace: "search-jobs", image: "crawler:1", port: 9100 },
];

const objectsOf = (result: RenderResult): AdmissionObject[] =>
  result.resources
    .filter((r) => typeof r.inputs.kind === "string" && typeof r.inputs.metadata === "object")
    .map((r) => r.inputs as unknown as AdmissionObject);

/** Which namespaces the mesh's rendered grants let into each namespace from another one, by the mesh's own model. */
function meshCallers(result: RenderResult): string[] {
  const objects = objectsOf(result);
  const found = meshAdmissions.flatMap((m) => m.grants(objects, () => false));
  return [
    ...new Set(
      found.flatMap((g) => ("namespace" in g.source ? [`${g.source.namespace}->${g.namespace}`] : [])),
    ),
  ].sort();
}

type Rule = { from?: Record<string, unknown>[]; ports?: { port: number | string }[] };

/** Whether the rendered NetworkPolicy of `namespace` lets pods of `source` in on `port`. */
function networkAdmits(
  result: RenderResult,
  namespace: string,
  source: string,
  port: number | string,
): boolean {
  const policy = find(result, "NetworkPolicy", "namespace-isolation", namespace);
  return ((at(policy, "spec", "ingress") as Rule[]) ?? []).some(
    (rule) =>
      (rule.ports === undefined || rule.ports.some((p) => p.port === port)) &&
      (rule.from ?? []).some((peer) => {
        if (namespace === source && "podSelector" in peer && !("namespaceSelector" in peer)) return true;
        const selector = peer.namespaceSelector as { matchLabels?: Record<string, string> } | undefined;
        return selector?.matchLabels?.["kubernetes.io/metadata.name"] === source;
      }),
  );
}

describe("a team's namespaces hold its quota, limits and access", () => {
  test("enrolled and isolated like app namespaces, with a ResourceQuota, a LimitRange and RoleBindings to the aggregated roles", async () => {
    const result = await renderPlatform({
      tier: "prod",
      cluster: groupsRbac,
      mesh: { kind: "linkerd" },
      teams,
      apps,
    });
    for (const ns of ["payments", "search-api", "search-jobs"]) {
      expect(at(find(result, "Namespace", ns), "metadata", "labels")).toMatchObject({
        "pod-security.kubernetes.io/enforce": "restricted",
      });
      expect(at(find(result, "Namespace", ns), "metadata", "annotations")).toMatchObject({
        "linkerd.io/inject": "enabled",
        "config.linkerd.io/default-inbound-policy": "deny",
      });
      find(result, "NetworkPolicy", "namespace-isolation", ns);
    }
    expect(at(find(result, "ResourceQuota", "team-payments", "payments"), "spec")).toEqual({
      hard: { "requests.cpu": "8", "requests.memory": "16Gi", "limits.memory": "32Gi", pods: "100" },
    });
    expect(at(find(result, "LimitRange", "team-search", "search-jobs"), "spec")).toEqual({
      limits: [
        { type: "Container", defaultRequest: { cpu: "100m", memory: "128Mi" }, default: { memory: "256Mi" } },
      ],
    });
    const group = (name: string) => ({ kind: "Group", name, apiGroup: "rbac.authorization.k8s.io" });
    const binding = (name: string, namespace: string) => {
      const r = find(result, "RoleBinding", name, namespace);
      return { roleRef: at(r, "roleRef"), subjects: at(r, "subjects") };
    };
    expect(binding("team-payments-view", "payments")).toEqual({
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
      subjects: [group("auditors@example.com")],
    });
    expect(binding("team-payments-edit", "payments")).toEqual({
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "edit" },
      subjects: [
        group("payments-devs@example.com"),
        { kind: "User", name: "alex@example.com", apiGroup: "rbac.authorization.k8s.io" },
      ],
    });
    for (const ns of ["search-api", "search-jobs"])
      expect(binding("team-search-admin", ns)).toEqual({
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "admin" },
        subjects: [group("search-leads@example.com")],
      });
    // Roles never reach past the team's namespaces: no ClusterRoleBinding, no binding elsewhere, never cluster-admin.
    const bindings = result.resources.filter(
      (r) => r.inputs.kind === "RoleBinding" || r.inputs.kind === "ClusterRoleBinding",
    );
    const teamBindings = bindings.filter((r) => String(at(r, "metadata", "name")).startsWith("team-"));
    expect(
      teamBindings
        .map((r) => [r.inputs.kind, at(r, "metadata", "namespace"), at(r, "roleRef", "name")])
        .sort(),
    ).toEqual([
      ["RoleBinding", "payments", "edit"],
      ["RoleBinding", "payments", "view"],
      ["RoleBinding", "search-api", "admin"],
      ["RoleBinding", "search-jobs", "admin"],
    ]);
    expect(checkInvariants(viewsOf(result))).toEqual([]);
  });

  test("a team's Google service account: its roles, Workload Identity for its apps, their ServiceAccounts annotated", async () => {
    const result = await renderPlatform({
      tier: "prod",
      cluster: groupsRbac,
      teams: [{ ...teams[0], workloadIdentity: { roles: ["roles/pubsub.publisher"] } }, teams[1]],
      apps,
    });
    const gcpOf = (type: string) =>
      result.resources
        .filter((r) => r.type === type && r.name.includes("team-payments"))
        .map((r) => r.inputs);
    expect(gcpOf("gcp:serviceaccount/account:Account")).toEqual([
      expect.objectContaining({
        project: "acme-test",
        accountId: "team-payments",
        displayName: "team payments",
      }),
    ]);
    expect(gcpOf("gcp:projects/iAMMember:IAMMember")).toEqual([
      expect.objectContaining({ project: "acme-test", role: "roles/pubsub.publisher" }),
    ]);
    expect(gcpOf("gcp:serviceaccount/iAMMember:IAMMember")).toEqual([
      expect.objectContaining({
        role: "roles/iam.workloadIdentityUser",
        member: "serviceAccount:acme-test.svc.id.goog[payments/pay]",
      }),
    ]);
    // The binding waits for the cluster, whose Workload Identity pool IAM needs to exist first.
    const binding = result.resources.find(
      (r) => r.type === "gcp:serviceaccount/iAMMember:IAMMember" && r.name.includes("team-payments"),
    );
    const cluster = result.resources.find((r) => r.type === "gcp:container/cluster:Cluster");
    expect(cluster && binding?.dependencies.includes(cluster.key)).toBe(true);
    // The app's pods wait for the binding, or their first token requests are refused.
    expect(binding && waitsFor(result, find(result, "Deployment", "pay", "payments")).has(binding.key)).toBe(
      true,
    );
    expect(at(find(result, "ServiceAccount", "pay", "payments"), "metadata", "annotations")).toEqual({
      "iam.gke.io/gcp-service-account": "team-payments@acme-test.iam.gserviceaccount.com",
    });
    expect(
      at(find(result, "ServiceAccount", "indexer", "search-api"), "metadata", "annotations"),
    ).toBeUndefined();
    expect(checkInvariants(viewsOf(result))).toEqual([]);
  });

  test("roles and members that read alike once only letters and digits are kept get a binding each", async () => {
    const result = await render(
      () =>
        new Team("t", {
          name: "payments",
          provider: new k8s.Provider("mine", { kubeconfig: "{}" }),
          workloadIdentity: {
            project: "acme-test",
            roles: ["projects/acme-test/roles/queue.reader", "projects/acme-test/roles/queue_reader"],
            members: [
              "serviceAccount:acme-test.svc.id.goog[pay-ments/api]",
              "serviceAccount:acme-test.svc.id.goog[pay/ments-api]",
            ],
          },
        }),
    );
    const named = (type: string) =>
      result.resources
        .filter((r) => r.type === type)
        .map((r) => [r.name, r.inputs.role, r.inputs.member] as const);
    const roles = named("gcp:projects/iAMMember:IAMMember");
    const members = named("gcp:serviceaccount/iAMMember:IAMMember");
    expect(roles.map(([, role]) => role)).toEqual([
      "projects/acme-test/roles/queue.reader",
      "projects/acme-test/roles/queue_reader",
    ]);
    expect(members.map(([, , member]) => member)).toEqual([
      "serviceAccount:acme-test.svc.id.goog[pay-ments/api]",
      "serviceAccount:acme-test.svc.id.goog[pay/ments-api]",
    ]);
    // Readable, and each its own: a shared name would be one Pulumi resource for two bindings.
    for (const [name] of [...roles, ...members])
      expect(name).toMatch(/^t-team-payments-(wi-)?[a-z0-9-]+-[0-9a-f]{6}$/i);
    expect(roles[0][0]).toMatch(/^t-team-payments-projects-acme-test-roles-queue-reader-[0-9a-f]{6}$/);
    expect(new Set(roles.map(([name]) => name)).size).toBe(2);
    expect(new Set(members.map(([name]) => name)).size).toBe(2);
  });

  test("the quota a team's apps need counts every pod the render makes in its namespace, rollouts included", async () => {
    const overrides = {
      tier: "prod",
      teams: [{ name: "payments" }],
      apps: [
        {
          name: "pay",
          team: "payments",
          image: "pay:1",
          port: 8080,
          replicas: 3,
          mesh: {
            routes: [
              { name: "unavailable", fault: { percent: 5, status: 503 } },
              { name: "slow", matches: [{ path: "/slow" }], fault: { percent: 5 } },
            ],
          },
        },
        { name: "ledger", team: "payments", image: "ledger:1", port: 9000, replicas: 2 },
      ],
    };
    const need = namespaceNeed(config(overrides), "payments");
    const result = await renderPlatform(overrides);
    const deployments = result.resources.filter(
      (r) => r.inputs.kind === "Deployment" && at(r, "metadata", "namespace") === "payments",
    );
    // Two apps and a fault injector per status (503, and 500 the default): the pods each runs, plus a rollout's.
    const surge = (r: (typeof deployments)[number]): number => {
      // Kubernetes' default maxSurge is 25%, rounded up.
      const s = at(r, "spec", "strategy", "rollingUpdate", "maxSurge");
      const replicas = Number(at(r, "spec", "replicas"));
      if (typeof s === "number") return s;
      return Math.ceil((replicas * parseInt(typeof s === "string" ? s : "25%", 10)) / 100);
    };
    expect(deployments.map((d) => String(at(d, "metadata", "name"))).sort()).toEqual([
      "fault-500",
      "fault-503",
      "ledger",
      "pay",
    ]);
    const pods = deployments.map((d) => Number(at(d, "spec", "replicas")) + surge(d));
    expect(need.pods).toBe(pods.reduce((a, b) => a + b, 0));
    expect(need.pods).toBe(4 + 3 + 2 + 2);
    // Each pod's containers as rendered, plus Linkerd's proxy (100m, 20Mi) the injector adds to every one.
    const millis = (q: unknown) => (String(q).endsWith("m") ? parseInt(String(q), 10) : Number(q) * 1000);
    const cpu = deployments.map((d, i) => {
      const containers = at(d, "spec", "template", "spec", "containers") as {
        resources: { requests: { cpu: string } };
      }[];
      return pods[i] * (containers.reduce((n, c) => n + millis(c.resources.requests.cpu), 0) + 100);
    });
    expect(Math.round(need.cpu * 1000)).toBe(cpu.reduce((a, b) => a + b, 0));
  });

  test("every namespace the platform installs into, on each mesh, ingress and monitoring, is one no team may take", async () => {
    const variants = [
      {
        mesh: { kind: "linkerd" },
        ingress: { kind: "traefik", acme: { email: "ops@example.com" } },
        monitoring: { backend: "prometheus" },
      },
      {
        mesh: { kind: "istio", dataplane: "ambient" },
        ingress: { kind: "ingress-nginx", acme: { email: "ops@example.com" } },
        monitoring: { backend: "prometheus" },
      },
      {
        mesh: { kind: "istio" },
        ingress: { kind: "gke-gateway" },
        monitoring: { backend: "managed-prometheus" },
      },
    ];
    const installedInto = new Set<string>();
    for (const variant of variants) {
      const result = await renderPlatform({
        tier: "prod",
        ...variant,
        apps: [{ ...apps[0], team: undefined }],
      });
      for (const r of result.resources) {
        const ns = r.inputs.kind === "Namespace" ? at(r, "metadata", "name") : r.inputs.namespace;
        if (typeof ns === "string") installedInto.add(ns);
      }
    }
    // The app's own namespace aside, each is the platform's, Kubernetes' or GKE's.
    const platforms = [...installedInto].filter((ns) => ns !== "pay").sort();
    expect(platforms.filter((ns) => !isPlatformNamespace(ns))).toEqual([]);
    expect(platforms).toEqual([
      "cert-manager",
      "gateway",
      "ingress-nginx",
      "istio-system",
      "linkerd",
      "linkerd-cni",
      "monitoring",
      "traefik",
    ]);
  });

  test("on its own: the Team makes its namespace, quota and limits; no access, no binding", async () => {
    const result = await render(
      () => new Team("t", { name: "payments", provider: new k8s.Provider("mine", { kubeconfig: "{}" }) }),
    );
    const kinds = result.resources
      .filter((r) => typeof r.inputs.kind === "string")
      .map((r) => `${String(r.inputs.kind)} ${String(at(r, "metadata", "name"))}`);
    expect(kinds.sort()).toEqual([
      "LimitRange team-payments",
      "Namespace payments",
      "ResourceQuota team-payments",
    ]);
    expect(at(find(result, "ResourceQuota", "team-payments"), "spec")).toEqual({
      hard: { "requests.cpu": "2", "requests.memory": "4Gi", "limits.memory": "8Gi", pods: "20" },
    });
    expect(at(find(result, "Namespace", "payments"), "metadata", "labels")).toEqual({
      "pod-security.kubernetes.io/enforce": "restricted",
      "pod-security.kubernetes.io/warn": "restricted",
      "pod-security.kubernetes.io/audit": "restricted",
    });
  });
});

describe("who reaches a team's pods, each direction, through the mesh's models and the NetworkPolicies", () => {
  const variants: Record<string, Record<string, unknown>> = {
    "linkerd, traefik": {
      mesh: { kind: "linkerd" },
      ingress: { kind: "traefik", acme: { email: "ops@example.com" } },
    },
    "linkerd, gke-gateway": { mesh: { kind: "linkerd" } },
    "istio sidecars, ingress-nginx": {
      mesh: { kind: "istio" },
      ingress: { kind: "ingress-nginx", acme: { email: "ops@example.com" } },
    },
    "istio sidecars, gke-gateway": { mesh: { kind: "istio" } },
  };

  test.each(Object.entries(variants))("%s", async (_, variant) => {
    const result = await renderPlatform({ tier: "prod", cluster: groupsRbac, teams, apps, ...variant });
    const linkerd = (variant.mesh as { kind: string }).kind === "linkerd";
    // Linkerd's meshed calls arrive on its proxy's inbound port (by number: the native sidecar's named
    // port is on an init container); Istio's on the app's.
    const meshed = linkerd ? linkerdFacts.proxyInboundPortNumber : undefined;
    // The mesh lets in: a team's own other namespaces, and search into payments (payments' allowFrom);
    // never payments into search. Linkerd's model names callers from other namespaces; Istio's, too.
    const callers = meshCallers(result);
    const ingress = (variant.ingress as { kind?: string } | undefined)?.kind;
    const ingressNs = ingress === "traefik" || ingress === "ingress-nginx" ? [`${ingress}->payments`] : [];
    expect(callers).toEqual(
      [
        ...ingressNs,
        "search-api->payments",
        "search-api->search-jobs",
        "search-jobs->payments",
        "search-jobs->search-api",
      ].sort(),
    );
    // The NetworkPolicies agree, on the port meshed calls arrive on (Linkerd's proxy) or the app's.
    const port = (app: number): number | string => meshed ?? app;
    const cases: [string, string, number, boolean][] = [
      ["payments", "payments", 8080, true],
      ["payments", "search-api", 8080, true],
      ["payments", "search-jobs", 8080, true],
      ["search-api", "search-jobs", 9000, true],
      ["search-jobs", "search-api", 9100, true],
      ["search-api", "payments", 9000, false],
      ["search-jobs", "payments", 9100, false],
      ["payments", "default", 8080, false],
    ];
    expect(cases.map(([ns, from, p]) => [ns, from, networkAdmits(result, ns, from, port(p))])).toEqual(
      cases.map(([ns, from, , admitted]) => [ns, from, admitted]),
    );
    // The ingress into payments, on the app's port; Prometheus to its metrics.
    if (ingress === "traefik" || ingress === "ingress-nginx")
      expect(networkAdmits(result, "payments", ingress, port(8080))).toBe(true);
    // Istio's sidecar serves the app's metrics merged with its own, on 15020.
    expect(networkAdmits(result, "payments", "monitoring", linkerd ? 8080 : 15020)).toBe(true);
    // Probes, grants the NetworkPolicies drop, Pod Security: the invariants judge the whole render.
    expect(checkInvariants(viewsOf(result))).toEqual([]);
  });

  test("Istio ambient and no mesh: the NetworkPolicy alone keeps teams apart", async () => {
    for (const mesh of [{ kind: "istio", dataplane: "ambient" }, { kind: "none" }]) {
      const result = await renderPlatform({ tier: "prod", cluster: groupsRbac, mesh, teams, apps });
      expect([
        networkAdmits(result, "payments", "search-api", 8080),
        networkAdmits(result, "search-jobs", "search-api", 9100),
        networkAdmits(result, "search-api", "payments", 9000),
      ]).toEqual([true, true, false]);
      expect(checkInvariants(viewsOf(result))).toEqual([]);
    }
  });
});

test("examples/teams: two teams and a service both may call, and not each other", async () => {
  const result = await renderProject(path.resolve(__dirname, "../../examples/teams"), "prod");
  expect(meshCallers(result)).toEqual([
    "payments->shared",
    "search-api->search-jobs",
    "search-api->shared",
    "search-jobs->search-api",
    "search-jobs->shared",
  ]);
  const cases: [string, string, boolean][] = [
    ["shared", "payments", true],
    ["shared", "search-api", true],
    ["shared", "search-jobs", true],
    ["payments", "search-api", false],
    ["search-api", "payments", false],
    ["payments", "shared", false],
  ];
  expect(
    cases.map(([ns, from]) => [
      ns,
      from,
      networkAdmits(result, ns, from, linkerdFacts.proxyInboundPortNumber),
    ]),
  ).toEqual(cases);
  expect(at(find(result, "ResourceQuota", "team-search", "search-jobs"), "spec")).toEqual({
    hard: { "requests.cpu": "4", "requests.memory": "8Gi", "limits.memory": "16Gi", pods: "40" },
  });
  expect(checkInvariants(viewsOf(result))).toEqual([]);
});
