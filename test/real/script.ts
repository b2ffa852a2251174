import { MissingTools } from "./apiServer";

/**
 * Runs one of the real tier's scripts and exits with its code. A missing tool skips it, saying which, and
 * under CI=true fails it, since CI builds every tool; any other error fails it in one line.
 */
export function runTierScript(name: string, main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      if (err instanceof MissingTools) {
        if (process.env.CI === "true") {
          console.error(`${name}: ${err.message}: CI must run it`);
          process.exit(1);
        }
        console.log(`${name}: ${err.message}: skipped`);
        process.exit(0);
      }
      console.error(`${name} failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}

/** A tier script's steps, each with the time since the previous one, printed when the script ends. */
export function stepTimer(): { step: (what: string) => void; printTimings: () => void } {
  const timings: [string, number][] = [];
  let mark = Date.now();
  return {
    step: (what) => {
      const now = Date.now();
      timings.push([what, now - mark]);
      mark = now;
    },
    printTimings: () => {
      for (const [what, ms] of timings) console.log(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${what}`);
    },
  };
}
