import { isPlatformNamespace, namespaceNeed, platformNamespaces } from "../../lib/plan";
import { certManagerNamespace, gatewayNamespace, monitoringNamespace } from "../../lib/manifests";
import { istioNamespace, linkerdCniNamespace, linkerdNamespace, linkerdVizNamespace } from "../../lib/meshes";
import { ingressControllerIdentities, managedPrometheusCollectors } from "../../lib/versions";
import { config, input, plan, problems } from "../helpers";

/** platform:teams (docs/teams.md): the defaults, the plan's teams, and one clear error per bad input. */

const shop = { name: "shop", image: "shop:1", port: 8080 };

describe("teams' defaults", () => {
  test("a team's namespace is its name; its quota the tier's; its apps land in its first namespace", () => {
    const c = config({
      tier: "dev",
      teams: [{ name: "payments" }, { name: "search", namespaces: ["search-api", "search-jobs"] }],
      apps: [
        { ...shop, team: "payments" },
        { ...shop, name: "indexer", team: "search" },
        { ...shop, name: "crawler", team: "search", namespace: "search-jobs" },
      ],
    });
    expect(c.teams[0]).toEqual({
      name: "payments",
      namespaces: ["payments"],
      access: { view: [], edit: [], admin: [] },
      quota: { requests: { cpu: "2", memory: "4Gi" }, limits: { memory: "8Gi" }, pods: 20 },
      allowFrom: [],
    });
    expect(c.apps.map((a) => [a.name, a.team, a.namespace])).toEqual([
      ["shop", "payments", "payments"],
      ["indexer", "search", "search-api"],
      ["crawler", "search", "search-jobs"],
    ]);
  });

  test("prod and staging get the sized quota; a team's own keys win one by one", () => {
    for (const tier of ["staging", "prod"]) {
      expect(config({ tier, teams: [{ name: "payments" }] }).teams[0].quota).toEqual({
        requests: { cpu: "8", memory: "16Gi" },
        limits: { memory: "32Gi" },
        pods: 100,
      });
    }
    const c = config({
      tier: "prod",
      teams: [{ name: "payments", quota: { requests: { cpu: "3" }, pods: 7 } }],
    });
    expect(c.teams[0].quota).toEqual({
      requests: { cpu: "3", memory: "16Gi" },
      limits: { memory: "32Gi" },
      pods: 7,
    });
  });

  test("the plan's teams: each one's caller namespaces and apps by namespace", () => {
    const p = plan({
      tier: "prod",
      teams: [
        { name: "payments", allowFrom: ["search"] },
        { name: "search", namespaces: ["search-api", "search-jobs"] },
      ],
      apps: [{ ...shop, team: "payments" }],
    });
    expect(p.teams.map((t) => [t.team.name, t.callerNamespaces, t.apps])).toEqual([
      ["payments", ["payments", "search-api", "search-jobs"], { payments: ["shop"] }],
      ["search", ["search-api", "search-jobs"], { "search-api": [], "search-jobs": [] }],
    ]);
    // Team namespaces are namespaces of the plan, apps or not, closed in the mesh like isolated app namespaces.
    const closed = {
      "linkerd.io/inject": "enabled",
      "config.linkerd.io/proxy-await": "enabled",
      "config.linkerd.io/proxy-enable-native-sidecar": "true",
      "config.linkerd.io/default-inbound-policy": "deny",
    };
    expect(p.namespaces.map((n) => [n.name, n.annotations])).toEqual([
      ["payments", closed],
      ["search-api", closed],
      ["search-jobs", closed],
    ]);
  });

  test("dev, where isolation is off, still isolates team namespaces, and no other", () => {
    const p = plan({
      tier: "dev",
      teams: [{ name: "payments" }],
      apps: [
        { ...shop, team: "payments" },
        { ...shop, name: "blog" },
      ],
    });
    expect(
      p.namespaces.map((n) => [n.name, n.annotations["config.linkerd.io/default-inbound-policy"]]),
    ).toEqual([
      ["blog", undefined],
      ["payments", "deny"],
    ]);
  });
});

describe("what a team's apps need of its quota", () => {
  test("replicas plus a rollout's pod, each the app container and the mesh's proxy", () => {
    const apps = [{ ...shop, team: "payments", replicas: 3 }];
    // Linkerd's proxy: 100m, 20Mi, 250Mi limit (lib/config/sizing.ts); the app: 100m, 128Mi, 256Mi.
    const linkerd = config({ tier: "prod", teams: [{ name: "payments" }], apps });
    expect(namespaceNeed(linkerd, "payments")).toEqual({
      cpu: 4 * 0.2,
      memory: 4 * 148 * 1024 ** 2,
      memoryLimit: 4 * 506 * 1024 ** 2,
      pods: 4,
    });
    // No proxy in the pod without a mesh or under Istio ambient.
    for (const mesh of [{ kind: "none" }, { kind: "istio", dataplane: "ambient" }]) {
      const c = config({ tier: "prod", mesh, teams: [{ name: "payments" }], apps });
      expect(namespaceNeed(c, "payments")).toEqual({
        cpu: 4 * 0.1,
        memory: 4 * 128 * 1024 ** 2,
        memoryLimit: 4 * 256 * 1024 ** 2,
        pods: 4,
      });
    }
  });

  test("an ACME HTTP-01 solver pod per host challenged through an in-cluster controller, never meshed", () => {
    const exposed = [
      { ...shop, team: "payments", replicas: 1, expose: { host: "pay.example.com" } },
      {
        ...shop,
        name: "refunds",
        team: "payments",
        replicas: 1,
        expose: { host: "pay.example.com", path: "/refunds" },
      },
      { ...shop, name: "admin", team: "payments", replicas: 1, expose: { host: "admin.example.com" } },
    ];
    const acme = (solver: string) => ({ kind: "traefik", acme: { email: "ops@example.com", solver } });
    const mi = 1024 ** 2;
    // Linkerd's proxy in each app pod (100m, 20Mi, 250Mi); two hosts, two solver pods of 10m, 64Mi, 64Mi.
    const need = (ingress: Record<string, unknown>) =>
      namespaceNeed(
        config({ tier: "prod", ingress, teams: [{ name: "payments" }], apps: exposed }),
        "payments",
      );
    expect(need(acme("http01"))).toEqual({
      cpu: 6 * 0.2 + 2 * 0.01,
      memory: 6 * 148 * mi + 2 * 64 * mi,
      memoryLimit: 6 * 506 * mi + 2 * 64 * mi,
      pods: 8,
    });
    // DNS-01 runs no pod in the namespace.
    expect(need(acme("dns01")).pods).toBe(6);
  });

  test("the platform's namespaces: every one the platform, its meshes, ingress and monitoring use", () => {
    for (const ns of [
      certManagerNamespace,
      monitoringNamespace,
      gatewayNamespace,
      linkerdNamespace,
      linkerdVizNamespace,
      linkerdCniNamespace,
      istioNamespace,
      ingressControllerIdentities.traefik.namespace,
      ingressControllerIdentities["ingress-nginx"].namespace,
      managedPrometheusCollectors.namespace,
    ])
      expect([ns, platformNamespaces.includes(ns)]).toEqual([ns, true]);
    expect(["kube-system", "gke-managed-system", "default", "payments"].map(isPlatformNamespace)).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });
});

describe("bad teams: one clear error each", () => {
  test("a namespace the platform owns", () => {
    expect(problems(input({ teams: [{ name: "ops", namespaces: ["monitoring"] }] }))).toEqual([
      {
        path: "platform:teams[0].namespaces[0]",
        problem: '"monitoring" is a namespace the platform, Kubernetes or GKE owns',
        allowed: `a namespace of the team's own: none of ${platformNamespaces.join(", ")}, none starting with kube- or gke-`,
        fix: 'name another namespace, such as "ops-apps"',
      },
    ]);
    // A team's default namespace is its name, so the error names the name.
    expect(problems(input({ teams: [{ name: "kube-tools" }] })).map((p) => p.path)).toEqual([
      "platform:teams[0].name",
    ]);
  });

  test("two teams claiming one namespace", () => {
    expect(
      problems(
        input({
          teams: [
            { name: "a", namespaces: ["shared"] },
            { name: "b", namespaces: ["b", "shared"] },
          ],
        }),
      ),
    ).toEqual([
      {
        path: "platform:teams[1].namespaces[1]",
        problem:
          '"shared" is claimed by team "a" too; a namespace has one team, whose quota, access and isolation apply in it',
        allowed: "a namespace no other team lists",
        fix: 'remove "shared" from one of the two teams, or rename it in one',
      },
    ]);
  });

  test("an access entry that is not an email", () => {
    expect(
      problems(input({ teams: [{ name: "a", access: { edit: ["devs@example.com", "devs"] } }] })),
    ).toEqual([
      {
        path: "platform:teams[0].access.edit[1]",
        problem: '"devs" is not an email address',
        allowed:
          "a Google group's email (a member of gke-security-groups@ your domain), such as platform-devs@example.com, or user: and a user's email, such as user:alex@example.com",
        fix: "set platform:teams[0].access.edit[1] to the group's email, such as platform-devs@example.com, or user: and a user's email",
      },
    ]);
  });

  test("a quota smaller than the team's apps need", () => {
    const found = problems(
      input({
        tier: "prod",
        teams: [{ name: "a", quota: { requests: { cpu: "500m" }, pods: 3 } }],
        apps: [{ ...shop, team: "a", replicas: 3 }],
      }),
    );
    expect(found).toEqual([
      {
        path: "platform:teams[0].quota.requests.cpu",
        problem:
          '"500m" is less than the apps of namespace "a" need: 800m for 4 pods (each app\'s replicas and each fault injector its routes need, plus the pod a rollout of each adds, each with the mesh\'s proxy where one runs in every pod, and an ACME solver pod per host challenged through the ingress)',
        allowed: "800m or more",
        fix: "set platform:teams[0].quota.requests.cpu to 800m or more, or run fewer replicas",
      },
      {
        path: "platform:teams[0].quota.pods",
        problem:
          "3 is less than the apps of namespace \"a\" need: 4 for 4 pods (each app's replicas and each fault injector its routes need, plus the pod a rollout of each adds, each with the mesh's proxy where one runs in every pod, and an ACME solver pod per host challenged through the ingress)",
        allowed: "4 or more",
        fix: "set platform:teams[0].quota.pods to 4 or more, or run fewer replicas",
      },
    ]);
  });

  test("allowFrom naming an unknown team, with the nearest name", () => {
    expect(
      problems(input({ teams: [{ name: "search" }, { name: "payments", allowFrom: ["serch"] }] })),
    ).toEqual([
      {
        path: "platform:teams[1].allowFrom[0]",
        problem: '"serch" is not a team (did you mean "search"?)',
        allowed: "teams: search, payments",
        fix: 'write "search"',
      },
    ]);
  });

  test("an app's team unknown, or its namespace not the team's", () => {
    expect(problems(input({ teams: [{ name: "payments" }], apps: [{ ...shop, team: "billing" }] }))).toEqual([
      {
        path: "platform:apps[0].team",
        problem: '"billing" is not a team',
        allowed: "teams: payments",
        fix: "add that team to platform:teams, or remove the app's team",
      },
    ]);
    expect(
      problems(
        input({ teams: [{ name: "payments" }], apps: [{ ...shop, team: "payments", namespace: "web" }] }),
      ),
    ).toEqual([
      {
        path: "platform:apps[0].namespace",
        problem: '"web" is not a namespace of team "payments"',
        allowed: "the team's namespaces: payments",
        fix: 'set platform:apps[0].namespace to one of them, or remove it (the team\'s first, "payments")',
      },
    ]);
  });

  test("an app without a team in a team's namespace, named or by its default (the app's name)", () => {
    const expected = {
      path: "platform:apps[0].team",
      problem:
        'is not set, but the app\'s namespace "payments" is team "payments"\'s, whose quota, access and isolation would apply to it',
      allowed: "team: payments, or a namespace of no team",
      fix: 'set platform:apps[0].team to "payments", or give the app a namespace no team lists',
    };
    expect(
      problems(input({ teams: [{ name: "payments" }], apps: [{ ...shop, namespace: "payments" }] })),
    ).toEqual([expected]);
    expect(problems(input({ teams: [{ name: "payments" }], apps: [{ ...shop, name: "payments" }] }))).toEqual(
      [expected],
    );
    // A namespace of no team stays the app's own.
    expect(plan({ teams: [{ name: "payments" }], apps: [shop] }).apps.map((a) => a.app.namespace)).toEqual([
      "shop",
    ]);
  });

  test("a team's scraped app under an existing Prometheus the platform cannot place", () => {
    const scraped = { ...shop, team: "payments", metrics: { path: "/metrics" } };
    const outside = { backend: "existing-prometheus", prometheusUrl: "https://prometheus.example.com" };
    expect(problems(input({ monitoring: outside, teams: [{ name: "payments" }], apps: [scraped] }))).toEqual([
      {
        path: "platform:monitoring.scraperNamespace",
        problem:
          'is not set, and monitoring.prometheusUrl names no Service of the cluster (<service>.<namespace>.svc): the team apps "shop" are scraped by a Prometheus the platform cannot place, so their namespaces would let every pod in on the scraped ports, other teams\' included',
        allowed: "the namespace your Prometheus's pods run in",
        fix: "set platform:monitoring.scraperNamespace to that namespace, or platform:monitoring.prometheusUrl to its Service's cluster URL (http://<service>.<namespace>.svc:9090)",
      },
    ]);
    // Placed by the key, or by a Service's cluster URL.
    const placed = (monitoring: Record<string, unknown>) =>
      plan({ tier: "prod", monitoring, teams: [{ name: "payments" }], apps: [scraped] }).config.monitoring
        .scraperNamespace;
    expect(placed({ ...outside, scraperNamespace: "observability" })).toBe("observability");
    expect(
      placed({
        backend: "existing-prometheus",
        prometheusUrl: "http://prom.observability.svc.cluster.local:9090",
      }),
    ).toBe("observability");
    // The key names an existing Prometheus only.
    expect(problems(input({ monitoring: { scraperNamespace: "observability" } }))).toEqual([
      {
        path: "platform:monitoring.scraperNamespace",
        problem:
          'is set, but monitoring.backend is "prometheus"; it names where an existing Prometheus runs, and the platform knows where its own monitoring does',
        fix: 'remove platform:monitoring.scraperNamespace, or set platform:monitoring.backend to "existing-prometheus"',
      },
    ]);
  });

  test("two teams with one name; an isolation exception naming a team's namespace", () => {
    expect(problems(input({ teams: [{ name: "a" }, { name: "a", namespaces: ["a2"] }] }))).toEqual([
      {
        path: "platform:teams[1].name",
        problem: '"a" names two teams',
        fix: "give each team its own name, or merge the two",
      },
    ]);
    const found = problems(
      input({
        tier: "prod",
        isolation: { except: ["a"] },
        teams: [{ name: "a" }],
        apps: [{ ...shop, team: "a" }],
      }),
    );
    expect(found.filter((p) => p.path === "platform:isolation.except[0]")).toEqual([
      {
        path: "platform:isolation.except[0]",
        problem: `"a" is a namespace of team "a", and a team's namespaces are always isolated from other teams'`,
        allowed: "app namespaces of no team",
        fix: 'remove "a" from platform:isolation.except; to let other teams in, list them in platform:teams[0].allowFrom',
      },
    ]);
  });
});

describe("a team's Google service account (workloadIdentity)", () => {
  test("team-<name>, with the roles listed, bound to each of the team's apps' ServiceAccounts", () => {
    const p = plan({
      tier: "prod",
      teams: [
        { name: "payments", workloadIdentity: { roles: ["roles/pubsub.publisher"] } },
        { name: "search", namespaces: ["search-api", "search-jobs"] },
      ],
      apps: [
        { ...shop, team: "payments" },
        { ...shop, name: "indexer", team: "search" },
      ],
    });
    expect(p.teams.map((t) => t.googleServiceAccount)).toEqual([
      {
        accountId: "team-payments",
        email: "team-payments@acme-test.iam.gserviceaccount.com",
        roles: ["roles/pubsub.publisher"],
        members: ["serviceAccount:acme-test.svc.id.goog[payments/shop]"],
      },
      undefined,
    ]);
    expect(p.apps.map((a) => [a.app.name, a.googleServiceAccount])).toEqual([
      ["shop", "team-payments@acme-test.iam.gserviceaccount.com"],
      ["indexer", undefined],
    ]);
  });

  test("a basic role, a value that is no role, a name too long for an account id", () => {
    expect(
      problems(input({ teams: [{ name: "a", workloadIdentity: { roles: ["roles/editor", "pubsub"] } }] })),
    ).toEqual([
      {
        path: "platform:teams[0].workloadIdentity.roles[0]",
        problem: '"roles/editor" is a basic role, which grants access to every service of the project',
        allowed:
          "a predefined role such as roles/pubsub.publisher, or a custom role projects/<project>/roles/<role>; not roles/owner, roles/editor or roles/viewer, nor roles/container.*, roles/iam.* or roles/resourcemanager.*",
        fix: "set platform:teams[0].workloadIdentity.roles[0] to the predefined roles the team's apps need, such as roles/pubsub.publisher",
      },
      {
        path: "platform:teams[0].workloadIdentity.roles[1]",
        problem: '"pubsub" is not an IAM role',
        allowed:
          "a predefined role such as roles/pubsub.publisher, or a custom role projects/<project>/roles/<role>; not roles/owner, roles/editor or roles/viewer, nor roles/container.*, roles/iam.* or roles/resourcemanager.*",
        fix: "set platform:teams[0].workloadIdentity.roles[1] to a role such as roles/pubsub.publisher",
      },
    ]);
    // Roles that reach past the team's namespaces: GKE's, IAM's and Resource Manager's.
    expect(
      problems(
        input({
          teams: [
            {
              name: "a",
              workloadIdentity: {
                roles: [
                  "roles/container.developer",
                  "roles/iam.serviceAccountTokenCreator",
                  "roles/pubsub.publisher",
                ],
              },
            },
          ],
        }),
      ).map((p) => [p.path, p.problem]),
    ).toEqual([
      [
        "platform:teams[0].workloadIdentity.roles[0]",
        '"roles/container.developer" reaches beyond the team\'s namespaces: GKE applies roles/container.* to every namespace of every cluster in the project',
      ],
      [
        "platform:teams[0].workloadIdentity.roles[1]",
        "\"roles/iam.serviceAccountTokenCreator\" reaches beyond the team's namespaces: roles/iam.* administers the project's identities and policy",
      ],
    ]);
    const name = "a-team-name-of-26-letters";
    expect(problems(input({ teams: [{ name: `${name}x`, workloadIdentity: {} }] }))).toEqual([
      {
        path: "platform:teams[0].workloadIdentity",
        problem: `is set, but the team's Google service account would be "team-${name}x", 31 characters; an account id has at most 30`,
        allowed: "a team name of at most 25 characters with workloadIdentity",
        fix: "shorten platform:teams[0].name to at most 25 characters",
      },
    ]);
    expect(config({ teams: [{ name, workloadIdentity: {} }] }).teams[0].workloadIdentity).toEqual({
      roles: [],
    });
  });
});
