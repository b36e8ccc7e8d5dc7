/**
 * The idempotence report's per-job cache against a real SQLite database: a finished job's
 * events are read once, later reports reuse what was read, two reports at once read each job
 * once, and a job that receives a late item (its lastSeq moves) is read again.
 */
import { ALL_JOBS } from "../../server/data/job-scope";
import { afterAll, beforeAll, expect, it } from "vitest";
import { getDb } from "../../server/data/db";
import { formDefinitionSchema } from "../../server/forms/definition";
import { formIdempotence } from "../../server/jobs/idempotence";
import { clearRunSummaryCache, runSummaryCacheStats } from "../../server/jobs/run-summary";
import { fullRunKeyOfDefinition } from "../../server/jobs/run-keys";
import { useTempSqliteDatabase } from "../support/temp-db";

let cleanup: () => Promise<void>;

/** A run's events: one play, task "Always" changes on h1, task "Once" changes when `first`. */
function events(first: boolean, extraChangedHost?: string): unknown[] {
  const result = (task: string, host: string, changed: boolean, ts: number) => ({
    v: 1,
    type: "task_result",
    ts,
    task,
    host,
    status: "ok",
    changed,
  });
  return [
    { v: 1, type: "playbook_start", ts: 1, playbook: "site.yml" },
    { v: 1, type: "play_start", ts: 2, name: "p", batch: 1, strategy: "linear" },
    { v: 1, type: "task_start", ts: 3, task: "a", name: "Always", kind: "task" },
    result("a", "h1", true, 4),
    ...(extraChangedHost ? [result("a", extraChangedHost, true, 4.5)] : []),
    { v: 1, type: "task_start", ts: 5, task: "o", name: "Once", kind: "task" },
    result("o", "h1", first, 6),
    {
      v: 1,
      type: "stats",
      ts: 7,
      hosts: [{ host: "h1", ok: 2, changed: first ? 2 : 1, unreachable: 0, failed: 0, skipped: 0, rescued: 0, ignored: 0 }],
    },
    { v: 1, type: "playbook_end", ts: 8, playbook: "site.yml" },
  ];
}

const jobIds: number[] = [];

beforeAll(async () => {
  ({ cleanup } = await useTempSqliteDatabase());
  const db = getDb();
  await db.user.create({ data: { id: "user-1", username: "alice", passwordHash: "x", role: "admin" } });
  const definition = formDefinitionSchema.parse({ name: "site", title: "Site", playbook: "site.yml", fields: [] });
  await db.form.create({ data: { id: "form-1", name: "site", title: "Site", definition: definition as object, sourceDir: "/nowhere" } });
  for (let i = 0; i < 3; i++) {
    const job = await db.job.create({
      data: {
        formId: "form-1",
        formName: "site",
        userId: "user-1",
        values: {},
        extravars: {},
        manifest: [],
        status: "success",
        startedAt: new Date(Date.UTC(2026, 10, 30, 10, i)),
        finishedAt: new Date(Date.UTC(2026, 10, 30, 10, i, 30)),
        lastSeq: 1,
        // Full runs of the form, as a launch records them (server/jobs/run-kind.ts).
        runKey: fullRunKeyOfDefinition(definition),
      },
    });
    await db.jobChunk.create({ data: { jobId: job.id, seq: 1, kind: "events", data: events(i === 0) as never } });
    jobIds.push(job.id);
  }
});
afterAll(async () => {
  await cleanup?.();
});

it("reads each finished job's events once, also for two reports at once, and again after a late item", async () => {
  clearRunSummaryCache();
  const before = { ...runSummaryCacheStats };
  const [a, b] = await Promise.all([formIdempotence("site", 20, ALL_JOBS), formIdempotence("site", 20, ALL_JOBS)]);
  expect(a).toEqual(b);
  expect(runSummaryCacheStats.misses - before.misses).toBe(3);
  expect(a.tasks.map((t) => [t.task, t.runs_changed, t.runs_ran])).toEqual([
    ["Always", 3, 3],
    ["Once", 1, 3],
  ]);

  const again = await formIdempotence("site", 20, ALL_JOBS);
  expect(again).toEqual(a);
  expect(runSummaryCacheStats.misses - before.misses).toBe(3);
  expect(runSummaryCacheStats.hits - before.hits).toBe(6);

  // A late item for the latest job: storing it moves lastSeq (and clears the recap cache, which
  // stays as it is here: its recap is the same).
  const latest = jobIds[2]!;
  await getDb().jobChunk.update({ where: { jobId_seq: { jobId: latest, seq: 1 } }, data: { data: events(false, "h2") as never } });
  await getDb().job.update({ where: { id: latest }, data: { lastSeq: 2 } });
  const after = await formIdempotence("site", 20, ALL_JOBS);
  expect(runSummaryCacheStats.misses - before.misses).toBe(4);
  expect(after.tasks[0]!.hosts).toEqual([
    { host: "h1", runs_changed: 3 },
    { host: "h2", runs_changed: 1 },
  ]);
});
