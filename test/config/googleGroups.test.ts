import { config, input, problems } from "../helpers";

/**
 * Google Groups for RBAC (docs/teams.md, "Google groups"): the cluster's security group, and a team's
 * group access refused on a cluster the platform creates without it.
 */

const securityGroup = "gke-security-groups@example.com";
const teams = [
  { name: "payments", access: { view: ["user:alex@example.com"], edit: ["payments-devs@example.com"] } },
  { name: "search", access: { admin: ["user:sam@example.com", "search-leads@example.com"] } },
];
const key = "platform:cluster.googleGroups.securityGroup";

describe("platform:cluster.googleGroups.securityGroup", () => {
  test("resolves as written; absent by default", () => {
    expect(config({}).cluster.googleGroups).toEqual({ securityGroup: undefined });
    expect(config({ cluster: { googleGroups: { securityGroup } } }).cluster.googleGroups).toEqual({
      securityGroup,
    });
  });

  test("an email whose local part is not gke-security-groups", () => {
    expect(
      problems(input({ cluster: { googleGroups: { securityGroup: "platform-devs@acme.example" } } })),
    ).toEqual([
      {
        path: key,
        problem: `"platform-devs@acme.example" is not GKE's security group: its local part is "platform-devs"`,
        allowed:
          "gke-security-groups@ and your Google Workspace or Cloud Identity domain, such as gke-security-groups@example.com",
        fix: `set ${key} to gke-security-groups@acme.example`,
      },
    ]);
  });

  test("not an email at all", () => {
    expect(problems(input({ cluster: { googleGroups: { securityGroup: "gke-security-groups" } } }))).toEqual([
      {
        path: key,
        problem: '"gke-security-groups" is not an email address',
        allowed:
          "gke-security-groups@ and your Google Workspace or Cloud Identity domain, such as gke-security-groups@example.com",
        fix: `set ${key} to gke-security-groups@example.com`,
      },
    ]);
  });

  test("on an existing cluster it is refused, with how to enable it on that cluster", () => {
    const found = problems(
      input({
        cluster: {
          mode: "existing",
          existing: { name: "shared", location: "europe-west1" },
          googleGroups: { securityGroup },
        },
      }),
    );
    expect(found).toEqual([
      {
        path: "platform:cluster.googleGroups",
        problem: "is set, but the platform does not manage an existing cluster, so it would have no effect",
        fix: "remove platform:cluster.googleGroups, and enable Google Groups for RBAC on the cluster itself: gcloud container clusters update <name> --location <location> --security-group=gke-security-groups@<your domain>",
      },
    ]);
  });
});

describe("a team's Google group needs Google Groups for RBAC", () => {
  const refused = (role: string, i: number, j: number, member: string) => ({
    path: `platform:teams[${i}].access.${role}[${j}]`,
    problem: `"${member}" is a Google group, but ${key} is not set; GKE matches a Group subject to a Google group's members only through Google Groups for RBAC, so its RoleBinding would grant no one`,
    allowed: `a group once ${key} is gke-security-groups@<your domain> (with the group a member of it), or user: and a user's email`,
    fix: `set ${key} to gke-security-groups@<your domain>, or, if it is a user, write "user:${member}"`,
  });

  test("each group entry on Standard and Autopilot, the user: entries not", () => {
    for (const cluster of [{}, { mode: "autopilot", location: "europe-west1" }]) {
      expect(problems(input({ cluster, teams }))).toEqual([
        refused("edit", 0, 0, "payments-devs@example.com"),
        refused("admin", 1, 1, "search-leads@example.com"),
      ]);
    }
  });

  test("accepted with the security group set, or with user: entries alone", () => {
    expect(config({ cluster: { googleGroups: { securityGroup } }, teams }).teams).toHaveLength(2);
    const users = [{ name: "payments", access: { edit: ["user:alex@example.com"] } }];
    expect(config({ teams: users }).teams[0].access.edit).toEqual(["user:alex@example.com"]);
  });

  test("accepted on an existing cluster, whose setting is its owner's (docs/teams.md)", () => {
    const c = config({
      cluster: { mode: "existing", existing: { name: "shared", location: "europe-west1" } },
      teams,
    });
    expect(c.teams[1].access.admin).toEqual(["user:sam@example.com", "search-leads@example.com"]);
  });
});
