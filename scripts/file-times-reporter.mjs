// A vitest reporter that appends each test file's wall time (its hooks included, which the
// JSON report's start and end leave out: an integration file spends most of its time starting
// Playform in beforeAll) to $PLAYFORM_FILE_TIMES as lines "seconds<TAB>path". test-all.sh
// passes it; scripts/test-summary.mjs prints the slowest files from it.
import fs from "node:fs";
import path from "node:path";

export default class FileTimesReporter {
  onTestModuleEnd(testModule) {
    const out = process.env.PLAYFORM_FILE_TIMES;
    if (!out) return;
    const { duration, setupDuration, collectDuration, prepareDuration } = testModule.diagnostic();
    const seconds = ((prepareDuration ?? 0) + (collectDuration ?? 0) + (setupDuration ?? 0) + (duration ?? 0)) / 1000;
    fs.appendFileSync(out, `${seconds.toFixed(1)}\t${testModule.project.name}: ${path.relative(process.cwd(), testModule.moduleId)}\n`);
  }
}
