/**
 * The job lifecycle against a real SQLite database: every transition of the table applies and
 * is published once, every other one is refused and publishes nothing, and of two racing
 * changes only the one that applied publishes. Only the publisher and the dispatcher's wake-up
 * are recorded in memory; storage is the real thing.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "../../server/data/db";
import type { JobStatus } from "../../server/data/jobs";
import { newJobInput } from "../support/new-job";
import { DomainError } from "../../server/errors";
import type { JobUpdate } from "../../server/hub/job-updates";
import {
  FINAL_STATUSES,
  JOB_STATUSES,
  JOB_TRANSITIONS,
  JobLifecycle,
  isAllowedTransition,
  statusesLeadingTo,
} from "../../server/jobs/lifecycle";
import { useTempSqliteDatabase } from "../support/temp-db";

let cleanup: () => Promise<void>;
let published: JobUpdate[];
let wakes: number;
let lifecycle: JobLifecycle;

const newJob = newJobInput();

beforeAll(async () => {
  ({ cleanup } = await useTempSqliteDatabase());
  const db = getDb();
  await db.user.create({ data: { id: "user-1", username: "alice", passwordHash: "x", role: "admin" } });
  await db.form.create({ data: { id: "form-1", name: "hello", title: "Hello", definition: {}, sourceDir: "/nowhere" } });
});
afterAll(async () => {
  await cleanup?.();
});
beforeEach(() => {
  published = [];
  wakes = 0;
  lifecycle = new JobLifecycle({ publish: (update) => published.push(update), wakeDispatcher: () => wakes++ });
});

/** A stored job in the given status (arranged directly: the table is what is under test). */
async function jobIn(status: JobStatus): Promise<number> {
  const id = await lifecycle.create(newJob, false);
  await getDb().job.update({ where: { id }, data: { status } });
  published = [];
  wakes = 0;
  return id;
}

async function statusOf(id: number) {
  return getDb().job.findUniqueOrThrow({
    where: { id },
    select: { status: true, statusReason: true, finishedAt: true, queuedAt: true, startedAt: true, abortRequested: true },
  });
}

const statusNews = (jobId: number): JobUpdate => ({ jobId, output: false, status: true });

const allowed = JOB_STATUSES.flatMap((from) => JOB_TRANSITIONS[from].map((to) => [from, to] as const));
const illegal = JOB_STATUSES.flatMap((from) =>
  JOB_STATUSES.filter((to) => !isAllowedTransition(from, to)).map((to) => [from, to] as const),
);

describe("the transition table", () => {
  it("has a row for every stored status, and its final statuses are the ones without exits", () => {
    expect(JOB_STATUSES).toEqual(["approval", "queued", "running", "success", "failed", "aborted", "abandoned", "rejected"]);
    expect(FINAL_STATUSES).toEqual(["success", "failed", "aborted", "abandoned", "rejected"]);
    for (const targets of Object.values(JOB_TRANSITIONS)) for (const to of targets) expect(JOB_STATUSES).toContain(to);
  });

  it("never leaves a final status and never re-enters approval", () => {
    for (const from of FINAL_STATUSES) expect(JOB_TRANSITIONS[from]).toEqual([]);
    expect(statusesLeadingTo("approval")).toEqual([]);
  });

  it("lists the illegal moves the brief names as illegal", () => {
    for (const [from, to] of [
      ["success", "running"],
      ["aborted", "success"],
      ["approval", "running"],
      ["abandoned", "success"],
      ["rejected", "queued"],
      ["queued", "rejected"],
    ] as const) {
      expect(illegal).toContainEqual([from, to]);
    }
  });
});

describe("an allowed transition", () => {
  it.each(allowed)("%s -> %s applies, is stored and is published once", async (from, to) => {
    const id = await jobIn(from);
    expect(await lifecycle.transition(id, to, { statusReason: `to ${to}` }, [from])).toBe(true);
    const row = await statusOf(id);
    expect(row.status).toBe(to);
    expect(row.statusReason).toBe(`to ${to}`);
    if (FINAL_STATUSES.includes(to)) expect(row.finishedAt).toBeInstanceOf(Date);
    expect(published).toEqual([statusNews(id)]);
    // Joining the queue wakes the dispatcher; nothing else does.
    expect(wakes).toBe(to === "queued" ? 1 : 0);
  });

  it.each(allowed)("%s -> %s also applies when the caller names only the target", async (from, to) => {
    const id = await jobIn(from);
    expect(await lifecycle.transition(id, to)).toBe(true);
    expect((await statusOf(id)).status).toBe(to);
    expect(published).toEqual([statusNews(id)]);
  });
});

describe("an illegal transition", () => {
  it.each(illegal)("%s -> %s is refused, changes nothing and publishes nothing", async (from, to) => {
    const id = await jobIn(from);
    const before = await statusOf(id);
    // The conditional update finds the job in none of the statuses that lead to `to`.
    expect(await lifecycle.transition(id, to)).toBe(false);
    // Asking for the move explicitly is a bug in the caller.
    await expect(lifecycle.transition(id, to, {}, [from])).rejects.toThrow(/is not a transition of the job lifecycle/);
    expect(await statusOf(id)).toEqual(before);
    expect(published).toEqual([]);
    expect(wakes).toBe(0);
  });
});

describe("a race", () => {
  it("publishes nothing when the job moved between the read and the conditional update", async () => {
    const id = await jobIn("queued");
    // Another node (or the runner's end) moved it first.
    await getDb().job.update({ where: { id }, data: { status: "running" } });
    expect(await lifecycle.transition(id, "failed", { statusReason: "queue timeout" }, ["queued"])).toBe(false);
    expect((await statusOf(id)).status).toBe("running");
    expect(published).toEqual([]);
  });

  it("lets exactly one of two concurrent changes apply, and only that one publishes", async () => {
    const id = await jobIn("queued");
    const results = await Promise.all([
      lifecycle.transition(id, "running", {}, ["queued"]),
      lifecycle.transition(id, "failed", { statusReason: "refused" }, ["queued"]),
      lifecycle.transition(id, "aborted", { statusReason: "aborted while queued" }, ["queued"]),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(published).toEqual([statusNews(id)]);
  });

  it("keeps an abandoned job abandoned when the runner's real end arrives late", async () => {
    const id = await jobIn("running");
    expect(await lifecycle.transition(id, "abandoned", { statusReason: "no heartbeat" }, ["running"])).toBe(true);
    published = [];
    expect(await lifecycle.ended(id, { status: "success", exitCode: 0, reason: null, at: new Date() })).toBe(false);
    expect((await statusOf(id)).status).toBe("abandoned");
    expect(published).toEqual([]);
  });
});

describe("the runner's items", () => {
  it("start moves a queued job to running with the start time, once", async () => {
    const id = await jobIn("queued");
    const at = new Date("2026-01-02T03:04:05Z");
    await lifecycle.started(id, at);
    expect(await statusOf(id)).toMatchObject({ status: "running", startedAt: at });
    expect(published).toEqual([statusNews(id)]);
  });

  it("start on a job the claim answer already moved to running only records the time", async () => {
    const id = await jobIn("running");
    const at = new Date("2026-01-02T03:04:05Z");
    await lifecycle.started(id, at);
    expect(await statusOf(id)).toMatchObject({ status: "running", startedAt: at });
    expect(published).toEqual([statusNews(id)]);
  });

  it("start on an ended job changes and publishes nothing", async () => {
    const id = await jobIn("aborted");
    await lifecycle.started(id, new Date());
    expect(await statusOf(id)).toMatchObject({ status: "aborted", startedAt: null });
    expect(published).toEqual([]);
  });

  it("end stores the runner's status, exit code, reason and time", async () => {
    const id = await jobIn("running");
    const at = new Date("2026-01-02T03:04:09Z");
    expect(await lifecycle.ended(id, { status: "failed", exitCode: 2, reason: "boom", at })).toBe(true);
    const row = await getDb().job.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ status: "failed", exitCode: 2, statusReason: "boom", finishedAt: at });
    expect(published).toEqual([statusNews(id)]);
  });
});

describe("creating a job", () => {
  it("queues it and wakes the dispatcher, or holds it for approval", async () => {
    const queued = await lifecycle.create(newJob, false);
    expect(await statusOf(queued)).toMatchObject({ status: "queued", statusReason: null });
    expect((await statusOf(queued)).queuedAt).toBeInstanceOf(Date);
    expect(wakes).toBe(1);
    const waiting = await lifecycle.create(newJob, true);
    expect(await statusOf(waiting)).toMatchObject({
      status: "approval",
      statusReason: "waiting for an admin to approve it",
      queuedAt: null,
    });
    expect(wakes).toBe(1);
    expect(published).toEqual([]);
  });
});

describe("decisions on approval", () => {
  it("approving queues the job, says who, and wakes the dispatcher", async () => {
    const id = await jobIn("approval");
    const job = await lifecycle.decide(id, true, "boss", "go ahead");
    expect(job).toMatchObject({ status: "queued", statusReason: "approved by boss: go ahead", decidedBy: "boss" });
    expect((await statusOf(id)).queuedAt).toBeInstanceOf(Date);
    expect(published).toEqual([statusNews(id)]);
    expect(wakes).toBe(1);
  });

  it("rejecting ends the job rejected, saying who and why", async () => {
    const id = await jobIn("approval");
    const job = await lifecycle.decide(id, false, "boss", "not on a Friday");
    expect(job).toMatchObject({ status: "rejected", statusReason: "rejected by boss: not on a Friday", decidedBy: "boss" });
    expect(job.finishedAt).not.toBeNull();
    expect(published).toEqual([statusNews(id)]);
    expect(wakes).toBe(0);
  });

  it("refuses a decision on a job that does not wait for approval", async () => {
    const id = await jobIn("queued");
    await expect(lifecycle.decide(id, true, "boss")).rejects.toSatisfy(
      (error: unknown) => error instanceof DomainError && error.code === "conflict",
    );
    await expect(lifecycle.decide(999_999, true, "boss")).rejects.toSatisfy(
      (error: unknown) => error instanceof DomainError && error.code === "not_found",
    );
    expect(published).toEqual([]);
  });
});

describe("aborting", () => {
  it("ends a job waiting for approval at once", async () => {
    const id = await jobIn("approval");
    const job = await lifecycle.abort(id, "alice");
    expect(job).toMatchObject({ status: "aborted", statusReason: "aborted by alice while waiting for approval" });
    expect(published).toEqual([statusNews(id)]);
  });

  it.each(["queued", "running"] as const)("flags a %s job for the dispatcher, which it wakes", async (status) => {
    const id = await jobIn(status);
    const job = await lifecycle.abort(id, "alice");
    expect(job).toMatchObject({ status, abortRequested: true });
    expect(published).toEqual([statusNews(id)]);
    expect(wakes).toBe(1);
  });

  it.each(FINAL_STATUSES)("refuses a job that already ended (%s)", async (status) => {
    const id = await jobIn(status);
    await expect(lifecycle.abort(id, "alice")).rejects.toSatisfy(
      (error: unknown) => error instanceof DomainError && error.code === "conflict",
    );
    expect(published).toEqual([]);
    expect(wakes).toBe(0);
  });
});

describe("explaining a wait", () => {
  it("publishes the reason of a queued job, and nothing for a job no longer queued", async () => {
    const queued = await jobIn("queued");
    await lifecycle.explainWait(queued, "waiting for runner r1");
    expect((await statusOf(queued)).statusReason).toBe("waiting for runner r1");
    expect(published).toEqual([statusNews(queued)]);
    published = [];
    const running = await jobIn("running");
    await lifecycle.explainWait(running, "waiting for runner r1");
    expect((await statusOf(running)).statusReason).toBeNull();
    expect(published).toEqual([]);
  });
});
