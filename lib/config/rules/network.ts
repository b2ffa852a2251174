/** The cross-field rules of platform:network: valid, non-overlapping ranges and the control plane's /28. */
import { overlaps, parseCidr } from "../cidr";
import { showValue, type ConfigProblem } from "../errors";
import type { PlatformConfig } from "../resolved";
import { cfg } from "./key";

export function networkRules(config: PlatformConfig): ConfigProblem[] {
  if (config.cluster.mode === "existing") return [];
  const problems: ConfigProblem[] = [];
  const n = config.network;
  const ranges = [
    ["nodesCidr", n.nodesCidr],
    ["podsCidr", n.podsCidr],
    ["servicesCidr", n.servicesCidr],
    ["proxyOnlyCidr", n.proxyOnlyCidr],
    ["controlPlaneCidr", n.controlPlaneCidr],
  ] as const;
  for (const [key, value] of ranges) {
    if (parseCidr(value) === undefined) {
      problems.push({
        path: cfg(`network.${key}`),
        problem: `${showValue(value)} is not a valid IPv4 CIDR (octets 0-255, prefix 0-32, no host bits set)`,
        fix: "use a network address such as 10.0.0.0/20",
      });
    }
  }
  if (problems.length > 0) return problems;
  if (!n.controlPlaneCidr.endsWith("/28")) {
    problems.push({
      path: cfg("network.controlPlaneCidr"),
      problem: `${showValue(n.controlPlaneCidr)} is not a /28; GKE requires exactly a /28 for the control plane of a private cluster`,
      fix: "use a /28 such as 172.16.0.0/28",
    });
  }
  for (let i = 0; i < ranges.length; i++) {
    for (let j = i + 1; j < ranges.length; j++) {
      if (overlaps(ranges[i][1], ranges[j][1])) {
        problems.push({
          path: cfg(`network.${ranges[j][0]}`),
          problem: `${showValue(ranges[j][1])} overlaps network.${ranges[i][0]} ${showValue(ranges[i][1])}`,
          fix: "choose ranges that do not overlap",
        });
      }
    }
  }
  return problems;
}
