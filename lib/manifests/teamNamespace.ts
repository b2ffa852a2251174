import { ApiObject } from "cdk8s";
import { Construct } from "constructs";
import { appPodShape } from "./appWorkload";

/** The cluster's aggregated roles a team's members are bound to in its namespaces; never cluster-admin. */
export const teamRoles = ["view", "edit", "admin"] as const;
export type TeamRole = (typeof teamRoles)[number];

/** A namespace's quota: what its pods may request and be limited to in all, and how many it holds. */
export interface NamespaceQuota {
  readonly requests: { readonly cpu: string; readonly memory: string };
  readonly limits: { readonly memory: string };
  readonly pods: number;
}

export interface TeamNamespaceProps {
  /** The team's name: the objects' names start with it. */
  readonly team: string;
  readonly namespace: string;
  readonly quota: NamespaceQuota;
  /**
   * Members bound to each aggregated role in the namespace: a Google group's email (GKE's Google Groups
   * for RBAC), or `user:` and a user's email. @default none
   */
  readonly access?: Partial<Readonly<Record<TeamRole, readonly string[]>>>;
}

/** A RoleBinding subject from an access entry: `user:<email>` a User, a plain email a Google group. */
export function rbacSubject(member: string): { kind: "User" | "Group"; name: string; apiGroup: string } {
  const user = member.startsWith("user:");
  return {
    kind: user ? "User" : "Group",
    name: member.replace(/^(user|group):/, ""),
    apiGroup: "rbac.authorization.k8s.io",
  };
}

/**
 * What a team's namespace holds besides its Namespace: a ResourceQuota; a LimitRange whose defaults
 * are the platform's app container's (100m and 128Mi requested, 256Mi limit), so a container that asks
 * for nothing is admitted under the quota; and one RoleBinding per role with members, to the cluster's
 * aggregated ClusterRole of that name (never a ClusterRoleBinding).
 */
export class TeamNamespace extends Construct {
  constructor(scope: Construct, id: string, props: TeamNamespaceProps) {
    super(scope, id);
    const namespace = props.namespace;
    new ApiObject(this, "quota", {
      apiVersion: "v1",
      kind: "ResourceQuota",
      metadata: { name: `team-${props.team}`, namespace },
      spec: {
        hard: {
          "requests.cpu": props.quota.requests.cpu,
          "requests.memory": props.quota.requests.memory,
          "limits.memory": props.quota.limits.memory,
          pods: String(props.quota.pods),
        },
      },
    });
    new ApiObject(this, "limits", {
      apiVersion: "v1",
      kind: "LimitRange",
      metadata: { name: `team-${props.team}`, namespace },
      spec: {
        limits: [
          {
            type: "Container",
            defaultRequest: {
              cpu: `${appPodShape.cpuRequestMillis}m`,
              memory: `${appPodShape.memoryRequestMi}Mi`,
            },
            default: { memory: `${appPodShape.memoryLimitMi}Mi` },
          },
        ],
      },
    });
    for (const role of teamRoles) {
      const members = props.access?.[role] ?? [];
      if (members.length === 0) continue;
      new ApiObject(this, `role-${role}`, {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: `team-${props.team}-${role}`, namespace },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
        subjects: members.map(rbacSubject),
      });
    }
  }
}
