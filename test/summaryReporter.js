/**
 * Prints one closing line, "N passed, N failed, N skipped", as the very last line of `npm test`, so
 * any CI can read the result without parsing jest's format. Jest prints its own summary after every
 * custom reporter, so the line is written when the process exits (stderr, like jest's report).
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests } = results;
    const line = `${numPassedTests} passed, ${numFailedTests} failed, ${numPendingTests + numTodoTests} skipped\n`;
    process.once("exit", () => process.stderr.write(line));
  }
}
module.exports = SummaryReporter;
