import * as fs from "fs";
import * as path from "path";
import { isDeepStrictEqual } from "util";
import { parse } from "yaml";
import type { AdmissionObject } from "../../lib/meshes";
import { meshAdmissions } from "../../lib/meshes/models";
import { renderProject, type RenderResult } from "../../lib/render";
import { configError, plan, renderPlatform } from "../helpers";

/**
 * docs/teams.md compares teams with cdk-eks-blueprints' and terraform-google-kubernetes-engine's. Our
 * column of that table is a list of claims (one per `<br>`), each of which must match one check below
 * and hold in the render of examples/teams (Linkerd, as its stack says; Istio's sidecars, the same teams
 * and apps), in the render of a team with the tier's default quota, or in the config's refusals. A
 * claim no check knows, or one the render does not bear out, fails.
 */

const root = path.resolve(__dirname, "../..");
const heading = "## Compared with cdk-eks-blueprints and terraform-google-kubernetes-engine";

interface Row {
  readonly capability: string;
  readonly ours: string;
}

/** The rows of the comparison table: the capability and our column. */
function comparisonRows(markdown: string): Row[] {
  const start = markdown.indexOf(heading);
  if (start < 0) throw new Error(`docs/teams.md has no "${heading}"`);
  const section = markdown.slice(start + heading.length);
  const end = section.search(/^## /m);
  const lines = (end < 0 ? section : section.slice(0, end)).split("\n").filter((l) => l.startsWith("|"));
  // The header and the alignment line come first.
  return lines.slice(2).map((line) => {
    const cells = line
      .slice(1, line.lastIndexOf("|"))
      .split("|")
      .map((c) => c.trim());
    return { capability: cells[0], ours: cells[1] };
  });
}

/** A cell's claims: the text between `<br>`s. */
const claimsOf = (cell: string): string[] =>
  cell
    .split("<br>")
    .map((c) => c.trim())
    .filter((c) => c !== "");

// ---------------------------------------------------------------------------------------------------
// What the renders hold

interface Facts {
  /** examples/teams as its stack renders it (Linkerd, prod). */
  readonly linkerd: RenderResult;
  /** The same teams and apps with Istio's sidecars. */
  readonly istio: RenderResult;
  /** A team with no quota of its own, in each tier. */
  readonly tiers: Record<string, RenderResult>;
}

type Team = {
  name: string;
  namespaces?: string[];
  access?: Record<string, string[]>;
  allowFrom?: string[];
  quota?: unknown;
  workloadIdentity?: { roles?: string[] };
};
type App = { name: string; team?: string; namespace?: string };

const stack = parse(fs.readFileSync(path.join(root, "examples/teams/Pulumi.prod.yaml"), "utf8")) as {
  config: Record<string, unknown>;
};
/** The example's environment, as the config reads it. */
const example = {
  tier: stack.config["platform:tier"],
  gcp: { project: stack.config["gcp:project"], region: stack.config["gcp:region"] },
  cluster: stack.config["platform:cluster"],
  mesh: stack.config["platform:mesh"],
  teams: stack.config["platform:teams"] as Team[],
  apps: stack.config["platform:apps"] as App[],
};
const namespacesOf = (t: Team): string[] => t.namespaces ?? [t.name];
const teamOf = (ns: string): Team | undefined => example.teams.find((t) => namespacesOf(t).includes(ns));
const teamNamespaces = example.teams.flatMap(namespacesOf);
const appNamespace = (a: App): string =>
  a.namespace ?? (a.team ? namespacesOf(example.teams.find((t) => t.name === a.team) as Team)[0] : "");
/** Whether pods of `from` may call pods of `to` as the teams say: one team, or `to`'s allowFrom names `from`'s. */
const teamsAllow = (from: string, to: string): boolean => {
  const a = teamOf(from);
  const b = teamOf(to);
  return a !== undefined && b !== undefined && (a === b || (b.allowFrom ?? []).includes(a.name));
};

interface K8sObject {
  kind: string;
  apiVersion?: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [key: string]: unknown;
}
const objectsOf = (r: RenderResult): K8sObject[] =>
  r.resources
    .filter((x) => typeof x.inputs.kind === "string" && typeof x.inputs.metadata === "object")
    .map((x) => x.inputs as unknown as K8sObject);
const objectIn = (r: RenderResult, kind: string, name: string, namespace?: string): K8sObject | undefined =>
  objectsOf(r).find(
    (o) =>
      o.kind === kind &&
      o.metadata.name === name &&
      (namespace === undefined || o.metadata.namespace === namespace),
  );

/** Namespace pairs `from->to` the mesh's rendered grants let in, by the mesh's own model. */
function meshCallers(r: RenderResult): string[] {
  const objects = objectsOf(r) as unknown as AdmissionObject[];
  return meshAdmissions
    .flatMap((m) => m.grants(objects, () => false))
    .flatMap((g) => ("namespace" in g.source ? [`${g.source.namespace}->${g.namespace}`] : []));
}

type Peer = {
  namespaceSelector?: {
    matchLabels?: Record<string, string>;
    matchExpressions?: { key: string; operator: string; values?: string[] }[];
  };
};
/** The namespaces the NetworkPolicy `namespace-isolation` of `namespace` names as sources. */
function networkSources(r: RenderResult, namespace: string): string[] | undefined {
  const policy = objectIn(r, "NetworkPolicy", "namespace-isolation", namespace);
  if (!policy) return undefined;
  const rules = ((policy.spec as { ingress?: { from?: Peer[] }[] }).ingress ?? []).flatMap(
    (i) => i.from ?? [],
  );
  return rules.flatMap((peer) => {
    const s = peer.namespaceSelector;
    const byLabel = s?.matchLabels?.["kubernetes.io/metadata.name"];
    const byExpr = (s?.matchExpressions ?? [])
      .filter((e) => e.key === "kubernetes.io/metadata.name" && e.operator === "In")
      .flatMap((e) => e.values ?? []);
    return [...(byLabel ? [byLabel] : []), ...byExpr];
  });
}

const members = (t: Team): string[] =>
  Object.values(t.access ?? {})
    .flat()
    .map((m) => m.replace(/^user:/, ""));

// ---------------------------------------------------------------------------------------------------
// The checks: a claim's pattern, and what must hold (the failures, none when it holds)

type Check = (facts: Facts, match: RegExpMatchArray) => string[];
const fail = (ok: boolean, why: string): string[] => (ok ? [] : [why]);

const checks: [RegExp, Check][] = [
  [
    /^a `Namespace` per entry of `teams\[\]\.namespaces`, `\[name\]` by default$/,
    ({ linkerd }) =>
      teamNamespaces.flatMap((ns) =>
        fail(objectIn(linkerd, "Namespace", ns) !== undefined, `no Namespace ${ns}`),
      ),
  ],
  [
    /^Linkerd: `Namespace` annotations `linkerd\.io\/inject: enabled` and `config\.linkerd\.io\/default-inbound-policy: deny`$/,
    ({ linkerd }) =>
      teamNamespaces.flatMap((ns) => {
        const a = objectIn(linkerd, "Namespace", ns)?.metadata.annotations ?? {};
        return fail(
          a["linkerd.io/inject"] === "enabled" && a["config.linkerd.io/default-inbound-policy"] === "deny",
          `Namespace ${ns}: annotations ${JSON.stringify(a)}`,
        );
      }),
  ],
  [
    /^Istio sidecars: `Namespace` label `istio-injection: enabled`$/,
    ({ istio }) =>
      teamNamespaces.flatMap((ns) => {
        const l = objectIn(istio, "Namespace", ns)?.metadata.labels ?? {};
        return fail(l["istio-injection"] === "enabled", `Namespace ${ns}: labels ${JSON.stringify(l)}`);
      }),
  ],
  [
    /^`Namespace` label `pod-security\.kubernetes\.io\/enforce: (\w+)` with Linkerd, `(\w+)` with Istio's sidecars$/,
    ({ linkerd, istio }, [, withLinkerd, withIstio]) =>
      (
        [
          [linkerd, withLinkerd],
          [istio, withIstio],
        ] as const
      ).flatMap(([r, level]) =>
        teamNamespaces.flatMap((ns) => {
          const has = objectIn(r, "Namespace", ns)?.metadata.labels?.["pod-security.kubernetes.io/enforce"];
          return fail(has === level, `Namespace ${ns}: enforce ${String(has)}, not ${level}`);
        }),
      ),
  ],
  [
    /^`ResourceQuota` `team-<name>` in each team namespace, `spec\.hard`: `requests\.cpu`, `requests\.memory`, `limits\.memory`, `pods`$/,
    ({ linkerd }) =>
      teamNamespaces.flatMap((ns) => {
        const q = objectIn(linkerd, "ResourceQuota", `team-${teamOf(ns)?.name}`, ns);
        const keys = Object.keys((q?.spec as { hard?: object } | undefined)?.hard ?? {}).sort();
        return fail(
          isDeepStrictEqual(keys, ["limits.memory", "pods", "requests.cpu", "requests.memory"]),
          `ResourceQuota in ${ns}: ${q ? keys.join(", ") : "none"}`,
        );
      }),
  ],
  [
    /^by default, in (dev|staging|prod): `(\S+)` CPU, `(\S+)` memory requested, `(\S+)` memory limit, `(\d+)` pods$/,
    ({ tiers }, [, tier, cpu, memory, limit, pods]) => {
      const q = objectIn(tiers[tier], "ResourceQuota", "team-a", "a");
      const expected = { "requests.cpu": cpu, "requests.memory": memory, "limits.memory": limit, pods };
      const hard = (q?.spec as { hard?: unknown } | undefined)?.hard;
      return fail(
        isDeepStrictEqual(hard, expected),
        `${tier}: ${JSON.stringify(hard)}, not ${JSON.stringify(expected)}`,
      );
    },
  ],
  [
    /^`LimitRange` `team-<name>` in each team namespace: a container's `defaultRequest` `(\S+)` CPU and `(\S+)` memory, `default` memory `(\S+)`$/,
    ({ linkerd }, [, cpu, memory, limit]) =>
      teamNamespaces.flatMap((ns) => {
        const l = objectIn(linkerd, "LimitRange", `team-${teamOf(ns)?.name}`, ns);
        const expected = [{ type: "Container", defaultRequest: { cpu, memory }, default: { memory: limit } }];
        const has = (l?.spec as { limits?: unknown } | undefined)?.limits;
        return fail(isDeepStrictEqual(has, expected), `LimitRange in ${ns}: ${JSON.stringify(has)}`);
      }),
  ],
  [
    /^`RoleBinding` `team-<name>-<role>` in each team namespace, `roleRef` the ClusterRole `view`, `edit` or `admin`, `subjects` the `access\.<role>` entries: a `Group`, or a `User` for `user:`$/,
    ({ linkerd }) =>
      example.teams.flatMap((t) =>
        namespacesOf(t).flatMap((ns) =>
          ["view", "edit", "admin"].flatMap((role) => {
            const entries = t.access?.[role] ?? [];
            const b = objectIn(linkerd, "RoleBinding", `team-${t.name}-${role}`, ns);
            if (entries.length === 0)
              return fail(b === undefined, `RoleBinding ${ns}/team-${t.name}-${role} with no members`);
            const expected = {
              roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
              subjects: entries.map((m) => ({
                kind: m.startsWith("user:") ? "User" : "Group",
                name: m.replace(/^user:/, ""),
                apiGroup: "rbac.authorization.k8s.io",
              })),
            };
            const has = b && { roleRef: b.roleRef, subjects: b.subjects };
            return fail(
              isDeepStrictEqual(has, expected),
              `RoleBinding ${ns}/team-${t.name}-${role}: ${JSON.stringify(has)}`,
            );
          }),
        ),
      ),
  ],
  [
    /^no `ClusterRoleBinding` names a team's member, and no binding gives one `cluster-admin`$/,
    ({ linkerd, istio }) => {
      const all = new Set(example.teams.flatMap(members));
      return [linkerd, istio].flatMap((r) =>
        objectsOf(r)
          .filter((o) => o.kind === "ClusterRoleBinding" || o.kind === "RoleBinding")
          .filter((o) => ((o.subjects as { name: string }[] | undefined) ?? []).some((s) => all.has(s.name)))
          .filter(
            (o) =>
              o.kind === "ClusterRoleBinding" || (o.roleRef as { name: string }).name === "cluster-admin",
          )
          .map((o) => `${o.kind} ${o.metadata.name} binds a team's member`),
      );
    },
  ],
  [
    /^a Google service account `team-<name>` \(`teams\[\]\.workloadIdentity`\) holding `workloadIdentity\.roles` in the project$/,
    ({ linkerd }) =>
      example.teams
        .filter((t) => t.workloadIdentity)
        .flatMap((t) => {
          const mine = (type: string) =>
            linkerd.resources.filter((x) => x.type === type && x.name.includes(`team-${t.name}`));
          const accounts = mine("gcp:serviceaccount/account:Account").map((x) => x.inputs.accountId);
          const roles = mine("gcp:projects/iAMMember:IAMMember").map((x) => x.inputs.role);
          return [
            ...fail(
              isDeepStrictEqual(accounts, [`team-${t.name}`]),
              `${t.name}: accounts ${JSON.stringify(accounts)}`,
            ),
            ...fail(
              isDeepStrictEqual(roles, t.workloadIdentity?.roles ?? []),
              `${t.name}: project roles ${JSON.stringify(roles)}`,
            ),
          ];
        }),
  ],
  [
    /^`roles\/iam\.workloadIdentityUser` on it for each of the team's apps' `ServiceAccount`, which names it in `iam\.gke\.io\/gcp-service-account`$/,
    ({ linkerd }) =>
      example.teams
        .filter((t) => t.workloadIdentity)
        .flatMap((t) => {
          const apps = example.apps.filter((a) => namespacesOf(t).includes(appNamespace(a)));
          const email = `team-${t.name}@${String(example.gcp.project)}.iam.gserviceaccount.com`;
          const bound = linkerd.resources
            .filter(
              (x) => x.type === "gcp:serviceaccount/iAMMember:IAMMember" && x.name.includes(`team-${t.name}`),
            )
            .map((x) => `${String(x.inputs.role)} ${String(x.inputs.member)}`)
            .sort();
          const expected = apps
            .map(
              (a) =>
                `roles/iam.workloadIdentityUser serviceAccount:${String(example.gcp.project)}.svc.id.goog[${appNamespace(a)}/${a.name}]`,
            )
            .sort();
          return [
            ...fail(
              apps.length > 0 && isDeepStrictEqual(bound, expected),
              `${t.name}: ${JSON.stringify(bound)}`,
            ),
            ...apps.flatMap((a) => {
              const sa = objectIn(linkerd, "ServiceAccount", a.name, appNamespace(a));
              const has = sa?.metadata.annotations?.["iam.gke.io/gcp-service-account"];
              return fail(has === email, `ServiceAccount ${appNamespace(a)}/${a.name}: ${String(has)}`);
            }),
          ];
        }),
  ],
  [
    /^refused: a basic role, `roles\/container\.\*`, `roles\/iam\.\*`, `roles\/resourcemanager\.\*`$/,
    () =>
      [
        "roles/editor",
        "roles/container.developer",
        "roles/iam.serviceAccountAdmin",
        "roles/resourcemanager.projectIamAdmin",
      ].flatMap((role) => {
        const teams = [{ name: "payments", workloadIdentity: { roles: [role] } }];
        try {
          const paths = configError(() => plan({ teams })).problems.map((p) => p.path);
          return fail(
            paths.includes("platform:teams[0].workloadIdentity.roles[0]"),
            `${role}: refused at ${paths.join(", ")}`,
          );
        } catch (err) {
          return [`${role}: ${String(err)}`];
        }
      }),
  ],
  [
    /^`NetworkPolicy` `namespace-isolation` in each team namespace, naming no other team's namespace but those `allowFrom` lets in$/,
    ({ linkerd, istio }) =>
      [linkerd, istio].flatMap((r) =>
        teamNamespaces.flatMap((ns) => {
          const sources = networkSources(r, ns);
          if (!sources) return [`no NetworkPolicy namespace-isolation in ${ns}`];
          return sources
            .filter((s) => teamNamespaces.includes(s) && s !== ns && !teamsAllow(s, ns))
            .map((s) => `NetworkPolicy ${ns}/namespace-isolation lets ${s} in`);
        }),
      ),
  ],
  [
    /^Linkerd: a `Server` and an `AuthorizationPolicy` \(policy\.linkerd\.io\) per app; no other team's namespace among their callers but those `allowFrom` lets in$/,
    ({ linkerd }) => [
      ...example.apps.flatMap((a) =>
        ["Server", "AuthorizationPolicy"].flatMap((kind) =>
          fail(
            objectsOf(linkerd).some(
              (o) =>
                o.kind === kind &&
                String(o.apiVersion).startsWith("policy.linkerd.io/") &&
                o.metadata.namespace === appNamespace(a) &&
                o.metadata.name.startsWith(a.name),
            ),
            `no ${kind} for ${appNamespace(a)}/${a.name}`,
          ),
        ),
      ),
      ...crossTeamCallers(linkerd),
    ],
  ],
  [
    /^Istio sidecars: an `AuthorizationPolicy` \(security\.istio\.io\) per app; no other team's namespace among its callers but those `allowFrom` lets in$/,
    ({ istio }) => [
      ...example.apps.flatMap((a) =>
        fail(
          objectsOf(istio).some(
            (o) =>
              o.kind === "AuthorizationPolicy" &&
              String(o.apiVersion).startsWith("security.istio.io/") &&
              o.metadata.namespace === appNamespace(a) &&
              o.metadata.name.startsWith(a.name),
          ),
          `no AuthorizationPolicy for ${appNamespace(a)}/${a.name}`,
        ),
      ),
      ...crossTeamCallers(istio),
    ],
  ],
  [
    /^`teams\[\]\.allowFrom`: the named teams' namespaces let in by the `NetworkPolicy` and the mesh's policy, that way only$/,
    ({ linkerd, istio }) =>
      [linkerd, istio].flatMap((r) => {
        const callers = new Set(meshCallers(r));
        return example.teams.flatMap((to) =>
          (to.allowFrom ?? []).flatMap((name) => {
            const from = example.teams.find((t) => t.name === name) as Team;
            return namespacesOf(from).flatMap((f) =>
              namespacesOf(to).flatMap((ns) => [
                ...fail(
                  (networkSources(r, ns) ?? []).includes(f),
                  `NetworkPolicy ${ns} does not let ${f} in`,
                ),
                ...fail(callers.has(`${f}->${ns}`), `the mesh does not let ${f} into ${ns}`),
                // That way only, unless the other team names this one too.
                ...fail(
                  (from.allowFrom ?? []).includes(to.name) || !callers.has(`${ns}->${f}`),
                  `the mesh lets ${ns} into ${f} too`,
                ),
              ]),
            );
          }),
        );
      }),
  ],
  [
    /^refused \(`ConfigError` at `platform:teams\[i\]\.quota\.<key>`\) when a namespace's apps need more: their replicas, the pod a rollout adds, the mesh's proxy in each$/,
    () => {
      const teams = [{ name: "payments", quota: { requests: { cpu: "100m" }, pods: 1 } }];
      const apps = [{ name: "pay", team: "payments", image: "pay:1", port: 8080, replicas: 2 }];
      const paths = configError(() =>
        plan({ tier: "prod", mesh: { kind: "linkerd" }, teams, apps }),
      ).problems.map((p) => p.path);
      return fail(
        isDeepStrictEqual(paths, ["platform:teams[0].quota.requests.cpu", "platform:teams[0].quota.pods"]),
        `refused at ${paths.join(", ")}`,
      );
    },
  ],
  [
    /^refused \(`ConfigError` at `platform:teams\[i\]\.namespaces\[j\]`\): `default`, `kube-\*`, `gke-\*`, and the platform's own: `cert-manager`, `monitoring`, `gateway`, the mesh's and the ingress controller's, Managed Prometheus'$/,
    () =>
      [
        "default",
        "kube-system",
        "gke-managed-system",
        "cert-manager",
        "monitoring",
        "gateway",
        "linkerd",
        "istio-system",
        "traefik",
        "gmp-system",
      ].flatMap((ns) => {
        const paths = configError(() => plan({ teams: [{ name: "t", namespaces: [ns] }] })).problems.map(
          (p) => p.path,
        );
        return fail(
          paths.includes("platform:teams[0].namespaces[0]"),
          `${ns}: refused at ${paths.join(", ")}`,
        );
      }),
  ],
];

/** No namespace of one team among the mesh's callers of another's, unless `allowFrom` says so. */
function crossTeamCallers(r: RenderResult): string[] {
  return meshCallers(r)
    .map((pair) => pair.split("->"))
    .filter(
      ([from, to]) => teamNamespaces.includes(from) && teamNamespaces.includes(to) && !teamsAllow(from, to),
    )
    .map(([from, to]) => `the mesh lets ${from} into ${to}`);
}

/** What is wrong with our column: a claim no check knows, or one whose check fails. */
function judge(rows: Row[], facts: Facts): string[] {
  return rows.flatMap((row) => {
    const claims = claimsOf(row.ours);
    if (claims.length === 0) return [`${row.capability}: our cell is empty`];
    return claims.flatMap((claim) => {
      const known = checks.flatMap(([pattern, check]) => {
        const m = claim.match(pattern);
        return m ? [{ m, check }] : [];
      });
      if (known.length !== 1) return [`${row.capability}: ${known.length} checks for "${claim}"`];
      return known[0].check(facts, known[0].m).map((why) => `${row.capability}: "${claim}": ${why}`);
    });
  });
}

// ---------------------------------------------------------------------------------------------------

let facts: Facts;
beforeAll(async () => {
  const tiers: Record<string, RenderResult> = {};
  for (const tier of ["dev", "staging", "prod"])
    tiers[tier] = await renderPlatform({ tier, mesh: { kind: "linkerd" }, teams: [{ name: "a" }] });
  facts = {
    linkerd: await renderProject(path.join(root, "examples/teams"), "prod"),
    istio: await renderPlatform({ ...example, mesh: { kind: "istio" } }),
    tiers,
  };
}, 300_000);

const rows = comparisonRows(fs.readFileSync(path.join(root, "docs/teams.md"), "utf8"));

test("docs/teams.md: the comparison table has our column for each capability", () => {
  expect(rows.map((r) => r.capability)).toEqual([
    "namespaces per team",
    "mesh enrolment",
    "Pod Security",
    "ResourceQuota",
    "LimitRange",
    "RBAC for groups and users",
    "cloud identity for workloads",
    "default-deny between teams: network",
    "default-deny between teams: mesh authorization",
    "named cross-team exceptions",
    "a quota that cannot hold the apps",
    "platform namespaces as a team's",
  ]);
});

test("docs/teams.md: each claim of our column is what examples/teams renders", () => {
  expect(judge(rows, facts)).toEqual([]);
  // And every check has its claim: none is left behind when a cell is reworded.
  const claims = rows.flatMap((r) => claimsOf(r.ours));
  expect(checks.map(([pattern]) => pattern).filter((p) => !claims.some((c) => p.test(c)))).toEqual([]);
});

test("a claim we do not render fails: Pod Security changed, and a binding we never make", () => {
  const edited = rows.map((r) =>
    r.capability === "Pod Security"
      ? { ...r, ours: r.ours.replace("enforce: restricted`", "enforce: privileged`") }
      : r.capability === "RBAC for groups and users"
        ? { ...r, ours: `${r.ours}<br>a \`ClusterRoleBinding\` \`team-<name>\` to \`cluster-admin\`` }
        : r,
  );
  expect(judge(edited, facts)).toEqual([
    ...teamNamespaces.map(
      (ns) =>
        `Pod Security: "${claimsOf(edited[2].ours)[0]}": Namespace ${ns}: enforce restricted, not privileged`,
    ),
    'RBAC for groups and users: 0 checks for "a `ClusterRoleBinding` `team-<name>` to `cluster-admin`"',
  ]);
});
