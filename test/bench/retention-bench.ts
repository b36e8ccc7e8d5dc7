/**
 * `npm run bench:retention`: a soak of job output, with and without retention. Each round is
 * one day: JOBS_PER_ROUND finished jobs (3 forms, each with a log of ~LOG_KIB KiB, its events
 * and markers) go into two SQLite databases; the second then runs retention with
 * PLAYFORM_RETENTION_DAYS=DAYS as of that day. Per round it prints both databases' file size
 * (after a WAL checkpoint), output rows, free pages, and the run's time: the baseline grows
 * with every round; with retention the output rows level off after DAYS rounds and SQLite
 * reuses the freed pages, so the file then grows only by the job rows themselves (kept by
 * design, with their cached recap: about 1 KiB per job). Figures are printed, never asserted.
 *
 *   npm run bench:retention [-- --rounds 12 --jobs 450 --days 3]
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { closeDb } from "../../server/data/db";
import { applyMigrations } from "../../server/data/migrate";
import { runRetention } from "../../server/retention/run";
import { databaseFigures, seedJobsWithOutput, seedOwners, type SeedJob } from "../support/output-rows";

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

const ROUNDS = arg("rounds", 12);
const JOBS_PER_ROUND = arg("jobs", 450);
const DAYS = arg("days", 3);
/** Times the ~1 KiB sample log is repeated per job. */
const LOG_REPEAT = 8;
const FORMS = ["alpha", "beta", "gamma"];
const DAY = 24 * 3600 * 1000;
const START = Date.UTC(2026, 0, 1, 12);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-retention-bench-"));
const baseline = path.join(dir, "baseline.db");
const retained = path.join(dir, "retained.db");

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const pad = (text: string | number, width: number) => String(text).padStart(width);

async function main(): Promise<void> {
  for (const file of [baseline, retained]) {
    await applyMigrations(`file:${file}`);
    seedOwners(file, FORMS);
  }
  process.env.DATABASE_URL = `file:${retained}`;
  console.log(
    `${ROUNDS} rounds (days) of ${JOBS_PER_ROUND} finished jobs, logs of ~${LOG_REPEAT} KiB; retention: PLAYFORM_RETENTION_DAYS=${DAYS}, default batches`,
  );
  console.log(
    [
      "round",
      pad("jobs", 6),
      pad("baseline size", 14),
      pad("chunks", 8),
      pad("with retention", 15),
      pad("chunks", 8),
      pad("free pages", 11),
      pad("purged", 7),
      pad("run ms", 7),
    ].join(" | "),
  );
  for (let round = 1; round <= ROUNDS; round++) {
    const day = START + round * DAY;
    const jobs: SeedJob[] = Array.from({ length: JOBS_PER_ROUND }, (_, i) => {
      const finishedAt = new Date(day - DAY + ((i + 1) / JOBS_PER_ROUND) * (DAY / 2));
      return {
        formName: FORMS[i % FORMS.length]!,
        status: "success",
        createdAt: new Date(finishedAt.getTime() - 60_000),
        finishedAt,
        textRepeat: LOG_REPEAT,
      };
    });
    seedJobsWithOutput(baseline, jobs);
    seedJobsWithOutput(retained, jobs);
    const started = performance.now();
    const report = await runRetention({ settings: { days: DAYS, keepPerForm: null, auditDays: null, hour: null }, now: new Date(day) });
    const ms = performance.now() - started;
    const a = databaseFigures(baseline);
    const b = databaseFigures(retained);
    console.log(
      [
        pad(round, 5),
        pad(a.jobs, 6),
        pad(mib(a.bytes), 14),
        pad(a.chunks, 8),
        pad(mib(b.bytes), 15),
        pad(b.chunks, 8),
        pad(b.freePages, 11),
        pad(report?.jobs ?? 0, 7),
        pad(ms.toFixed(0), 7),
      ].join(" | "),
    );
  }
  await closeDb();
  fs.rmSync(dir, { recursive: true, force: true });
}

await main();
