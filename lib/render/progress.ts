import type { RenderProgress } from "./run";

/** When a render starts reporting, and how often: a short render says nothing. */
export interface ProgressTiming {
  /** @default 3000 ms */
  readonly after: number;
  /** @default 5000 ms */
  readonly every: number;
}

/**
 * Progress lines for a long render, e.g. `rendering books/linkerd: 4,312 resources registered (12 s)`:
 * the first once `after` has passed, then one every `every`, and one when the render moves on to
 * resolving dependencies.
 */
export function progressReporter(
  label: string,
  write: (line: string) => void,
  now: () => number = Date.now,
  timing: ProgressTiming = { after: 3000, every: 5000 },
): (progress: RenderProgress) => void {
  const start = now();
  let last: number | undefined;
  let phase: RenderProgress["phase"] = "registering";
  return (progress) => {
    const t = now();
    const moved = progress.phase !== phase;
    phase = progress.phase;
    const due = last === undefined ? t - start >= timing.after : t - last >= timing.every;
    if (!due && !(moved && last !== undefined)) return;
    last = t;
    const seconds = Math.round((t - start) / 1000);
    const count = progress.resources.toLocaleString("en-US");
    write(
      progress.phase === "registering"
        ? `rendering ${label}: ${count} resource${progress.resources === 1 ? "" : "s"} registered (${seconds} s)`
        : `rendering ${label}: resolving what ${count} resources wait for (${seconds} s)`,
    );
  };
}
