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
}

export const HOST_COUNTERS = ["ok", "changed", "unreachable", "failed", "skipped", "rescued", "ignored"] as const;
export type HostCounter = (typeof HOST_COUNTERS)[number];
