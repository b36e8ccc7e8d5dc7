import { describe, expect, it } from "vitest";
import type { PlayformEvent } from "../../../server/recap/events";
import {
  estimateProgress,
  finishedProgress,
  MAX_RUNNING_FRACTION,
  prepareReference,
  TaskStartTracker,
  taskKeys,
  type ReferenceRun,
  type RunSoFar,
} from "../../../server/recap/progress";
import { timelineFromEvents } from "../../../server/recap/timeline";

/** A reference run of one play whose tasks take these seconds, one after another. */
function reference(durations: readonly number[], names?: readonly string[], tail = 0): ReferenceRun {
  let t = 0;
  const tasks = durations.map((d, i) => {
    const task = { play: 1, task: names?.[i] ?? `task ${i + 1}`, start_sec: t, end_sec: t + d };
    t += d;
    return task;
  });
  return { tasks, total_sec: t + tail };
}

/** The running job: these tasks started at these seconds, `elapsed` seconds in. */
function run(starts: readonly [string, number][], elapsed: number, play = 1): RunSoFar {
  return { tasks: starts.map(([task, start_sec]) => ({ play, task, start_sec })), elapsed_sec: elapsed };
}

const tenTasks = reference(Array(10).fill(10)); // 100 s, task i+1 starts at 10*i

describe("estimateProgress", () => {
  it("without history: tasks seen and elapsed time only", () => {
    const p = estimateProgress([], run([["task 1", 0]], 12.5));
    expect(p).toEqual({
      tasks_seen: 1,
      tasks_expected: null,
      fraction: null,
      elapsed_sec: 12.5,
      remaining_sec: null,
      remaining_range_sec: null,
      basis: 0,
      overdue: false,
    });
  });

  it("at the reference's pace: fraction and time left follow the reference", () => {
    const starts = Array.from({ length: 4 }, (_, i) => [`task ${i + 1}`, 10 * i] as [string, number]);
    const p = estimateProgress([prepareReference(tenTasks)], run(starts, 35));
    expect(p.tasks_seen).toBe(4);
    expect(p.tasks_expected).toBe(10);
    expect(p.fraction).toBeCloseTo(0.35, 3);
    expect(p.remaining_sec).toBeCloseTo(65, 3);
    expect(p.basis).toBe(1);
    expect(p.overdue).toBe(false);
  });

  it("no task seen yet: nothing done, the reference's whole time left", () => {
    const p = estimateProgress([prepareReference(tenTasks)], run([], 0));
    expect(p.fraction).toBe(0);
    expect(p.remaining_sec).toBe(100);
    expect(p.tasks_expected).toBe(10);
  });

  it("scales the time left by the pace so far, damped towards the reference", () => {
    // Twice as slow: task 6 started at 100 s instead of 50 s. Every finished task took twice
    // its slice; with 50 s of the reference's 100 done, the pace counts 50 / (50 + 30).
    const starts = Array.from({ length: 6 }, (_, i) => [`task ${i + 1}`, 20 * i] as [string, number]);
    const p = estimateProgress([prepareReference(tenTasks)], run(starts, 100));
    const slow = 2 ** (50 / 80);
    expect(p.remaining_sec).toBeCloseTo(slow * 50, 2);
    expect(p.fraction).toBeCloseTo(0.5, 3);

    // Twice as fast: started task 6 at 25 s.
    const fast = estimateProgress(
      [prepareReference(tenTasks)],
      run(
        starts.map(([n, s]) => [n, s / 4]),
        25,
      ),
    );
    expect(fast.remaining_sec).toBeCloseTo(0.5 ** (50 / 80) * 50, 2);
  });

  it("one slow task does not explode the estimate", () => {
    // Among tasks that took their time, one took ten times as long: the pace stays 1.
    const starts: [string, number][] = [
      ["task 1", 0],
      ["task 2", 10],
      ["task 3", 110],
      ["task 4", 120],
      ["task 5", 130],
      ["task 6", 140],
    ];
    expect(estimateProgress([prepareReference(tenTasks)], run(starts, 140)).remaining_sec).toBeCloseTo(50, 3);
    // The first task took 200 s instead of 10: the pace is damped (little of the run is done)
    // and bounded by MAX_PACE (4).
    const first = estimateProgress(
      [prepareReference(tenTasks)],
      run(
        [
          ["task 1", 0],
          ["task 2", 200],
        ],
        200,
      ),
    );
    expect(first.remaining_sec).toBeCloseTo(20 ** (10 / 40) * 90, 2);
    expect(first.remaining_sec).toBeLessThanOrEqual(4 * 90);
    // Time spent in a slow current task only uses up that task's share.
    const stuck = estimateProgress(
      [prepareReference(tenTasks)],
      run(
        [
          ["task 1", 0],
          ["task 2", 10],
        ],
        300,
      ),
    );
    expect(stuck.remaining_sec).toBeCloseTo(80, 3);
    expect(stuck.fraction).toBeCloseTo(0.2, 3);
  });

  it("aligns by task key: a run that skips tasks (tags) maps onto the reference and expects fewer tasks", () => {
    // The run skips tasks 3 to 6 of the reference.
    const p = estimateProgress(
      [prepareReference(tenTasks)],
      run(
        [
          ["task 1", 0],
          ["task 2", 10],
          ["task 7", 20],
        ],
        25,
      ),
    );
    expect(p.tasks_seen).toBe(3);
    expect(p.tasks_expected).toBe(3 + 3); // tasks 8, 9, 10 still to come
    // In task 7: the run took 20 s for tasks 1 and 2, as the reference did (the skipped tasks
    // took it no time), so its pace is 1. Left: the rest of task 7 and tasks 8-10.
    expect(p.remaining_sec).toBeCloseTo(5 + 30, 3);
    expect(p.fraction).toBeCloseTo(25 / 60, 3);
  });

  it("aligns repeated tasks (an include in a loop) by occurrence", () => {
    const names = ["setup", "item", "item", "item", "item", "finish"];
    const ref = reference([5, 10, 10, 10, 10, 5], names); // 50 s
    const p = estimateProgress(
      [prepareReference(ref)],
      run(
        [
          ["setup", 0],
          ["item", 5],
          ["item", 15],
          ["item", 25],
        ],
        30,
      ),
    );
    // The third "item" of the reference, not the first: 25 s of 50 done.
    expect(p.fraction).toBeCloseTo(0.6, 3);
    expect(p.remaining_sec).toBeCloseTo(20, 3);
    expect(p.tasks_expected).toBe(6);
    expect(taskKeys(names.map((task) => ({ play: 1, task })))).toEqual([
      "1\u0000setup\u00001",
      "1\u0000item\u00001",
      "1\u0000item\u00002",
      "1\u0000item\u00003",
      "1\u0000item\u00004",
      "1\u0000finish\u00001",
    ]);
  });

  it("a task of the same name in another play is another task", () => {
    const ref: ReferenceRun = {
      tasks: [
        { play: 1, task: "Install", start_sec: 0, end_sec: 10 },
        { play: 2, task: "Install", start_sec: 10, end_sec: 90 },
      ],
      total_sec: 100,
    };
    const first = estimateProgress([prepareReference(ref)], run([["Install", 0]], 5, 1));
    const second = estimateProgress([prepareReference(ref)], {
      tasks: [...run([["Install", 0]], 0).tasks, { play: 2, task: "Install", start_sec: 10 }],
      elapsed_sec: 15,
    });
    expect(first.fraction).toBeCloseTo(0.05, 3);
    expect(second.fraction).toBeCloseTo(0.15, 3);
  });

  it("past every reference task: the fraction stays below 1 and the time left is a little", () => {
    const ref = reference([10, 10], undefined, 0.5);
    const p = estimateProgress(
      [prepareReference(ref)],
      run(
        [
          ["task 1", 0],
          ["task 2", 10],
          ["task 3", 20],
        ],
        60,
      ),
    );
    expect(p.fraction).toBeLessThanOrEqual(MAX_RUNNING_FRACTION);
    expect(p.fraction).toBeGreaterThan(0.9);
    expect(p.remaining_sec).toBeLessThan(1);
    expect(p.overdue).toBe(true);
    expect(p.tasks_expected).toBe(3); // never below the tasks seen
  });

  it("places a run with no known task by its elapsed time", () => {
    const p = estimateProgress([prepareReference(tenTasks)], run([["renamed", 0]], 30));
    expect(p.fraction).toBeCloseTo(0.3, 3);
    expect(p.remaining_sec).toBeCloseTo(70, 3);
  });

  it("leaves out references that say nothing (no tasks, zero total) and combines the rest by median", () => {
    const empty: ReferenceRun = { tasks: [], total_sec: 12 };
    const zero: ReferenceRun = { tasks: [{ play: 1, task: "task 1", start_sec: 0, end_sec: 0 }], total_sec: 0 };
    expect(prepareReference(empty)).toBeNull();
    expect(prepareReference(zero)).toBeNull();
    const refs = [reference([10, 10, 10]), reference([20, 20, 20]), reference([100, 100, 100]), empty, zero].map(prepareReference);
    const p = estimateProgress(refs, run([["task 1", 0]], 0));
    expect(p.basis).toBe(3);
    expect(p.remaining_sec).toBe(60); // the median of 30, 60 and 300
    expect(p.remaining_range_sec).toEqual([30, 300]);
    expect(p.tasks_expected).toBe(3);
  });

  it("the estimate improves as the run goes: error shrinks on a uniformly slower run", () => {
    const actual = tenTasks.tasks.map((t) => ({ ...t, start_sec: t.start_sec * 1.5 }));
    const errors = [2, 5, 8].map((k) => {
      const elapsed = actual[k]!.start_sec + 1;
      const p = estimateProgress(
        [prepareReference(tenTasks)],
        run(
          actual.slice(0, k + 1).map((t) => [t.task, t.start_sec]),
          elapsed,
        ),
      );
      return Math.abs(p.remaining_sec! - (150 - elapsed));
    });
    expect(errors[1]).toBeLessThan(errors[0]!);
    expect(errors[2]).toBeLessThan(errors[1]!);
  });

  it("a finished job is done", () => {
    expect(finishedProgress(7, 42.5)).toMatchObject({ tasks_seen: 7, tasks_expected: 7, fraction: 1, remaining_sec: 0 });
  });
});

describe("TaskStartTracker", () => {
  const T0 = 1_700_000_000;
  const ev = (e: Record<string, unknown>): PlayformEvent => ({ v: 1, ...e }) as PlayformEvent;
  const events: PlayformEvent[] = [
    ev({ type: "playbook_start", ts: T0, playbook: "site.yml" }),
    ev({ type: "play_start", ts: T0, name: "one", pattern: "all", batch: 1, strategy: "linear" }),
    ev({ type: "task_start", ts: T0 + 1, task: "a", name: "First", kind: "task" }),
    ev({ type: "task_result", ts: T0 + 2, task: "a", host: "h1", status: "ok", changed: false }),
    ev({ type: "task_start", ts: T0 + 2, task: "b", name: "Second", kind: "task", display_name: "role : Second" }),
    ev({ type: "task_start", ts: T0 + 3, task: "b", name: "Second", kind: "task", display_name: "role : Second" }),
    ev({ type: "play_start", ts: T0 + 4, name: "free", pattern: "all", batch: 1, strategy: "free" }),
    ev({ type: "task_start", ts: T0 + 5, task: "c", name: "Free", kind: "task" }),
    ev({ type: "task_start", ts: T0 + 5.5, task: "c", name: "Free", kind: "task" }),
    ev({ type: "task_result", ts: T0 + 7, task: "c", host: "h1", status: "ok", changed: false }),
  ];

  it("gives the timeline's tasks, fed in pieces", () => {
    const tracker = new TaskStartTracker();
    expect(tracker.startedAt).toBeNull();
    expect(tracker.eventSpan).toBe(0);
    tracker.feed(events.slice(0, 4));
    tracker.feed(events.slice(4, 8));
    tracker.feed(events.slice(8));
    const timeline = timelineFromEvents(events);
    expect(tracker.tasks()).toEqual(timeline.tasks.map((t) => ({ play: t.play, task: t.task, start_sec: t.start_sec })));
    expect(tracker.taskCount).toBe(4);
    expect(tracker.startedAt).toBe(T0 + 1);
    expect(tracker.eventSpan).toBe(6);
  });
});
