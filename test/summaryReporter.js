/**
 * Prints one closing line, "N passed, N failed, N skipped", after jest's own report, so any CI can
 * read the result without parsing jest's format.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests } = results;
    console.log(
      `${numPassedTests} passed, ${numFailedTests} failed, ${numPendingTests + numTodoTests} skipped`,
    );
  }
}
module.exports = SummaryReporter;
