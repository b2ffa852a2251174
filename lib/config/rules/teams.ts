/** The cross-field rules of platform:teams: one team per namespace and per name, known teams, apps in their team's namespaces. */
import { nearest, showValue, type ConfigProblem } from "../errors";
import type { PlatformConfig } from "../resolved";
import { cfg } from "./key";

export function teamRules(config: PlatformConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const names = config.teams.map((t) => t.name);
  const claimed = new Map<string, string>();
  config.teams.forEach((team, i) => {
    if (names.indexOf(team.name) !== i) {
      problems.push({
        path: cfg(`teams[${i}].name`),
        problem: `${showValue(team.name)} names two teams`,
        fix: "give each team its own name, or merge the two",
      });
    }
    // A Google service account id has 6 to 30 characters (cloud.google.com/iam/docs/service-accounts-create).
    if (team.workloadIdentity && teamAccountId(team.name).length > 30) {
      problems.push({
        path: cfg(`teams[${i}].workloadIdentity`),
        problem: `is set, but the team's Google service account would be ${showValue(teamAccountId(team.name))}, ${teamAccountId(team.name).length} characters; an account id has at most 30`,
        allowed: "a team name of at most 25 characters with workloadIdentity",
        fix: `shorten platform:teams[${i}].name to at most 25 characters`,
      });
    }
    team.namespaces.forEach((ns, j) => {
      const at = teamNamespacePath(team, i, j);
      const owner = claimed.get(ns);
      if (owner !== undefined) {
        problems.push({
          path: at,
          problem: `${showValue(ns)} is claimed by team ${showValue(owner)} too; a namespace has one team, whose quota, access and isolation apply in it`,
          allowed: "a namespace no other team lists",
          fix: `remove ${showValue(ns)} from one of the two teams, or rename it in one`,
        });
      } else {
        claimed.set(ns, team.name);
      }
    });
    team.allowFrom.forEach((other, j) => {
      if (names.includes(other)) return;
      const suggestion = nearest(other, names);
      problems.push({
        path: cfg(`teams[${i}].allowFrom[${j}]`),
        problem: `${showValue(other)} is not a team` + (suggestion ? ` (did you mean "${suggestion}"?)` : ""),
        allowed: `teams: ${names.join(", ")}`,
        fix: suggestion
          ? `write "${suggestion}"`
          : "name one of the teams, or add that team to platform:teams",
      });
    });
  });
  config.apps.forEach((app, i) => {
    if (app.team === undefined) {
      // The team's quota, access and isolation govern its namespaces' every pod: the app would be the team's unsaid.
      const owner = config.teams.find((t) => t.namespaces.includes(app.namespace));
      if (owner) {
        problems.push({
          path: cfg(`apps[${i}].team`),
          problem: `is not set, but the app's namespace ${showValue(app.namespace)} is team ${showValue(owner.name)}'s, whose quota, access and isolation would apply to it`,
          allowed: `team: ${owner.name}, or a namespace of no team`,
          fix: `set platform:apps[${i}].team to "${owner.name}", or give the app a namespace no team lists`,
        });
      }
      return;
    }
    const team = config.teams.find((t) => t.name === app.team);
    if (!team) {
      const suggestion = nearest(app.team, names);
      problems.push({
        path: cfg(`apps[${i}].team`),
        problem:
          `${showValue(app.team)} is not a team` + (suggestion ? ` (did you mean "${suggestion}"?)` : ""),
        allowed: names.length > 0 ? `teams: ${names.join(", ")}` : "no teams yet (platform:teams)",
        fix: suggestion
          ? `write "${suggestion}"`
          : "add that team to platform:teams, or remove the app's team",
      });
    } else if (!team.namespaces.includes(app.namespace)) {
      problems.push({
        path: cfg(`apps[${i}].namespace`),
        problem: `${showValue(app.namespace)} is not a namespace of team ${showValue(team.name)}`,
        allowed: `the team's namespaces: ${team.namespaces.join(", ")}`,
        fix: `set platform:apps[${i}].namespace to one of them, or remove it (the team's first, ${showValue(team.namespaces[0])})`,
      });
    }
  });
  config.isolation.except.forEach((ns, i) => {
    const team = config.teams.find((t) => t.namespaces.includes(ns));
    if (!team) return;
    problems.push({
      path: cfg(`isolation.except[${i}]`),
      problem: `${showValue(ns)} is a namespace of team ${showValue(team.name)}, and a team's namespaces are always isolated from other teams'`,
      allowed: "app namespaces of no team",
      fix: `remove ${showValue(ns)} from platform:isolation.except; to let other teams in, list them in platform:teams[${config.teams.indexOf(team)}].allowFrom`,
    });
  });
  return problems;
}

/** The config path of a team's namespace; one left to its default is the team's name. */
export function teamNamespacePath(
  team: { name: string; namespaces: readonly string[] },
  i: number,
  j: number,
): string {
  const defaulted = team.namespaces.length === 1 && team.namespaces[0] === team.name;
  return cfg(defaulted ? `teams[${i}].name` : `teams[${i}].namespaces[${j}]`);
}

/** The account id of a team's Google service account. */
export function teamAccountId(team: string): string {
  return `team-${team}`;
}
