/**
 * Retention against a real SQLite database with 3,000 finished jobs of 3 forms (each with
 * chunks, events and markers) and a few unfinished ones: by keep-per-form, then by days; never
 * an unfinished job; the recap cached first and still served, the output answering 410, the
 * analyses still answering; a second run a no-op; audit retention; batches no larger than asked.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALL_JOBS } from "../../server/data/job-scope";
import Database from "better-sqlite3";
import { closeDb, getDb } from "../../server/data/db";
import { DomainError } from "../../server/errors";
import { recapOfJob, timelineOfJob } from "../../server/jobs/analysis";
import { formTrend } from "../../server/jobs/compare";
import { formIdempotence } from "../../server/jobs/idempotence";
import { FINAL_STATUSES } from "../../server/jobs/lifecycle";
import { outputWindow, taskIndex } from "../../server/jobs/output";
import { jobRecap } from "../../server/jobs/recap";
import { previewRetention, retentionStatus, runRetention } from "../../server/retention/run";
import { nextRetentionRun } from "../../server/retention/schedule";
import { retentionSettings, type RetentionSettings } from "../../server/retention/settings";
import { loadAppConfig } from "../../server/config";
import { databaseFigures, seedAuditEvents, seedJobsWithOutput, seedOwners, type SeedJob } from "../support/output-rows";
import { useTempSqliteDatabase } from "../support/temp-db";

const DAY = 24 * 3600 * 1000;
const NOW = new Date(Date.UTC(2026, 11, 1, 3, 0));
const FORMS = ["alpha", "beta", "gamma"];
const PER_FORM = 1_000;
const SMALL = { jobBatch: 97, rowBatch: 250, pauseMs: 0 };
const off: RetentionSettings = { days: null, keepPerForm: null, auditDays: null, hour: null };

let cleanup: () => Promise<void>;
let file: string;
let ids: number[] = [];
const unfinished: number[] = [];

/** Job i of 3,000 finished (i / 30) days before NOW: ages 0 to 100 days, the three forms in turn. */
function finishedJob(i: number): SeedJob {
  const finishedAt = new Date(NOW.getTime() - ((3 * PER_FORM - i) / 30) * DAY);
  return {
    formName: FORMS[i % 3]!,
    status: (["success", "failed", "aborted", "abandoned"] as const)[i % 4]!,
    createdAt: new Date(finishedAt.getTime() - 60_000),
    finishedAt,
  };
}

beforeAll(async () => {
  const db = await useTempSqliteDatabase();
  cleanup = db.cleanup;
  file = db.url.slice("file:".length);
  seedOwners(file, FORMS);
  ids = seedJobsWithOutput(
    file,
    Array.from({ length: 3 * PER_FORM }, (_, i) => finishedJob(i)),
  );
  // Old jobs that are not final: whatever the settings, their output stays.
  const old = new Date(NOW.getTime() - 400 * DAY);
  unfinished.push(
    ...seedJobsWithOutput(
      file,
      (["queued", "running", "approval"] as const).flatMap((status) =>
        FORMS.map((formName) => ({ formName, status, createdAt: old, finishedAt: null })),
      ),
    ),
  );
}, 60_000);
afterAll(async () => {
  await cleanup?.();
});

async function keptFinished(formName: string): Promise<number> {
  return getDb().job.count({ where: { formName, status: { in: [...FINAL_STATUSES] }, outputPurgedAt: null } });
}

async function expectUnfinishedUntouched(): Promise<void> {
  expect(await getDb().jobChunk.count({ where: { jobId: { in: unfinished } } })).toBe(unfinished.length * 3);
  expect(await getDb().jobMarker.count({ where: { jobId: { in: unfinished } } })).toBe(unfinished.length * 3);
  expect(await getDb().job.count({ where: { id: { in: unfinished }, outputPurgedAt: { not: null } } })).toBe(0);
}

describe("settings", () => {
  it("are all off by default, and a bad value stops the start naming the variable", () => {
    expect(retentionSettings({})).toEqual(off);
    expect(retentionSettings({ PLAYFORM_RETENTION_DAYS: "", PLAYFORM_RETENTION_KEEP_PER_FORM: " 20 " })).toEqual({
      ...off,
      keepPerForm: 20,
    });
    expect(() => loadAppConfig({ PLAYFORM_RETENTION_DAYS: "0" })).toThrow(/PLAYFORM_RETENTION_DAYS: must be at least 1/);
    expect(() => loadAppConfig({ PLAYFORM_RETENTION_HOUR: "24" })).toThrow(/PLAYFORM_RETENTION_HOUR: must be at most 23/);
    expect(() => loadAppConfig({ PLAYFORM_AUDIT_RETENTION_DAYS: "1.5" })).toThrow(/PLAYFORM_AUDIT_RETENTION_DAYS: must be a whole number/);
  });

  it("plans the daily run: at the hour (UTC) when set, else a few minutes after start, then daily", () => {
    const at = new Date(Date.UTC(2026, 11, 1, 10, 30));
    expect(nextRetentionRun({ hour: 3 }, at, true).toISOString()).toBe("2026-12-02T03:00:00.000Z");
    expect(nextRetentionRun({ hour: 11 }, at, false).toISOString()).toBe("2026-12-01T11:00:00.000Z");
    expect(nextRetentionRun({ hour: null }, at, true).getTime() - at.getTime()).toBe(5 * 60 * 1000);
    expect(nextRetentionRun({ hour: null }, at, false).getTime() - at.getTime()).toBe(DAY);
  });
});

describe("retention of job output", () => {
  let sample: number;
  let sampleRecap: Awaited<ReturnType<typeof jobRecap>>;

  it("with every setting off, removes nothing", async () => {
    const report = await runRetention({ settings: off, limits: SMALL, now: NOW });
    expect(report).toMatchObject({ jobs: 0, chunks: 0, markers: 0, auditEvents: 0 });
    expect(databaseFigures(file).chunks).toBe((ids.length + unfinished.length) * 3);
  });

  it("keep-per-form: all but the newest N finished jobs of each form lose their output, recap cached first", async () => {
    sample = ids[0]!;
    sampleRecap = await jobRecap(sample); // from the output, before it goes (not cached)
    expect(await getDb().job.count({ where: { recap: { not: null as never } } })).toBe(0);
    const settings = { ...off, keepPerForm: 400 };
    expect(await previewRetention(settings, NOW)).toEqual({ jobs: 3 * 600, auditEvents: 0 });

    const report = (await runRetention({ settings, limits: SMALL, now: NOW }))!;
    expect(report).toMatchObject({ jobs: 1_800, chunks: 1_800 * 3, markers: 1_800 * 3, failedJobs: 0 });
    expect(report.largestStatement).toBeLessThanOrEqual(SMALL.rowBatch);
    expect(report.largestStatement).toBeGreaterThan(0);
    for (const form of FORMS) expect(await keptFinished(form)).toBe(400);
    // The newest 400 of each form are the ones kept.
    const kept = await getDb().job.findMany({
      where: { formName: "alpha", outputPurgedAt: null, status: { in: [...FINAL_STATUSES] } },
      select: { id: true },
    });
    const alphaIds = ids.filter((_, i) => i % 3 === 0);
    expect(kept.map((j) => j.id)).toEqual(alphaIds.slice(-400));
    await expectUnfinishedUntouched();

    const purged = await getDb().job.findUniqueOrThrow({ where: { id: sample } });
    expect(purged.outputPurgedAt?.toISOString()).toBe(NOW.toISOString());
    expect(purged.recapSource).toBe("events");
    expect(await getDb().jobChunk.count({ where: { jobId: sample } })).toBe(0);
    // Every purged job has its recap cached.
    expect(await getDb().job.count({ where: { outputPurgedAt: { not: null }, recap: { equals: null as never } } })).toBe(0);
  });

  it("serves the cached recap of a purged job, and answers its output 410 saying when", async () => {
    expect(await recapOfJob(sample)).toEqual(sampleRecap);
    for (const read of [
      () => outputWindow(sample, { from: 1, count: 10 }),
      () => taskIndex(sample),
      () => timelineOfJob(sample),
      () => recapOfJob(sample, "text"),
    ]) {
      const error = await read().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).code).toBe("gone");
      expect((error as DomainError).message).toMatch(new RegExp(`^the output of job ${sample} was removed by retention on 2026-12-01`));
    }
    // A kept job's output still reads.
    const keptJob = ids.at(-1)!;
    expect((await outputWindow(keptJob, { from: 1, count: 5 })).lines).toHaveLength(5);
  });

  it("keeps a form's trend and idempotence report answering, purged runs counted like runs without events", async () => {
    // The last 450 runs of alpha: the 50 oldest purged (their recap cached), 400 with output.
    const trend = await formTrend("alpha", 450, ALL_JOBS);
    const report = await formIdempotence("alpha", 450, ALL_JOBS);
    expect(trend.completed_runs).toBe(450);
    expect(report.complete_runs).toBe(225); // success and failed runs; aborted and abandoned ones are not complete
    expect(report.runs.filter((r) => r.source === "recap").length).toBeGreaterThan(0);
    expect(report.runs.filter((r) => r.source === "events").length).toBeGreaterThan(0);
  });

  it("days: output of jobs finished more than N days ago goes, either rule deciding; a second run is a no-op", async () => {
    const settings = { ...off, days: 10, keepPerForm: 400 };
    const cutoff = NOW.getTime() - 10 * DAY;
    const expected = ids.filter((_, i) => finishedJob(i).finishedAt!.getTime() < cutoff).length - 1_800;
    expect((await previewRetention(settings, NOW)).jobs).toBe(expected);
    const report = (await runRetention({ settings, limits: SMALL, now: NOW }))!;
    expect(report.jobs).toBe(expected);
    expect(report.largestStatement).toBeLessThanOrEqual(SMALL.rowBatch);
    const left = await getDb().job.findMany({
      where: { outputPurgedAt: null, status: { in: [...FINAL_STATUSES] } },
      select: { finishedAt: true },
    });
    expect(left).toHaveLength(300);
    for (const job of left) expect(job.finishedAt!.getTime()).toBeGreaterThanOrEqual(cutoff);
    expect(databaseFigures(file).chunks).toBe((300 + unfinished.length) * 3);
    await expectUnfinishedUntouched();

    const again = (await runRetention({ settings, limits: SMALL, now: NOW }))!;
    expect(again).toMatchObject({ jobs: 0, chunks: 0, markers: 0, auditEvents: 0 });
  });
});

describe("retention of the audit trail", () => {
  it("deletes events older than N days in batches, records the run, and GET /api/retention's status shows it", async () => {
    seedAuditEvents(
      file,
      Array.from({ length: 1_000 }, (_, i) => new Date(NOW.getTime() - (i / 10) * DAY)),
    );
    const settings = { ...off, auditDays: 30 };
    const old = await getDb().auditEvent.count({ where: { at: { lt: new Date(NOW.getTime() - 30 * DAY) } } });
    expect(old).toBe(699);
    const report = (await runRetention({ settings, limits: SMALL, now: NOW, actor: "alice" }))!;
    expect(report.auditEvents).toBe(699);
    expect(report.largestStatement).toBeLessThanOrEqual(SMALL.rowBatch);
    expect(await getDb().auditEvent.count({ where: { at: { lt: new Date(NOW.getTime() - 30 * DAY) } } })).toBe(0);

    const recorded = await getDb().auditEvent.findFirstOrThrow({ where: { action: "retention.run" }, orderBy: { id: "desc" } });
    expect(recorded.actor).toBe("alice");
    expect(JSON.parse(recorded.details!)).toMatchObject({ auditEvents: 699, jobs: 0, settings: { PLAYFORM_AUDIT_RETENTION_DAYS: 30 } });

    const status = await retentionStatus();
    expect(status.lastRun).toMatchObject({ auditEvents: 699, actor: "alice" });
    expect(status.settings.enabled).toBe(false); // this process's environment sets nothing
    expect(status.pending).toEqual({ jobs: 0, auditEvents: 0 });
  });

  it("gives the free pages back on a database converted to auto_vacuum = INCREMENTAL (docs/operations.md, Retention)", async () => {
    await closeDb();
    const sqlite = new Database(file);
    sqlite.pragma("auto_vacuum = INCREMENTAL");
    sqlite.exec("VACUUM");
    sqlite.close();
    const before = databaseFigures(file);
    const report = (await runRetention({ settings: { ...off, days: 3 }, limits: SMALL, now: NOW }))!;
    expect(report.jobs).toBeGreaterThan(0);
    const after = databaseFigures(file);
    expect(after.freePages).toBe(0);
    expect(after.bytes).toBeLessThan(before.bytes);
  });

  it("runs one at a time on a node", async () => {
    const [a, b] = await Promise.all([
      runRetention({ settings: { ...off, days: 1 }, limits: SMALL, now: NOW }),
      runRetention({ settings: { ...off, days: 1 }, limits: SMALL, now: NOW }),
    ]);
    expect([a, b].filter((r) => r === null)).toHaveLength(1);
  });
});
