/**
 * Prints one closing line as the very last line of `npm test`, so anyone (and any CI) can read the
 * result without parsing jest's format: "N passed, N failed, N skipped", then each group of skipped
 * tests with what it needs and the command that enables it (test/skips.js), e.g.
 *
 *   822 passed, 0 failed, 61 skipped: 52 need the upstream reference copies (...; enable: ...), ...
 *
 * Jest prints its own summary after every custom reporter, so the line is written when the process
 * exits (stderr, like jest's report). Under CI=true, a test skipped for want of something CI has
 * fails the run.
 */
const path = require("path");
const { groups, groupOf } = require("./skips");

class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.error = undefined;
  }

  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests } = results;
    const counts = new Map(groups.map((g) => [g.id, 0]));
    const ownSkips = new Map();
    for (const file of results.testResults) {
      for (const t of file.testResults) {
        if (t.status !== "pending" && t.status !== "todo") continue;
        const group = groupOf([...t.ancestorTitles, t.title].join(" "));
        if (group) counts.set(group.id, counts.get(group.id) + 1);
        else {
          const name = path.relative(this.rootDir, file.testFilePath);
          ownSkips.set(name, (ownSkips.get(name) ?? 0) + 1);
        }
      }
    }
    const parts = groups
      .filter((g) => counts.get(g.id) > 0)
      .map((g) => `${counts.get(g.id)} need ${g.needs} (enable: ${g.enable})`);
    for (const [file, n] of ownSkips) parts.push(`${n} skipped by ${file} itself`);
    const skipped = numPendingTests + numTodoTests;
    let line = `${numPassedTests} passed, ${numFailedTests} failed, ${skipped} skipped${parts.length > 0 ? `: ${parts.join("; ")}` : ""}`;
    const missing = groups.filter((g) => g.ci && counts.get(g.id) > 0);
    if (process.env.CI === "true" && missing.length > 0) {
      const what = missing.map((g) => g.needs).join(", ");
      line += `. CI=true: CI has ${what}, so these tests must run, not skip`;
      this.error = new Error(`tests skipped under CI=true for want of ${what}`);
    }
    process.once("exit", () => process.stderr.write(`${line}\n`));
  }

  /** A skip CI should not have fails the run (jest asks each reporter once the run is complete). */
  getLastError() {
    return this.error;
  }
}
module.exports = SummaryReporter;
