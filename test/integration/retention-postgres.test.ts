/**
 * Retention on PostgreSQL, without an app: the same queries as on SQLite (keep-per-form, the
 * batched deletes, the recap cached first), and the advisory lock that lets one app node clean
 * at a time: while another session holds it, a run does nothing and says so (null).
 */
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { closeDb, getDb } from "../../server/data/db";
import { applyMigrations } from "../../server/data/migrate";
import { recapOfJob } from "../../server/jobs/analysis";
import { runRetention } from "../../server/retention/run";
import { runEvents } from "../support/output-rows";
import { startPostgres, type TestPostgres } from "../support/postgres";

const off = { days: null, keepPerForm: null, auditDays: null, hour: null };
const SMALL = { jobBatch: 7, rowBatch: 20, pauseMs: 0 };
let postgres: TestPostgres;
let saved: string | undefined;
const ids: number[] = [];

beforeAll(async () => {
  postgres = await startPostgres();
  await applyMigrations(postgres.url);
  saved = process.env.DATABASE_URL;
  process.env.DATABASE_URL = postgres.url;
  const db = getDb();
  await db.user.create({ data: { id: "u1", username: "alice", passwordHash: "x", role: "admin" } });
  await db.form.create({ data: { id: "f1", name: "site", title: "Site", definition: {}, sourceDir: "/nowhere" } });
  for (let i = 0; i < 40; i++) {
    const job = await db.job.create({
      data: {
        formId: "f1",
        formName: "site",
        userId: "u1",
        values: {},
        extravars: {},
        manifest: [],
        status: i === 0 ? "running" : "success",
        finishedAt: i === 0 ? null : new Date(Date.UTC(2026, 10, 1, 0, i)),
        lastSeq: 2,
        lines: 1,
        outputIndexed: true,
      },
    });
    await db.jobChunk.createMany({
      data: [
        { jobId: job.id, seq: 1, kind: "output", stream: "stdout", text: "hello\n", firstLine: 1, lineCount: 1 },
        { jobId: job.id, seq: 2, kind: "events", data: runEvents(i % 2 === 0) as never },
      ],
    });
    await db.jobMarker.create({ data: { jobId: job.id, line: 1, kind: "play", name: "p" } });
    ids.push(job.id);
  }
}, 240_000);
afterAll(async () => {
  await closeDb();
  if (saved === undefined) delete process.env.DATABASE_URL;
  else process.env.DATABASE_URL = saved;
  await postgres?.stop();
});

it("keeps the newest N finished jobs' output, never a running job's, in batches, the recap cached first", async () => {
  const report = (await runRetention({ settings: { ...off, keepPerForm: 10 }, limits: SMALL }))!;
  expect(report).toMatchObject({ jobs: 29, chunks: 58, markers: 29, failedJobs: 0 });
  expect(report.largestStatement).toBeLessThanOrEqual(SMALL.rowBatch);
  const db = getDb();
  expect(await db.jobChunk.count({ where: { jobId: ids[0]! } })).toBe(2);
  const kept = await db.job.findMany({ where: { outputPurgedAt: null, status: "success" }, select: { id: true }, orderBy: { id: "asc" } });
  expect(kept.map((j) => j.id)).toEqual(ids.slice(-10));
  const { recap, source } = await recapOfJob(ids[1]!);
  expect(source).toBe("events");
  expect(recap.hosts.map((h) => h.host)).toEqual(["h1", "h2"]);

  const again = (await runRetention({ settings: { ...off, keepPerForm: 10 }, limits: SMALL }))!;
  expect(again.jobs).toBe(0);
});

it("does nothing while another node holds the retention lock", async () => {
  const other = new pg.Client({ connectionString: postgres.url });
  await other.connect();
  try {
    await other.query("SELECT pg_advisory_lock(72707370)");
    expect(await runRetention({ settings: { ...off, keepPerForm: 1 }, limits: SMALL })).toBeNull();
    await other.query("SELECT pg_advisory_unlock(72707370)");
    expect((await runRetention({ settings: { ...off, keepPerForm: 1 }, limits: SMALL }))?.jobs).toBe(9);
  } finally {
    await other.end();
  }
});
