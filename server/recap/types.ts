/**
 * The recap JSON: what happened in one ansible-playbook run.
 * Field names are fixed by the recap contract (docs/recap.md); both the text parser and the
 * events reducer produce exactly this shape, so the API, the CLI and the UI share one type.
 */

export interface RecapPlay {
  /** 1-based position of the PLAY banner (a serial play has one entry per batch). */
  number: number;
  name: string;
  /** Host pattern as written; only known in a --list-tasks plan, null in run logs. */
  hosts: string | null;
}

export interface RecapHostRow {
  host: string;
  ok: number;
  changed: number;
  unreachable: number;
  failed: number;
  skipped: number;
  rescued: number;
  ignored: number;
}

export interface RecapTaskTiming {
  task: string;
  seconds: number;
}

export type RecapStatus = "successful" | "failed" | "incomplete" | "plan";

export interface Recap {
  plays: RecapPlay[];
  hosts: RecapHostRow[];
  elapsed_sec: number | null;
  slowest_tasks: RecapTaskTiming[];
  changed_tasks: string[];
  ignored_failures: string[];
  failed_tasks: string[];
  unreachable_hosts: string[];
  status: RecapStatus;
  /** Present only when status is "plan". */
  tasks_per_play?: number[];
  /**
   * What an incomplete run got (docs/recap.md, "Incomplete runs"): present only when status
   * is "incomplete" and the partial figures were asked for (a job's recap). `hosts` keeps
   * meaning the PLAY RECAP rows, so it stays empty for such a run; these are per-host counts
   * of the task results seen so far, in the same row shape.
   */
  partial_hosts?: RecapHostRow[];
  /** profile_tasks' elapsed time at its last timestamp line; null without profile_tasks. */
  partial_elapsed_sec?: number | null;
  /** profile_tasks' durations of the tasks that ended, slowest first. */
  partial_slowest_tasks?: RecapTaskTiming[];
  /**
   * Where PLAY RECAP's changed= counts come from (docs/recap.md, "Changed results by host"):
   * present only in a job's recap from events, which know each result's host. One entry per
   * task name, in the order of its first such result.
   */
  changed_results?: RecapChangedResults;
  /**
   * Playbook elapsed measured from the events, to the millisecond: the timeline's total_sec
   * (first task start to the last playbook end); null when the run has none (killed). Present
   * only in a job's recap from events; elapsed_sec stays profile_tasks' whole seconds.
   */
  playbook_sec?: number | null;
  /**
   * Present (true) only in the recap of a job whose output the runner cut at PROCESS_MAX_BUFFER
   * (the job's outputTruncated): the output it was read from, or that the page shows, is partial.
   */
  output_truncated?: true;
}

/** A task's results that counted as changed, per host. */
export interface RecapTaskHosts {
  task: string;
  /** Hosts with at least one such result, sorted by code point. */
  hosts: string[];
  /** Such results: one per task occurrence and host (a loop's items are one). */
  results: number;
}

export interface RecapChangedResults {
  /** Results that reported changed and did not fail: the tasks of changed_tasks (and loops'). */
  changed: RecapTaskHosts[];
  /** Failed results ignored with ignore_errors that reported changed: counted as changed by Ansible, printed as `fatal:`. */
  ignored_failures: RecapTaskHosts[];
}

export interface RecapOptions {
  /**
   * A job's recap or an uploaded log's (POST /api/recap): add partial_hosts /
   * partial_elapsed_sec / partial_slowest_tasks to an incomplete recap, and (from events)
   * changed_results. The CLI and the fixtures leave it off.
   */
  partial?: boolean;
}

export const HOST_COUNTERS = ["ok", "changed", "unreachable", "failed", "skipped", "rescued", "ignored"] as const;
export type HostCounter = (typeof HOST_COUNTERS)[number];
