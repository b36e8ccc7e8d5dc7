// Adds up vitest's JSON reports of the suites into one closing line: "N passed, N failed".
// A test file that failed before any of its tests could run (a broken import, a failing
// beforeAll) counts as one failure, so it cannot pass unnoticed.
import fs from "node:fs";

let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];
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
    const failedTests = (suite.assertionResults ?? []).filter((test) => test.status === "failed");
    for (const test of failedTests) {
      failures.push(`${suite.name} > ${test.fullName}\n${firstLines(test.failureMessages)}`);
    }
    if (suite.status === "failed" && failedTests.length === 0) {
      failed++;
      failures.push(`${suite.name} (failed before its tests ran)\n${firstLines([suite.message])}`);
    }
  }
}
// The failures are repeated last, so that the end of a long CI log names them.
if (failures.length > 0) {
  console.log("\n== failed");
  for (const failure of failures) console.log(`- ${failure}\n`);
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);

/** The first lines of a failure's messages, enough to recognise it without the whole stack. */
function firstLines(messages) {
  return (messages ?? [])
    .filter(Boolean)
    .flatMap((message) => String(message).split("\n").slice(0, 8))
    .map((line) => `    ${line}`)
    .join("\n");
}
