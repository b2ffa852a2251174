/** Google Groups for RBAC: a team's group access on a cluster the platform creates needs its security group. */
import { showValue, type ConfigProblem } from "../errors";
import type { PlatformConfig } from "../resolved";
import { cfg } from "./key";

/**
 * A team access entry without `user:` is a Group subject, which GKE matches to a Google group's members
 * only with Google Groups for RBAC on (cloud.google.com/kubernetes-engine/docs/how-to/google-groups-rbac);
 * without it the RoleBinding grants nothing, silently. An existing cluster's setting is its owner's, and
 * the platform cannot see it, so it is documented there (docs/teams.md), not refused.
 */
export function googleGroupsRules(config: PlatformConfig): ConfigProblem[] {
  const c = config.cluster;
  if (c.mode === "existing" || c.googleGroups.securityGroup !== undefined) return [];
  const key = "platform:cluster.googleGroups.securityGroup";
  const problems: ConfigProblem[] = [];
  config.teams.forEach((team, i) => {
    for (const [role, members] of Object.entries(team.access)) {
      members.forEach((member, j) => {
        if (member.startsWith("user:")) return;
        problems.push({
          path: cfg(`teams[${i}].access.${role}[${j}]`),
          problem: `${showValue(member)} is a Google group, but ${key} is not set; GKE matches a Group subject to a Google group's members only through Google Groups for RBAC, so its RoleBinding would grant no one`,
          allowed: `a group once ${key} is gke-security-groups@<your domain> (with the group a member of it), or user: and a user's email`,
          fix: `set ${key} to gke-security-groups@<your domain>, or, if it is a user, write "user:${member}"`,
        });
      });
    }
  });
  return problems;
}
