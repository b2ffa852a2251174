import type { RenderProgress } from "./run";

export interface ProgressOptions {
  /**
   * What loading the program means, such as `compiling index.ts with ts-node, transpile-only`; asked
   * when the program starts loading.
   */
  readonly loading?: () => string | undefined;
  /** The clock, in milliseconds. @default Date.now */
  readonly now?: () => number;
  /** When the first line about registering comes, and how often the next. @default 1000 and 5000 ms */
  readonly registering?: { readonly after: number; readonly every: number };
}

/**
 * Progress lines on stderr, from the first second, each saying what the render is doing and for how
 * long it has run, e.g.
 *
 *   rendering shop/dev: loading index.ts (compiling it with ts-node, transpile-only)
 *   rendering shop/dev: registering: 4,312 resources in 96 components (12 s)
 *   rendering shop/dev: resolving what 4,500 resources wait for (14 s)
 *
 * A line when each phase starts; while the program registers, one after a second and then one every
 * five, once the program has registered for a second. Counts are those of the summary: resources are cloud and cluster objects, components group them.
 */
export function progressReporter(
  label: string,
  write: (line: string) => void,
  options: ProgressOptions = {},
): (progress: RenderProgress) => void {
  const now = options.now ?? Date.now;
  const timing = options.registering ?? { after: 1000, every: 5000 };
  const start = now();
  let phase: RenderProgress["phase"] | undefined;
  let registering: { since: number; last?: number } | undefined;
  const plural = (n: number, word: string) => `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;
  return (progress) => {
    const t = now();
    const seconds = `(${Math.round((t - start) / 1000)} s)`;
    const moved = progress.phase !== phase;
    phase = progress.phase;
    const say = (what: string) => write(`rendering ${label}: ${what}`);
    switch (progress.phase) {
      case "loading":
        if (moved) {
          const how = options.loading?.();
          say(`loading the program${how ? `: ${how}` : ""}`);
        }
        return;
      case "registering": {
        registering ??= { since: t };
        const due =
          registering.last === undefined
            ? t - registering.since >= timing.after
            : t - registering.last >= timing.every;
        if (!due || progress.resources + progress.components === 0) return;
        registering.last = t;
        say(
          `registering: ${plural(progress.resources, "resource")} in ${plural(progress.components, "component")} ${seconds}`,
        );
        return;
      }
      case "resolving":
        if (moved) say(`resolving what ${plural(progress.resources, "resource")} wait for ${seconds}`);
        return;
      case "checking":
        if (moved) say(`checking the safety invariants ${seconds}`);
        return;
      case "templating":
        if (moved) say(`templating the Helm releases with helm ${seconds}`);
        return;
      case "writing":
        if (moved) say(`writing the files ${seconds}`);
        return;
    }
  };
}
