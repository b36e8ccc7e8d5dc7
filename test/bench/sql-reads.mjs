/**
 * Preloaded into the benchmarked app (`NODE_OPTIONS=--import …/sql-reads.mjs`, see
 * page-bench.ts): counts the SQL statements the app runs against SQLite that read job output
 * (`SELECT … FROM JobChunk`) at the driver, so that any version of the app (the baseline
 * checkout as well as this one) is measured the same way without code of its own. `reads` are
 * those for followers and pages; `storeChecks` the store's own check of which seqs of a batch
 * are stored already. Written to `$PLAYFORM_BENCH_SQL_READS` as JSON when the process exits.
 *
 * Only the app is patched (the RTE inherits NODE_OPTIONS but opens no database), and the
 * driver is the one the app itself resolves from its own folder (the baseline has a copy).
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const out = process.env.PLAYFORM_BENCH_SQL_READS;
if (out && /dist[\\/]server\.js$/.test(process.argv[1] ?? "")) {
  // The app's own copy: createRequire from its folder shares the module cache its import uses.
  const Database = createRequire(path.resolve(process.argv[1]))("better-sqlite3");
  const probe = new Database(":memory:");
  const Statement = Object.getPrototypeOf(probe.prepare("SELECT 1"));
  probe.close();
  const counts = { reads: 0, storeChecks: 0 };
  const isOutputRead = (sql) => /^\s*SELECT\b/i.test(sql) && /\bFROM\s+[`"]?(?:main[`"]?\.)?[`"]?JobChunk\b/i.test(sql);
  // The store's own "which of these seqs are stored already" check, not a read for a follower.
  const isStoreCheck = (sql) => /[`"]?seq[`"]?\s+IN\s*\(/i.test(sql);
  for (const method of ["all", "get", "iterate"]) {
    const original = Statement[method];
    Statement[method] = function (...args) {
      if (isOutputRead(this.source)) counts[isStoreCheck(this.source) ? "storeChecks" : "reads"]++;
      return original.apply(this, args);
    };
  }
  process.on("exit", () => fs.writeFileSync(out, `${JSON.stringify(counts)}\n`));
}
