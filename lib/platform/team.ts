import { createHash } from "node:crypto";
import * as gcp from "@pulumi/gcp";
import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { tierDefaults } from "../config";
import { deployChart, newChart } from "../deploy";
import {
  PlatformNamespace,
  TeamNamespace,
  type NamespaceQuota,
  type PodSecurityLevel,
  TeamRoutes,
  type TeamRole,
  type TeamRoute,
} from "../manifests";
import { eastWestRouteParents, type PodMetadata } from "../meshes";

export interface TeamArgs {
  /** The team's name: its objects' names start with it. */
  readonly name: string;
  /** The team's namespaces. @default [name] */
  readonly namespaces?: readonly string[];
  /**
   * The Namespace objects that exist already, by name (the `Platform` passes the ones it makes from
   * `Plan.namespaces`, enrolled and isolated like every app namespace): the team makes the others.
   * @default none: the team makes every one of its namespaces
   */
  readonly existingNamespaces?: ReadonlyMap<string, pulumi.Resource>;
  /**
   * Metadata of the namespaces the team makes: the mesh's enrolment (`meshNamespaceMetadata`).
   * @default none: out of every mesh
   */
  readonly namespaceMetadata?: PodMetadata;
  /** The Pod Security level the namespaces it makes enforce: the mesh's, where they are meshed. @default "restricted" */
  readonly podSecurity?: PodSecurityLevel;
  /**
   * Who may view, edit or administer the team's namespaces: Google groups' emails (GKE's Google Groups
   * for RBAC), or `user:` and a user's email, bound to the cluster's aggregated role of that name.
   * @default nobody
   */
  readonly access?: Partial<Readonly<Record<TeamRole, readonly string[]>>>;
  /** The ResourceQuota of each namespace. @default the dev tier's (docs/teams.md) */
  readonly quota?: NamespaceQuota;
  /**
   * A Google service account for the team in `project`, which the Kubernetes service accounts of
   * `members` (`serviceAccount:<project>.svc.id.goog[<namespace>/<name>]`) may act as
   * (roles/iam.workloadIdentityUser), holding the project `roles`. @default none
   */
  readonly workloadIdentity?: {
    /** The project of the account, its roles and the cluster's workload pool. */
    readonly project: string;
    /** The account id. @default team-<name> */
    readonly accountId?: string;
    /** Project roles it holds. @default none */
    readonly roles?: readonly string[];
    /** The Workload Identity members that may act as it. @default none */
    readonly members?: readonly string[];
    /**
     * What makes the project's Workload Identity pool (`<project>.svc.id.goog`) exist: the first cluster
     * with Workload Identity. IAM refuses a member of a pool that does not exist yet ("Identity Pool
     * does not exist"), so the members' bindings wait for it. @default none: the pool exists already
     */
    readonly poolReady?: readonly pulumi.Resource[];
    /**
     * What the account and its bindings wait for: the IAM and Resource Manager APIs, enabled on a fresh
     * project. @default none: the APIs are enabled already
     */
    readonly apis?: readonly pulumi.Resource[];
  };
  /**
   * The hosts and path prefixes each namespace's Ingresses, HTTPRoutes and GRPCRoutes may claim (the
   * `Platform` passes its exposed apps' `expose`): a ValidatingAdmissionPolicy refuses every other, so no
   * member routes another team's host or path through a shared controller or Gateway. A namespace
   * missing here may route nothing. @default none: no policy, routes are confined by RBAC alone
   */
  readonly routes?: Readonly<Record<string, readonly TeamRoute[]>>;
  /** The cluster's Kubernetes provider. */
  readonly provider: k8s.Provider;
  /** The first part of the Pulumi names of the team's objects. @default the component's name */
  readonly resourcePrefix?: string;
}

/**
 * One team: per namespace a ResourceQuota, a LimitRange that lets containers asking for nothing in
 * under it, and RoleBindings of its members to the cluster's aggregated roles view, edit and admin
 * (never cluster-admin, never a ClusterRoleBinding); given `routes`, a policy confining its Ingresses and
 * Gateway routes to them; the namespaces themselves where they do not exist yet. Isolation from other teams is the namespaces' NetworkPolicy and mesh policy (docs/teams.md).
 */
export class Team extends pulumi.ComponentResource {
  readonly name: string;
  readonly namespaces: readonly string[];
  /** The team's Google service account's email, where it has one. */
  readonly googleServiceAccount?: pulumi.Output<string>;
  /**
   * The Workload Identity bindings that let its apps' Kubernetes service accounts act as that account:
   * what an app's pods wait for (`AppArgs.identityReady`), or their first token requests are refused.
   */
  readonly workloadIdentityBindings: readonly pulumi.Resource[];

  constructor(name: string, args: TeamArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:platform:Team", name, {}, opts);
    this.name = args.name;
    this.namespaces = args.namespaces ?? [args.name];
    const prefix = args.resourcePrefix ?? name;
    const existing = args.existingNamespaces ?? new Map<string, pulumi.Resource>();
    for (const ns of this.namespaces) {
      const chart = newChart(`team-${args.name}-${ns}`);
      if (!existing.has(ns)) {
        new PlatformNamespace(chart, "namespace", {
          name: ns,
          podSecurity: args.podSecurity,
          labels: args.namespaceMetadata?.labels,
          annotations: args.namespaceMetadata?.annotations,
        });
      }
      new TeamNamespace(chart, "team", {
        team: args.name,
        namespace: ns,
        quota: args.quota ?? tierDefaults.dev.teamQuota,
        access: args.access,
      });
      if (args.routes) {
        new TeamRoutes(chart, "routes", {
          namespace: ns,
          routes: args.routes[ns] ?? [],
          eastWestParents: eastWestRouteParents,
        });
      }
      const namespace = existing.get(ns);
      deployChart(`${prefix}-team-${args.name}-${ns}`, chart, {
        provider: args.provider,
        parent: this,
        namespaces: namespace ? new Map([[ns, namespace]]) : undefined,
      });
    }
    const wi = args.workloadIdentity;
    if (wi) {
      const parent = { parent: this, dependsOn: [...(wi.apis ?? [])] };
      const project = wi.project;
      const account = new gcp.serviceaccount.Account(
        `${prefix}-team-${args.name}-gsa`,
        { project, accountId: wi.accountId ?? `team-${args.name}`, displayName: `team ${args.name}` },
        parent,
      );
      for (const role of wi.roles ?? []) {
        new gcp.projects.IAMMember(
          `${prefix}-team-${args.name}-${uniqueName(role)}`,
          { project, role, member: account.member },
          parent,
        );
      }
      this.workloadIdentityBindings = (wi.members ?? []).map(
        (member) =>
          new gcp.serviceaccount.IAMMember(
            `${prefix}-team-${args.name}-wi-${uniqueName(member.replace(/^.*\[|\]$/g, ""))}`,
            { serviceAccountId: account.name, role: "roles/iam.workloadIdentityUser", member },
            { ...parent, dependsOn: [...parent.dependsOn, ...(wi.poolReady ?? [])] },
          ),
      );
      this.googleServiceAccount = account.email;
    } else {
      this.workloadIdentityBindings = [];
    }
    this.registerOutputs({});
  }
}

/**
 * A Pulumi name part for an IAM role or member: readable, and one per text (projects/p/roles/a.b and
 * projects/p/roles/a_b, or members a-b/c and a/b-c, read alike once only letters and digits are kept).
 */
function uniqueName(text: string): string {
  const readable = text.replace(/[^A-Za-z0-9]+/g, "-").replace(/^-|-$/g, "");
  return `${readable}-${createHash("sha256").update(text).digest("hex").slice(0, 6)}`;
}
