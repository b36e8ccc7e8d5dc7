/**
 * Hosts written from finished jobs' recaps and read in a reader's scope (server/jobs/hosts.ts,
 * server/data/hosts.ts), on both databases without an app: the catch-up that backfills jobs
 * that ended before hosts were kept, the scope (own runs, observed forms, all), the name search
 * in any case, paging by key, a write refused once the job has moved on, and a host's drift
 * moved by drift checks' hosts (per form, in the reader's scope).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALL_JOBS, type JobScope } from "../../server/data/job-scope";
import {
  findJobForHosts,
  latestHostRun,
  latestHostRuns,
  listHostDrifts,
  listHostNames,
  listHostRuns,
  replaceJobHosts,
} from "../../server/data/hosts";
import { recordMissingHosts } from "../../server/jobs/hosts";
import { insertForms, insertJobs, insertUsers, type JobRow } from "../support/job-rows";
import { hostRow, recap } from "../support/recap-rows";
import { useTempPostgresDatabase, useTempSqliteDatabase } from "../support/temp-db";

const at = (minute: number) => new Date(Date.UTC(2026, 11, 7, 10, minute));

/** A recap as the events give it (changed_results, playbook_sec): cached, so nothing is parsed. */
function eventsRecap(hosts: ReturnType<typeof hostRow>[], changed: { task: string; hosts: string[] }[]) {
  return recap({
    hosts,
    changed_tasks: changed.map((c) => c.task),
    changed_results: { changed: changed.map((c) => ({ ...c, results: c.hosts.length })), ignored_failures: [] },
    playbook_sec: 1,
  });
}

const JOBS: JobRow[] = [
  // 1: u1's run of f1: web1 changed by Install, db1 unchanged.
  {
    formId: "f1",
    formName: "f1",
    userId: "u1",
    runnerId: null,
    status: "success",
    createdAt: at(0),
    finishedAt: at(1),
    recap: eventsRecap([hostRow("web1", { ok: 2, changed: 1 }), hostRow("db1", { ok: 2 })], [{ task: "Install", hosts: ["web1"] }]),
    recapSource: "events",
  },
  // 2: u2's run of f2, later: web1 failed, cache01 only here.
  {
    formId: "f2",
    formName: "f2",
    userId: "u2",
    runnerId: null,
    status: "failed",
    createdAt: at(2),
    finishedAt: at(3),
    recap: eventsRecap([hostRow("web1", { ok: 1, failed: 1 }), hostRow("cache01", { ok: 1 })], []),
    recapSource: "events",
  },
  // 3: still running: no hosts yet.
  { formId: "f1", formName: "f1", userId: "u1", runnerId: null, status: "running", createdAt: at(4) },
];

const U1: JobScope = { all: false, userId: "u1", formNames: [] };
const U1_OBSERVING_F2: JobScope = { all: false, userId: "u1", formNames: ["f2"] };

function checks(url: () => string) {
  beforeAll(async () => {
    await insertUsers(url(), [
      { id: "u1", username: "one" },
      { id: "u2", username: "two" },
    ]);
    await insertForms(url(), [
      { id: "f1", name: "f1" },
      { id: "f2", name: "f2" },
    ]);
    await insertJobs(url(), JOBS);
  });

  it("backfills the finished jobs, and only those, from their recaps", async () => {
    expect(await recordMissingHosts()).toBe(2);
    expect(await recordMissingHosts()).toBe(0);
    expect(await listHostNames(ALL_JOBS, { limit: 10 })).toEqual(["cache01", "db1", "web1"]);
    const [newest, oldest] = await listHostRuns(ALL_JOBS, "web1", { limit: 10 });
    expect([newest!.jobId, newest!.status, newest!.failed, newest!.changedTasks]).toEqual([2, "failed", 1, []]);
    expect([oldest!.jobId, oldest!.status, oldest!.changed, oldest!.changedTasks]).toEqual([1, "success", 1, ["Install"]]);
    expect((await latestHostRun(ALL_JOBS, "db1"))!.changedTasks).toEqual([]);
  });

  it("reads a page's newest runs in one go, as one host at a time would, in each scope", async () => {
    const names = ["cache01", "db1", "web1", "nowhere"];
    for (const scope of [ALL_JOBS, U1, U1_OBSERVING_F2]) {
      const together = await latestHostRuns(scope, names);
      for (const name of names)
        expect(together.get(name) ?? null, `${name} in ${JSON.stringify(scope)}`).toEqual(await latestHostRun(scope, name));
    }
  });

  it("shows a reader the hosts of the runs they may read, and nothing of the others", async () => {
    expect(await listHostNames(U1, { limit: 10 })).toEqual(["db1", "web1"]);
    expect((await latestHostRun(U1, "web1"))!.jobId).toBe(1);
    expect(await latestHostRun(U1, "cache01")).toBeNull();
    expect(await listHostNames(U1_OBSERVING_F2, { limit: 10 })).toEqual(["cache01", "db1", "web1"]);
    expect((await latestHostRun(U1_OBSERVING_F2, "web1"))!.jobId).toBe(2);
  });

  it("finds hosts by a part of the name in any case, and pages by name and by run", async () => {
    expect(await listHostNames(ALL_JOBS, { q: "EB", limit: 10 })).toEqual(["web1"]);
    expect(await listHostNames(ALL_JOBS, { q: "1", limit: 10 })).toEqual(["cache01", "db1", "web1"]);
    expect(await listHostNames(ALL_JOBS, { q: "%", limit: 10 })).toEqual([]);
    expect(await listHostNames(ALL_JOBS, { q: "_", limit: 10 })).toEqual([]);
    expect(await listHostNames(ALL_JOBS, { q: "b%1", limit: 10 })).toEqual([]);
    expect(await listHostNames(ALL_JOBS, { q: "1", limit: 1, after: "cache01" })).toEqual(["db1"]);
    expect(await listHostNames(ALL_JOBS, { limit: 2 })).toEqual(["cache01", "db1"]);
    expect(await listHostNames(ALL_JOBS, { after: "db1", limit: 2 })).toEqual(["web1"]);
    const [first] = await listHostRuns(ALL_JOBS, "web1", { limit: 1 });
    const rest = await listHostRuns(ALL_JOBS, "web1", { before: { finishedAt: first!.finishedAt, jobId: first!.jobId }, limit: 5 });
    expect(rest.map((run) => run.jobId)).toEqual([1]);
  });

  it("writes nothing for a job that moved on since it was read", async () => {
    const job = (await findJobForHosts(1))!;
    const moved = { ...job, lastSeq: job.lastSeq + 1 };
    expect((await replaceJobHosts(moved, at(1), [{ ...hostRow("intruder"), changedTasks: [] }], null)).written).toBe(false);
    expect(await latestHostRun(ALL_JOBS, "intruder")).toBeNull();
    // As read, it replaces the job's rows whole.
    expect((await replaceJobHosts(job, at(1), [{ ...hostRow("web1", { ok: 5 }), changedTasks: [] }], null)).written).toBe(true);
    expect((await listHostRuns(ALL_JOBS, "db1", { limit: 5 })).map((run) => run.jobId)).toEqual([]);
    expect((await listHostRuns(ALL_JOBS, "web1", { limit: 5 })).map((run) => [run.jobId, run.ok])).toEqual([
      [2, 1],
      [1, 5],
    ]);
  });

  it("moves a host's drift with a drift check's hosts, per form, and shows it only in the scope of that check", async () => {
    const tasks = [{ task: "Install", diff: "-old\n+new\n" }];
    const check = { ...(await findJobForHosts(1))!, drift: true };
    const drifted = await replaceJobHosts(
      check,
      at(1),
      [
        { ...hostRow("web1", { ok: 2, changed: 1 }), changedTasks: ["Install"] },
        { ...hostRow("db1", { ok: 2 }), changedTasks: [] },
      ],
      null,
      { tasksByHost: new Map([["web1", tasks]]), complete: true },
    );
    expect(drifted).toEqual({ written: true, newlyDrifted: ["web1"] });
    expect(await listHostDrifts(ALL_JOBS, ["web1", "db1", "cache01"])).toEqual([
      { host: "web1", formName: "f1", since: at(1), sinceJobId: 1, jobId: 1, tasks },
    ]);
    expect((await listHostDrifts(U1, ["web1"])).map((drift) => drift.jobId)).toEqual([1]);
    expect(await listHostDrifts({ all: false, userId: "u2", formNames: [] }, ["web1"])).toEqual([]);
    expect((await listHostDrifts({ all: false, userId: "u2", formNames: ["f1"] }, ["web1"])).length).toBe(1);

    // Another form's clean check of web1 leaves f1's drift alone.
    const other = { ...(await findJobForHosts(2))!, drift: true };
    const clean = await replaceJobHosts(other, at(3), [{ ...hostRow("web1", { ok: 2 }), changedTasks: [] }], null, {
      tasksByHost: new Map(),
      complete: true,
    });
    expect(clean).toEqual({ written: true, newlyDrifted: [] });
    expect((await listHostDrifts(ALL_JOBS, ["web1"])).map((drift) => drift.formName)).toEqual(["f1"]);

    // f1's check written again without the change (its recap changed) clears it.
    const again = { ...(await findJobForHosts(1))!, drift: true };
    await replaceJobHosts(again, at(1), [{ ...hostRow("web1", { ok: 2 }), changedTasks: [] }], null, {
      tasksByHost: new Map(),
      complete: true,
    });
    expect(await listHostDrifts(ALL_JOBS, ["web1"])).toEqual([]);
  });
}

describe("on SQLite", () => {
  let db: { url: string; cleanup: () => Promise<void> };
  beforeAll(async () => {
    db = await useTempSqliteDatabase();
  });
  afterAll(async () => {
    await db?.cleanup();
  });
  checks(() => db.url);
});

describe("on PostgreSQL", () => {
  let db: { url: string; cleanup: () => Promise<void> };
  beforeAll(async () => {
    db = await useTempPostgresDatabase();
  });
  afterAll(async () => {
    await db?.cleanup();
  });
  checks(() => db.url);
});
