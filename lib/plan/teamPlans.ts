/** The plan of each team (`Plan.teams`): its callers, its apps and its Google service account. */
import type { TeamRoute } from "../manifests";
import { teamAccountId, teamCallerNamespaces, type PlatformConfig, type Team } from "../config";

/** One team, every fact about it derived once (docs/teams.md). */
export interface TeamPlan {
  /** The team as configured, its defaults applied. */
  readonly team: Team;
  /**
   * The namespaces whose workloads may call the team's: its own, and those of the teams its `allowFrom`
   * names. The mesh's grants and the NetworkPolicy of each of its namespaces let them in.
   */
  readonly callerNamespaces: readonly string[];
  /** Its apps' names, by namespace (each of its namespaces, empty where none runs). */
  readonly apps: Readonly<Record<string, readonly string[]>>;
  /** Its Google service account, where it has one (`teams[].workloadIdentity`). */
  readonly googleServiceAccount?: TeamServiceAccount;
  /**
   * The hosts and path prefixes each of its namespaces may route (its exposed apps' `expose.host` and
   * `expose.path`; empty where none is exposed): the only ones its Ingresses and Gateway routes may claim.
   */
  readonly routes: Readonly<Record<string, readonly TeamRoute[]>>;
}

/** A team's Google service account, which its apps' Kubernetes service accounts act as through Workload Identity. */
export interface TeamServiceAccount {
  /** The account id, `team-<name>`. */
  readonly accountId: string;
  /** Its email, which each of the team's apps' ServiceAccounts names in `iam.gke.io/gcp-service-account`. */
  readonly email: string;
  /** Project roles it holds. */
  readonly roles: readonly string[];
  /** The Workload Identity members that may act as it: each app's ServiceAccount, `serviceAccount:<project>.svc.id.goog[<namespace>/<app>]`. */
  readonly members: readonly string[];
}

/** Every team, in the config's order. */
export function teamPlansOf(config: PlatformConfig): TeamPlan[] {
  return config.teams.map((team) => ({
    team,
    callerNamespaces: teamCallerNamespaces(config, team),
    apps: Object.fromEntries(
      team.namespaces.map((ns) => [ns, config.apps.filter((a) => a.namespace === ns).map((a) => a.name)]),
    ),
    googleServiceAccount: teamServiceAccount(config, team),
    routes: Object.fromEntries(team.namespaces.map((ns) => [ns, namespaceRoutes(config, ns)])),
  }));
}

/** The routes of a namespace's exposed apps, each once, in the config's order. */
function namespaceRoutes(config: PlatformConfig, namespace: string): TeamRoute[] {
  const routes: TeamRoute[] = [];
  for (const app of config.apps) {
    const e = app.expose;
    if (app.namespace !== namespace || !e) continue;
    if (!routes.some((r) => r.host === e.host && r.path === e.path))
      routes.push({ host: e.host, path: e.path });
  }
  return routes;
}

/** A team's Google service account, bound to every app of its namespaces. */
export function teamServiceAccount(config: PlatformConfig, team: Team): TeamServiceAccount | undefined {
  if (!team.workloadIdentity) return undefined;
  const accountId = teamAccountId(team.name);
  return {
    accountId,
    email: `${accountId}@${config.gcp.project}.iam.gserviceaccount.com`,
    roles: team.workloadIdentity.roles,
    members: config.apps
      .filter((a) => team.namespaces.includes(a.namespace))
      .map((a) => `serviceAccount:${config.gcp.project}.svc.id.goog[${a.namespace}/${a.name}]`),
  };
}
