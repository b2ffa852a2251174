/** The cross-field rules of Autopilot clusters: regional, and no key for what Autopilot manages itself. */
import type { EnvironmentInput } from "../environment";
import { showValue, type ConfigProblem } from "../errors";
import type { PlatformConfig } from "../resolved";
import { cfg } from "./key";

export function autopilotRules(input: EnvironmentInput, config: PlatformConfig): ConfigProblem[] {
  const c = input.cluster ?? {};
  const problems: ConfigProblem[] = [];
  if (config.cluster.mode !== "autopilot") {
    if (c.autopilot !== undefined) {
      problems.push({
        path: cfg("cluster.autopilot"),
        problem: `is set, but cluster.mode is "${config.cluster.mode}"; it applies to Autopilot clusters only`,
        fix: `remove platform:cluster.autopilot, or set platform:cluster.mode to "autopilot"`,
      });
    }
    return problems;
  }
  if (!config.cluster.regional) {
    problems.push({
      path: cfg("cluster.location"),
      problem: `${showValue(config.cluster.location)} is a zone, but Autopilot clusters are regional`,
      allowed: "a region such as " + config.gcp.region,
      fix: `set platform:cluster.location to "${config.gcp.region}" or remove it`,
    });
  }
  // Autopilot manages nodes, DNS caching and the dataplane itself.
  for (const key of ["nodePools", "nodeLocalDns", "nodeServiceAccountRoles"] as const) {
    if (c[key] !== undefined) {
      problems.push({
        path: cfg(`cluster.${key}`),
        problem: "is set, but Autopilot manages nodes itself and ignores it",
        fix: `remove platform:cluster.${key}, or set platform:cluster.mode to "standard"`,
      });
    }
  }
  if (c.dataplaneV2 === false) {
    problems.push({
      path: cfg("cluster.dataplaneV2"),
      problem: "is false, but Autopilot clusters always run Dataplane V2",
      fix: "remove platform:cluster.dataplaneV2",
    });
  }
  return problems;
}
