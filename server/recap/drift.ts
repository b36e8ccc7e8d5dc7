/**
 * Drift watch (docs/api.md, "Drift"): a schedule in drift mode launches each tick as a drift
 * check, the form's playbook with `--check --diff` (server/jobs/launch.ts). A host on which a
 * check reports a change has drifted from what the playbook says it should be: it is marked
 * drifted since the first check of the run of checks that found changes, with the tasks that
 * would change it and their diff lines. The next check that reaches it and finds nothing
 * clears the mark.
 *
 * - Per host and form: two forms watch different things, so one form's clean check does not
 *   clear another's drift.
 * - Written with the check's hosts (server/data/hosts.ts, in the same transaction), from the
 *   state stored for the host and form: a check older than the newest one taken into account
 *   (a catch-up writing late) changes nothing.
 * - A check that did not reach the host (unreachable, failed before any change) says nothing
 *   about it: the mark stays as it was. A check that ended early (aborted, abandoned) marks what
 *   it saw change, and clears nothing.
 * - Read in the reader's scope: a drift shows only to a reader who may read the newest check
 *   that found it (its launcher, observers of the form, admins).
 * - The diff lines are the `diff` events of the check (the callback plugin sends what stdout
 *   shows for a changed result under --diff), masked by the runner as its output is.
 */
import type { PlayformEvent } from "./events";
import { taskNameOf } from "./from-events";

/** A task's diff lines kept per host, in characters (the runner already cut each result's at 16 Ki). */
export const DRIFT_DIFF_MAX = 16_384;
/** At most this many tasks are kept per drifted host (a check that would change everything names the first ones). */
export const DRIFT_TASKS_MAX = 100;

export interface DriftTask {
  /** The task's name as its banner shows it. */
  task: string;
  /** What --diff printed for it on this host (a loop: every changed item's diff); null when it printed none. */
  diff: string | null;
}

/** The diff lines of each task on each host: host → task name → text, from a run's `diff` events. Pure. */
export function diffsByHost(events: Iterable<PlayformEvent>): Map<string, Map<string, string>> {
  const names = new Map<string, string>();
  const diffs = new Map<string, Map<string, string>>();
  for (const event of events) {
    if (event.type === "task_start") names.set(event.task, taskNameOf(event));
    if (event.type !== "diff") continue;
    const task = names.get(event.task);
    if (task === undefined) continue;
    const ofHost = diffs.get(event.host) ?? new Map<string, string>();
    ofHost.set(task, cut((ofHost.get(task) ?? "") + event.diff));
    diffs.set(event.host, ofHost);
  }
  return diffs;
}

function cut(text: string): string {
  if (text.length <= DRIFT_DIFF_MAX) return text;
  const end = /[\uD800-\uDBFF]/.test(text[DRIFT_DIFF_MAX - 1]!) ? DRIFT_DIFF_MAX - 1 : DRIFT_DIFF_MAX;
  return `${text.slice(0, end)}\n… (cut at ${DRIFT_DIFF_MAX} characters: the job's output has it whole)\n`;
}

/** A host's drift tasks: the tasks that would change it, with their diff lines. Pure. */
export function driftTasksOf(changedTasks: readonly string[], diffs: ReadonlyMap<string, string> | undefined): DriftTask[] {
  return changedTasks.slice(0, DRIFT_TASKS_MAX).map((task) => ({ task, diff: diffs?.get(task) ?? null }));
}

/** What is stored per host and form (HostDrift). */
export interface DriftState {
  checkedAt: Date;
  checkedJobId: number;
  since: Date | null;
  sinceJobId: number | null;
  jobId: number | null;
  userId: string | null;
  tasks: DriftTask[] | null;
}

/** One host's result in one finished drift check. */
export interface DriftCheck {
  jobId: number;
  finishedAt: Date;
  /** The check's launcher (the schedule's owner). */
  userId: string;
  /** Whether the check ran to its end (success or failed), so that "no change" can be believed. */
  complete: boolean;
  changed: number;
  failed: number;
  unreachable: number;
  tasks: DriftTask[];
}

/**
 * The state after `check`, from the stored one (null: none yet); null when the check changes
 * nothing (older than the state, or silent about the host). A check written again (its recap
 * changed) is taken into account again. Pure.
 */
export function nextDriftState(previous: DriftState | null, check: DriftCheck): DriftState | null {
  if (
    previous &&
    (check.finishedAt < previous.checkedAt || (+check.finishedAt === +previous.checkedAt && check.jobId < previous.checkedJobId))
  )
    return null;
  const checked = { checkedAt: check.finishedAt, checkedJobId: check.jobId };
  if (check.changed > 0) {
    // Still drifted: since the first check of the run that found changes (this one, written again, keeps its own).
    const ongoing = previous?.since != null && previous.sinceJobId !== check.jobId;
    return {
      ...checked,
      since: ongoing ? previous.since : check.finishedAt,
      sinceJobId: ongoing ? previous.sinceJobId : check.jobId,
      jobId: check.jobId,
      userId: check.userId,
      tasks: check.tasks,
    };
  }
  if (!check.complete || check.failed > 0 || check.unreachable > 0) return null;
  return { ...checked, since: null, sinceJobId: null, jobId: null, userId: null, tasks: null };
}
