// Adds up vitest's JSON reports of the suites into one closing line: "N passed, N failed".
// A test file that failed before any of its tests could run (a broken import, a failing
// beforeAll) counts as one failure, so it cannot pass unnoticed.
import fs from "node:fs";

let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of process.argv.slice(2)) {
  if (!fs.existsSync(file)) {
    console.error(`no report ${file}: that suite did not run to the end`);
    failed++;
    continue;
  }
  const report = JSON.parse(fs.readFileSync(file, "utf8"));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + (report.numTodoTests ?? 0);
  for (const suite of report.testResults ?? []) {
    const anyFailedTest = (suite.assertionResults ?? []).some((test) => test.status === "failed");
    if (suite.status === "failed" && !anyFailedTest) failed++;
  }
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
