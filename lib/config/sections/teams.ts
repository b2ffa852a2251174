/** The platform:teams section: each team's namespaces, who may use them, their quota and who may call them. */
import { z } from "zod";
import { showValue } from "../errors";
import { cpuQuantity, memoryQuantity } from "../sizing";
import { checkedString, type ValueProblem } from "../valueChecks";
import { resourceName } from "./fields";

const emailExample = "platform-devs@example.com";

/**
 * A Google group by its email, or a user as `user:` and an email, as GKE's Google Groups for RBAC and
 * Kubernetes RBAC name them (cloud.google.com/kubernetes-engine/docs/how-to/google-groups-rbac): a
 * group's subject is a Group named by its email, a user's a User named by theirs.
 */
export function memberEmailProblem(value: string): ValueProblem | undefined {
  if (/^(user:)?[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$/.test(value))
    return undefined;
  return {
    problem: `${showValue(value)} is not an email address`,
    allowed: `a Google group's email (a member of gke-security-groups@ your domain), such as ${emailExample}, or user: and a user's email, such as user:alex@example.com`,
    fix: (path) => `set ${path} to the group's email, such as ${emailExample}, or user: and a user's email`,
  };
}

const members = z.array(checkedString(memberEmailProblem)).min(1);

/**
 * A project role to grant: a predefined role (`roles/...`) or a project's custom one
 * (`projects/<project>/roles/...`); never a basic role (owner, editor, viewer), which spans every service.
 */
export function teamRoleProblem(value: string): ValueProblem | undefined {
  const allowed =
    "a predefined role such as roles/pubsub.publisher, or a custom role projects/<project>/roles/<role>; not roles/owner, roles/editor or roles/viewer, nor roles/container.*, roles/iam.* or roles/resourcemanager.*";
  if (["roles/owner", "roles/editor", "roles/viewer"].includes(value))
    return {
      problem: `${showValue(value)} is a basic role, which grants access to every service of the project`,
      allowed,
      fix: (path) =>
        `set ${path} to the predefined roles the team's apps need, such as roles/pubsub.publisher`,
    };
  // GKE's IAM roles reach every namespace of every cluster in the project, and IAM's and Resource
  // Manager's administer identities and policy: each would take a team's pods past its namespaces' RBAC.
  const beyond = /^roles\/(container|iam|resourcemanager)\./.exec(value);
  if (beyond)
    return {
      problem: `${showValue(value)} reaches beyond the team's namespaces: ${
        beyond[1] === "container"
          ? "GKE applies roles/container.* to every namespace of every cluster in the project"
          : `roles/${beyond[1]}.* administers the project's identities and policy`
      }`,
      allowed,
      fix: (path) =>
        `remove it from ${path}; give the team Kubernetes access through teams[].access, and its apps the service roles they call (such as roles/pubsub.publisher)`,
    };
  if (/^(roles\/[A-Za-z0-9_.]+|projects\/[a-z][-a-z0-9]{4,28}[a-z0-9]\/roles\/[A-Za-z0-9_.]+)$/.test(value))
    return undefined;
  return {
    problem: `${showValue(value)} is not an IAM role`,
    allowed,
    fix: (path) => `set ${path} to a role such as roles/pubsub.publisher`,
  };
}

/**
 * A team's share of the cluster, per namespace: a ResourceQuota of these, and a LimitRange that gives
 * containers without requests the platform's app defaults, so they are admitted under it.
 */
export const teamQuotaSchema = z.strictObject({
  /** What pods of a namespace may request in all. @default the tier's (docs/teams.md) */
  requests: z.strictObject({ cpu: cpuQuantity.optional(), memory: memoryQuantity.optional() }).optional(),
  /** The memory pods of a namespace may be limited to in all. @default the tier's */
  limits: z.strictObject({ memory: memoryQuantity.optional() }).optional(),
  /** Pods a namespace may hold. @default the tier's */
  pods: z.int().min(1).max(10000).optional(),
});

/**
 * A team (docs/teams.md): its namespaces, isolated from every other team's, enrolled in the mesh and
 * held to a quota; the Google groups or users that view, edit or administer them; the teams that may
 * call it.
 */
export const teamSchema = z.strictObject({
  name: resourceName,
  /** Namespaces of the team's own, none the platform's or another team's. @default [name] */
  namespaces: z.array(resourceName).min(1).optional(),
  /**
   * Google groups (their emails) or users (`user:` and an email) bound in each of the team's namespaces
   * to the cluster's aggregated role of that name: view, edit or admin; never cluster-admin. @default none
   */
  access: z
    .strictObject({
      view: members.optional(),
      edit: members.optional(),
      admin: members.optional(),
    })
    .optional(),
  /** The ResourceQuota of each of the team's namespaces. @default the tier's */
  quota: teamQuotaSchema.optional(),
  /**
   * A Google service account for the team, `team-<name>`, which its apps' Kubernetes service accounts
   * act as through Workload Identity (roles/iam.workloadIdentityUser on it), holding the project roles
   * listed. @default none: the team's apps act as no Google service account
   */
  workloadIdentity: z
    .strictObject({
      /** Project roles of the team's Google service account. @default none */
      roles: z.array(checkedString(teamRoleProblem)).min(1).optional(),
    })
    .optional(),
  /** Other teams whose namespaces may call this team's (besides ingress, monitoring and probes). @default none */
  allowFrom: z.array(resourceName).min(1).optional(),
});

/** The platform:teams section. */
export const teamsSchema = z.array(teamSchema).min(1);
