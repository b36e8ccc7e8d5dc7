/**
 * Drift watch's rules (server/recap/drift.ts): which check marks a host drifted, since when,
 * which one clears it, and which say nothing; the diff lines of each task from the `diff` events.
 */
import { describe, expect, it } from "vitest";
import type { PlayformEvent } from "../../server/recap/events";
import { DRIFT_DIFF_MAX, diffsByHost, driftTasksOf, nextDriftState, type DriftCheck, type DriftState } from "../../server/recap/drift";

const at = (minute: number) => new Date(Date.UTC(2026, 11, 7, 6, minute));

function check(jobId: number, minute: number, result: Partial<DriftCheck> = {}): DriftCheck {
  return { jobId, finishedAt: at(minute), userId: "u1", complete: true, changed: 0, failed: 0, unreachable: 0, tasks: [], ...result };
}

const drifted = (jobId: number, minute: number) => check(jobId, minute, { changed: 1, tasks: [{ task: "motd", diff: "-a\n+b\n" }] });

function run(...checks: DriftCheck[]): DriftState | null {
  let state: DriftState | null = null;
  for (const c of checks) state = nextDriftState(state, c) ?? state;
  return state;
}

describe("nextDriftState", () => {
  it("marks a host drifted at the first check that finds a change, and keeps that start while checks find changes", () => {
    const state = run(check(1, 0), drifted(2, 10), drifted(3, 20));
    expect(state).toMatchObject({ since: at(10), sinceJobId: 2, jobId: 3, checkedJobId: 3, tasks: [{ task: "motd", diff: "-a\n+b\n" }] });
  });

  it("clears it at the next complete check that reached the host and found nothing", () => {
    const state = run(drifted(2, 10), check(3, 20));
    expect(state).toMatchObject({ since: null, sinceJobId: null, jobId: null, tasks: null, checkedJobId: 3 });
    // And a later change starts a new drift, from that check.
    expect(run(drifted(2, 10), check(3, 20), drifted(4, 30))).toMatchObject({ since: at(30), sinceJobId: 4 });
  });

  it("takes no word from a check that did not reach the host or did not end", () => {
    const before = run(drifted(2, 10))!;
    expect(nextDriftState(before, check(3, 20, { unreachable: 1 }))).toBeNull();
    expect(nextDriftState(before, check(3, 20, { failed: 1 }))).toBeNull();
    expect(nextDriftState(before, check(3, 20, { complete: false }))).toBeNull();
    // What an aborted check saw change is a drift all the same.
    expect(nextDriftState(null, check(3, 20, { complete: false, changed: 2 }))).toMatchObject({ since: at(20), jobId: 3 });
    // A failed task after a change: the change counts.
    expect(nextDriftState(null, check(3, 20, { failed: 1, changed: 1 }))).toMatchObject({ since: at(20) });
  });

  it("ignores a check older than the newest one taken into account (a late write)", () => {
    const state = run(drifted(5, 50));
    expect(nextDriftState(state, check(4, 40))).toBeNull();
    expect(nextDriftState(state, check(4, 50))).toBeNull();
    // The same check written again (its recap changed) is taken again.
    expect(nextDriftState(state, check(5, 50))).toMatchObject({ since: null });
    expect(nextDriftState(state, drifted(5, 50))).toMatchObject({ since: at(50), sinceJobId: 5 });
  });

  it("a check written again keeps the start of a drift that began before it", () => {
    const state = run(drifted(2, 10), drifted(3, 20));
    expect(nextDriftState(state, drifted(3, 20))).toMatchObject({ since: at(10), sinceJobId: 2, jobId: 3 });
  });
});

describe("diffsByHost", () => {
  const base = { v: 1 as const, ts: 1 };
  const events: PlayformEvent[] = [
    { ...base, type: "task_start", task: "t1", name: "  write motd ", kind: "task" },
    { ...base, type: "diff", task: "t1", host: "web1", diff: "--- before\n+++ after\n-a\n+b\n" },
    { ...base, type: "diff", task: "t1", host: "web2", diff: "-x\n+y\n" },
    { ...base, type: "task_start", task: "t2", name: "items", kind: "task" },
    // A loop's items: one event per changed result, in order.
    { ...base, type: "diff", task: "t2", host: "web1", diff: "item 1\n" },
    { ...base, type: "diff", task: "t2", host: "web1", diff: "item 2\n" },
    // A diff of a task whose start was not seen is not attributed.
    { ...base, type: "diff", task: "unknown", host: "web1", diff: "lost\n" },
  ];

  it("gathers each host's diff lines by task name as the banner shows it", () => {
    const diffs = diffsByHost(events);
    expect([...diffs.keys()]).toEqual(["web1", "web2"]);
    expect(Object.fromEntries(diffs.get("web1")!)).toEqual({ "write motd": "--- before\n+++ after\n-a\n+b\n", items: "item 1\nitem 2\n" });
    expect(driftTasksOf(["write motd", "no diff printed"], diffs.get("web1"))).toEqual([
      { task: "write motd", diff: "--- before\n+++ after\n-a\n+b\n" },
      { task: "no diff printed", diff: null },
    ]);
  });

  it("cuts a task's diff lines at DRIFT_DIFF_MAX, saying so", () => {
    const long = "+".repeat(DRIFT_DIFF_MAX) + "\n";
    const diff = diffsByHost([
      events[0]!,
      { ...base, type: "diff", task: "t1", host: "h", diff: long },
      { ...base, type: "diff", task: "t1", host: "h", diff: "more\n" },
    ])
      .get("h")!
      .get("write motd")!;
    expect(diff.startsWith("+".repeat(DRIFT_DIFF_MAX))).toBe(true);
    expect(diff).toMatch(/cut at 16384 characters/);
    expect(diff.length).toBeLessThan(DRIFT_DIFF_MAX + 100);
  });
});
