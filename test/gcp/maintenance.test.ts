import { fewestWindowsIn32Days } from "../../lib/config/maintenanceWindows";
import { at, one } from "../helpers";
import { CLUSTER, planProblems, renderCluster } from "./gke";

const window = { days: ["SA", "SU"], start: "02:00", hours: 6 };

describe("maintenance", () => {
  test("some 32 days hold only four of each weekday: that is what GKE's 48 hours are counted on", () => {
    expect(fewestWindowsIn32Days(["SA"])).toBe(4);
    expect(fewestWindowsIn32Days(["SA", "SU"])).toBe(8);
    // Four weeks and the four days MO-TH: a span starting Friday holds one more of FR, SA, SU, MO.
    expect(fewestWindowsIn32Days(["MO", "TU", "WE", "TH", "FR", "SA", "SU"])).toBe(32);
    expect(fewestWindowsIn32Days(["MO", "WE", "FR"])).toBe(13);
  });

  test("one 11h window a week gives 44h in the worst 32 days, and GKE refuses it", () => {
    expect(planProblems({ cluster: { maintenance: { days: ["SA"], start: "02:00", hours: 11 } } })).toEqual([
      {
        path: "platform:cluster.maintenance",
        problem:
          "gives 44h of maintenance in the worst 32 days (4 windows of 11h: some 32 days hold only four of each weekday); GKE rejects less than 48h",
        allowed: "windows of at least 4h whose fewest occurrences in any 32 days add up to 48h or more",
        fix: "add days or hours, e.g. days [SA, SU] with hours 6",
      },
    ]);
    expect(planProblems({ cluster: { maintenance: { days: ["SA"], start: "02:00", hours: 3 } } })).toEqual([
      expect.objectContaining({
        problem:
          "has windows of 3h; GKE counts only windows of 4h or more, so it finds no maintenance time at all",
      }),
    ]);
    // Exactly 48h in the worst 32 days is enough.
    expect(() =>
      planProblems({ cluster: { maintenance: { days: ["SA"], start: "02:00", hours: 12 } } }),
    ).toThrow("expected a ConfigError");
  });

  test("exclusions hold upgrades back for a freeze", async () => {
    const cluster = one(
      await renderCluster({
        tier: "prod",
        cluster: {
          maintenance: {
            ...window,
            exclusions: [
              { name: "year-end", start: "2026-12-20T00:00:00Z", end: "2027-01-05T00:00:00Z" },
              {
                name: "minor-hold",
                start: "2026-10-01T00:00:00Z",
                end: "2027-02-01T00:00:00Z",
                scope: "NO_MINOR_UPGRADES",
              },
            ],
          },
        },
      }),
      CLUSTER,
    );
    expect(at(cluster, "maintenancePolicy", "maintenanceExclusions")).toEqual([
      {
        exclusionName: "year-end",
        startTime: "2026-12-20T00:00:00Z",
        endTime: "2027-01-05T00:00:00Z",
        exclusionOptions: { scope: "NO_UPGRADES" },
      },
      {
        exclusionName: "minor-hold",
        startTime: "2026-10-01T00:00:00Z",
        endTime: "2027-02-01T00:00:00Z",
        exclusionOptions: { scope: "NO_MINOR_UPGRADES" },
      },
    ]);
  });

  test("an exclusion GKE would refuse is refused", () => {
    const exclusion = (e: Record<string, unknown>) => ({
      cluster: { maintenance: { ...window, exclusions: [{ name: "freeze", ...e }] } },
    });
    expect(planProblems(exclusion({ start: "2026-12-20T00:00:00Z", end: "2027-02-01T00:00:00Z" }))).toEqual([
      {
        path: "platform:cluster.maintenance.exclusions[0].end",
        problem: 'makes the NO_UPGRADES exclusion "freeze" 43 days long; GKE allows at most 30',
        allowed: "NO_UPGRADES for up to 30 days; NO_MINOR_UPGRADES or NO_MINOR_OR_NODE_UPGRADES for longer",
        fix: "end it within 30 days of start, or hold back only minor upgrades with scope NO_MINOR_UPGRADES",
      },
    ]);
    expect(planProblems(exclusion({ start: "2026-12-20T00:00:00Z", end: "2026-12-19T00:00:00Z" }))).toEqual([
      {
        path: "platform:cluster.maintenance.exclusions[0].end",
        problem: '"2026-12-19T00:00:00Z" is not after start "2026-12-20T00:00:00Z"',
        fix: "set end after start",
      },
    ]);
    expect(planProblems(exclusion({ start: "2026-13-40T00:00:00Z", end: "2026-12-19T00:00:00Z" }))).toEqual([
      {
        path: "platform:cluster.maintenance.exclusions[0]",
        problem: '"2026-13-40T00:00:00Z" is not a date',
        fix: "write a real UTC date and time, such as 2026-12-20T00:00:00Z",
      },
    ]);
  });
});
