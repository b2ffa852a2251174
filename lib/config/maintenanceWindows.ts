/** Maintenance-window arithmetic: how many windows a weekly schedule has in GKE's rolling 32 days. */

const weekdayOrder = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"] as const;

/**
 * The fewest windows a weekly schedule has in any 32 consecutive days: 32 days are four weeks and four
 * days, and the worst four days hold as few of the window's days as possible.
 */
export function fewestWindowsIn32Days(days: readonly (typeof weekdayOrder)[number][]): number {
  const on = weekdayOrder.map((d) => days.includes(d));
  let fewest = Number.POSITIVE_INFINITY;
  for (let first = 0; first < 7; first++) {
    let count = 0;
    for (let day = 0; day < 32; day++) if (on[(first + day) % 7]) count++;
    fewest = Math.min(fewest, count);
  }
  return fewest;
}
