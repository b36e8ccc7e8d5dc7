/**
 * Progress and time left of a running job (docs/recap.md, "Progress of a running job"), from
 * the task timelines of earlier complete runs of the same form (the references) and the tasks
 * the running job started so far.
 *
 * Pure: no I/O. Times are seconds from the run's first task start, like the timeline's.
 * The rules:
 * - A task is known by its key: play number, task name and occurrence (the how-many-th start
 *   of that name in that play: a task included in a loop, or a handler flushed twice, counts
 *   each time). A run that skips tasks (tags, a `when:` on an include) still maps, task by task.
 * - A reference task's share of its run (its slice) lasts from its start to the next task's
 *   start (the last one's: to the run's end), so the slices add up to the reference's total.
 * - For each reference, the run's position is the latest started task whose key the reference
 *   has: the run is inside that task. The reference's time for what the run did before it is
 *   the sum of the slices of the run's earlier tasks that it knows (a task the run skipped took
 *   the run no time).
 * - Pace: how much longer than the reference the run takes for a task. The median over the
 *   tasks it finished of (its time for the task / the reference's slice), weighted by the slice,
 *   so one slow task does not scale everything after it; pulled towards 1 while the run has
 *   done little (geometrically, with weight done / (done + 30 % of the reference's total)), and
 *   kept within 0.25..4.
 * - Time left against a reference: what is left of the current task's slice at that pace
 *   (nothing when the task already took longer: its overrun is not scaled) plus the
 *   reference's slices after it, at that pace.
 * - Fraction done against a reference: the reference's time for what the run did, plus the
 *   time in the current task (at the run's pace, at most its slice), over that plus the
 *   reference's time left. Capped at 0.99: a running job is not done.
 * - A run no reference task matches (nothing started yet, every name changed) is placed by its
 *   elapsed time alone, at pace 1.
 * - Combined: the median over the references of the fraction, the time left and the expected
 *   task count (the run's tasks so far plus the reference's tasks after the matched one), so one
 *   odd earlier run does not decide. `remaining_range_sec` is the lowest and highest time left.
 *   `overdue`: against every reference, the run is in its last task and past its slice.
 * - References without tasks or with a total of zero say nothing and are left out; `basis` is
 *   the number used. Without any, only the tasks seen and the elapsed time are known.
 */
import type { PlayformEvent } from "./events";

/** What the estimator needs of a task: a Timeline's tasks fit. */
export interface ProgressTask {
  play: number;
  task: string;
  start_sec: number;
}

export interface ReferenceTask extends ProgressTask {
  end_sec: number;
}

/** An earlier complete run: a Timeline fits (total_sec null means the last task's end). */
export interface ReferenceRun {
  tasks: readonly ReferenceTask[];
  total_sec: number | null;
}

/** The running job: its tasks so far, and its elapsed seconds since its first task started. */
export interface RunSoFar {
  tasks: readonly ProgressTask[];
  elapsed_sec: number;
}

export interface ProgressEstimate {
  tasks_seen: number;
  /** About how many tasks the run will have in all; null without history. Never below tasks_seen. */
  tasks_expected: number | null;
  /** 0..1 (at most MAX_RUNNING_FRACTION while running); null without history. */
  fraction: number | null;
  elapsed_sec: number;
  /** Seconds left; null without history. */
  remaining_sec: number | null;
  /** The lowest and highest time left over the references; null without history. */
  remaining_range_sec: [number, number] | null;
  /** How many earlier runs the estimate stands on. */
  basis: number;
  /** The run went on longer than every reference said it would: remaining_sec is "a little". */
  overdue: boolean;
}

/** A running job is never shown as done. */
export const MAX_RUNNING_FRACTION = 0.99;
/** How much of the reference's total the run must have done before its own pace counts half. */
export const PACE_PRIOR = 0.3;
export const MIN_PACE = 0.25;
export const MAX_PACE = 4;

const round3 = (x: number): number => Math.round(x * 1000) / 1000;
const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The keys of a run's tasks, in order: play, name, occurrence of that name in that play. */
export function taskKeys(tasks: readonly { play: number; task: string }[]): string[] {
  const seen = new Map<string, number>();
  return tasks.map((t) => {
    const base = `${t.play}\u0000${t.task}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return `${base}\u0000${n}`;
  });
}

/** A reference ready to be matched against: its keys indexed (build once, keep while the job is immutable). */
export interface PreparedReference {
  starts: number[];
  /** Each task's share of the run: from its start to the next task's start (the last: to the end). */
  slices: number[];
  total: number;
  index: Map<string, number>;
}

/** Null for a reference that says nothing (no tasks, or a total of zero). */
export function prepareReference(run: ReferenceRun): PreparedReference | null {
  if (run.tasks.length === 0) return null;
  const total = run.tasks.reduce((max, t) => Math.max(max, t.end_sec, t.start_sec), run.total_sec ?? 0);
  if (!(total > 0)) return null;
  const index = new Map<string, number>();
  taskKeys(run.tasks).forEach((key, i) => index.set(key, i));
  const starts = run.tasks.map((t) => t.start_sec);
  const slices = starts.map((start, i) => Math.max(0, (starts[i + 1] ?? total) - start));
  return { starts, slices, total, index };
}

interface Against {
  fraction: number;
  remaining: number;
  expected: number;
  overdue: boolean;
}

/**
 * How much longer than the reference the run takes for a task, from the tasks it finished
 * before task `matched`: the median of the ratios run time / reference slice, weighted by the
 * slice (a long task says more than a short one, and one slow task does not move a median),
 * pulled towards 1 while the run has done little of the reference (geometric weight
 * refDone / (refDone + PACE_PRIOR × total)), within MIN_PACE..MAX_PACE.
 */
function paceAgainst(
  ref: PreparedReference,
  run: RunSoFar,
  positions: readonly (number | undefined)[],
  matched: number,
  refDone: number,
): number {
  const ratios: { ratio: number; weight: number }[] = [];
  let previous = -1;
  for (let i = 0; i <= matched; i++) {
    if (positions[i] === undefined) continue;
    // A task's time in the run: from its start to the next known task's start (tasks the
    // reference lacks count with the task before them).
    const weight = previous < 0 ? 0 : ref.slices[positions[previous]!]!;
    if (weight > 0) ratios.push({ ratio: (run.tasks[i]!.start_sec - run.tasks[previous]!.start_sec) / weight, weight });
    previous = i;
  }
  if (ratios.length === 0) return 1;
  ratios.sort((a, b) => a.ratio - b.ratio);
  const half = ratios.reduce((sum, r) => sum + r.weight, 0) / 2;
  let acc = 0;
  let raw = ratios[ratios.length - 1]!.ratio;
  for (const r of ratios) {
    acc += r.weight;
    if (acc >= half) {
      raw = r.ratio;
      break;
    }
  }
  const trust = refDone / (refDone + PACE_PRIOR * ref.total);
  return clamp(Math.exp(trust * Math.log(Math.max(raw, MIN_PACE))), MIN_PACE, MAX_PACE);
}

function against(ref: PreparedReference, run: RunSoFar, keys: readonly string[]): Against {
  const elapsed = Math.max(0, run.elapsed_sec);
  const positions = keys.map((key) => ref.index.get(key));
  // The latest started task the reference knows.
  let matched = positions.length - 1;
  while (matched >= 0 && positions[matched] === undefined) matched--;
  if (matched < 0) {
    // Nothing to align on: place the run by its elapsed time at pace 1.
    const remaining = Math.max(0, ref.total - elapsed);
    return {
      fraction: Math.min(MAX_RUNNING_FRACTION, elapsed / ref.total),
      remaining,
      expected: Math.max(keys.length, ref.starts.length),
      overdue: keys.length > 0 && remaining === 0,
    };
  }
  const at = positions[matched]!;
  // The reference's time for what the run did before the current task: the slices of the
  // tasks it matched (tasks it skipped took it no time).
  let refDone = 0;
  for (let i = 0; i < matched; i++) {
    const p = positions[i];
    if (p !== undefined) refDone += ref.slices[p]!;
  }
  const runStart = Math.min(run.tasks[matched]!.start_sec, elapsed);
  const pace = paceAgainst(ref, run, positions, matched, refDone);
  const slice = ref.slices[at]!;
  const inTask = elapsed - runStart;
  const leftInTask = Math.max(0, pace * slice - inTask);
  const after = Math.max(0, ref.total - ref.starts[at]! - slice);
  const done = refDone + Math.min(inTask / pace, slice);
  return {
    fraction: Math.min(MAX_RUNNING_FRACTION, done / (refDone + slice + after)),
    remaining: leftInTask + pace * after,
    // The run's tasks so far, plus the reference's after the matched one.
    expected: keys.length + (ref.starts.length - 1 - at),
    overdue: leftInTask === 0 && after * pace < 1,
  };
}

/** The estimate for a running job against prepared references (newest first; order does not matter). */
export function estimateProgress(references: readonly (PreparedReference | null)[], run: RunSoFar): ProgressEstimate {
  const refs = references.filter((r): r is PreparedReference => r !== null);
  const elapsed = round3(Math.max(0, run.elapsed_sec));
  const seen = run.tasks.length;
  if (refs.length === 0) {
    return {
      tasks_seen: seen,
      tasks_expected: null,
      fraction: null,
      elapsed_sec: elapsed,
      remaining_sec: null,
      remaining_range_sec: null,
      basis: 0,
      overdue: false,
    };
  }
  const keys = taskKeys(run.tasks);
  const each = refs.map((ref) => against(ref, run, keys));
  const remaining = each.map((e) => e.remaining);
  return {
    tasks_seen: seen,
    tasks_expected: Math.max(seen, Math.round(median(each.map((e) => e.expected)))),
    fraction: round3(median(each.map((e) => e.fraction))),
    elapsed_sec: elapsed,
    remaining_sec: round3(median(remaining)),
    remaining_range_sec: [round3(Math.min(...remaining)), round3(Math.max(...remaining))],
    basis: refs.length,
    overdue: each.every((e) => e.overdue),
  };
}

/** A finished job: done, whatever its history. */
export function finishedProgress(tasksSeen: number, elapsedSec: number): ProgressEstimate {
  return {
    tasks_seen: tasksSeen,
    tasks_expected: tasksSeen,
    fraction: 1,
    elapsed_sec: round3(Math.max(0, elapsedSec)),
    remaining_sec: 0,
    remaining_range_sec: [0, 0],
    basis: 0,
    overdue: false,
  };
}

const FREE_STRATEGY = /(^|\.)(free|host_pinned)$/;

/**
 * The tasks a run started, fed its events a batch at a time (a running job's new events only):
 * the same task entries, in the same order, with the same names and plays as timelineFromEvents
 * gives, without keeping the events. A free-strategy play starts a task once per host: one
 * entry per play, as in the timeline.
 */
export class TaskStartTracker {
  private plays = 0;
  private freePlay = false;
  private playHasEntry = false;
  private startedInPlay = new Set<string>();
  private readonly starts: { play: number; task: string; ts: number }[] = [];
  private first: number | null = null;
  private last: number | null = null;

  feed(events: Iterable<PlayformEvent>): void {
    for (const e of events) {
      this.last = this.last === null ? e.ts : Math.max(this.last, e.ts);
      if (e.type === "play_start") {
        this.plays += 1;
        this.playHasEntry = true;
        this.freePlay = FREE_STRATEGY.test(e.strategy ?? "");
        this.startedInPlay = new Set();
      } else if (e.type === "task_start") {
        if (!this.playHasEntry) {
          // A task before any play_start: it gets a play of its own, as in the timeline.
          this.plays += 1;
          this.playHasEntry = true;
          this.freePlay = false;
          this.startedInPlay = new Set();
        }
        if (this.freePlay && this.startedInPlay.has(e.task)) continue;
        this.startedInPlay.add(e.task);
        this.first ??= e.ts;
        this.starts.push({ play: this.plays, task: e.display_name ?? e.name, ts: e.ts });
      }
    }
  }

  get taskCount(): number {
    return this.starts.length;
  }

  /** Epoch seconds of the first task start; null before it. */
  get startedAt(): number | null {
    return this.first;
  }

  /** Seconds from the first task start to the last event fed; 0 before the first task. */
  get eventSpan(): number {
    return this.first === null || this.last === null ? 0 : round3(Math.max(0, this.last - this.first));
  }

  tasks(): ProgressTask[] {
    const t0 = this.first ?? 0;
    return this.starts.map((s) => ({ play: s.play, task: s.task, start_sec: round3(Math.max(0, s.ts - t0)) }));
  }
}
