// Adds up vitest's JSON reports of the suites into one closing line: "N passed, N failed".
// A test file that failed before any of its tests could run (a broken import, a failing
// beforeAll) counts as one failure, so it cannot pass unnoticed. Before it: the wall time of
// each step (`--steps FILE`, lines "step seconds" written by test-all.sh) and the slowest files.
import fs from "node:fs";

const args = process.argv.slice(2);
let stepsFile = null;
let fileTimesFile = null;
while (args[0] === "--steps" || args[0] === "--file-times") {
  if (args[0] === "--steps") stepsFile = args[1];
  else fileTimesFile = args[1];
  args.splice(0, 2);
}

let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];
const fileTimes = [];
for (const file of args) {
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
if (stepsFile && fs.existsSync(stepsFile)) {
  const steps = fs
    .readFileSync(stepsFile, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => line.split(" "));
  const total = steps.reduce((sum, [, seconds]) => sum + Number(seconds), 0);
  console.log("\n== wall time per step");
  for (const [step, seconds] of steps) console.log(`  ${step.padEnd(12)} ${minutes(Number(seconds))}`);
  console.log(`  ${"total".padEnd(12)} ${minutes(total)}`);
}
// Written by scripts/file-times-reporter.mjs: "seconds<TAB>suite: path", hooks included.
if (fileTimesFile && fs.existsSync(fileTimesFile)) {
  for (const line of fs.readFileSync(fileTimesFile, "utf8").split("\n").filter(Boolean)) {
    const [seconds, name] = line.split("\t");
    fileTimes.push({ name, seconds: Number(seconds) });
  }
}
if (fileTimes.length > 0) {
  console.log("\n== slowest 15 test files");
  for (const { name, seconds } of fileTimes.sort((a, b) => b.seconds - a.seconds).slice(0, 15)) {
    console.log(`  ${seconds.toFixed(1).padStart(7)} s  ${name}`);
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

function minutes(seconds) {
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, "0")} s`;
}
