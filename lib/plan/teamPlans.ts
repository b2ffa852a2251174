/** The plan of each team (`Plan.teams`): its callers, its apps and its Google service account. */
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
  }));
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
