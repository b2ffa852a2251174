/** The cross-field rules of platform:cluster.maintenance: GKE's minimum maintenance time and its exclusions. */
import { showValue, type ConfigProblem } from "../errors";
import { fewestWindowsIn32Days } from "../maintenanceWindows";
import type { PlatformConfig } from "../resolved";
import { cfg } from "./key";

/** GKE refuses a maintenance policy it cannot keep; these are its rules, checked before `pulumi up`. */
export function maintenanceRules(m: NonNullable<PlatformConfig["cluster"]["maintenance"]>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  // GKE: "at least 48 hours of availability in any 32-day rolling window", counting only windows of 4
  // hours or more (cloud.google.com/kubernetes-engine/docs/concepts/maintenance-windows-and-exclusions).
  const windows = fewestWindowsIn32Days(m.days);
  const hours = m.hours >= 4 ? windows * m.hours : 0;
  if (hours < 48) {
    problems.push({
      path: cfg("cluster.maintenance"),
      problem:
        m.hours < 4
          ? `has windows of ${m.hours}h; GKE counts only windows of 4h or more, so it finds no maintenance time at all`
          : `gives ${hours}h of maintenance in the worst 32 days (${windows} windows of ${m.hours}h: some 32 days hold only four of each weekday); GKE rejects less than 48h`,
      allowed: "windows of at least 4h whose fewest occurrences in any 32 days add up to 48h or more",
      fix: "add days or hours, e.g. days [SA, SU] with hours 6",
    });
  }
  const names = new Set<string>();
  m.exclusions.forEach((e, i) => {
    const at = cfg(`cluster.maintenance.exclusions[${i}]`);
    const start = Date.parse(e.start);
    const end = Date.parse(e.end);
    if (Number.isNaN(start) || Number.isNaN(end)) {
      problems.push({
        path: at,
        problem: `${showValue(Number.isNaN(start) ? e.start : e.end)} is not a date`,
        fix: "write a real UTC date and time, such as 2026-12-20T00:00:00Z",
      });
    } else if (end <= start) {
      problems.push({
        path: `${at}.end`,
        problem: `${showValue(e.end)} is not after start ${showValue(e.start)}`,
        fix: "set end after start",
      });
    } else if (e.scope === "NO_UPGRADES" && end - start > 30 * 86_400_000) {
      // GKE: an exclusion of scope "No upgrades" lasts at most 30 days (same page).
      problems.push({
        path: `${at}.end`,
        problem: `makes the NO_UPGRADES exclusion ${showValue(e.name)} ${Math.ceil((end - start) / 86_400_000)} days long; GKE allows at most 30`,
        allowed: "NO_UPGRADES for up to 30 days; NO_MINOR_UPGRADES or NO_MINOR_OR_NODE_UPGRADES for longer",
        fix: "end it within 30 days of start, or hold back only minor upgrades with scope NO_MINOR_UPGRADES",
      });
    }
    if (names.has(e.name)) {
      problems.push({
        path: `${at}.name`,
        problem: `${showValue(e.name)} names two exclusions`,
        fix: "give each exclusion its own name",
      });
    }
    names.add(e.name);
  });
  return problems;
}
