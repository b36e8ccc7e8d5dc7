/**
 * What the line-addressed output API answers (docs/api.md, "A job's output, by line"). Types
 * only: the browser imports them through components/api/types.ts.
 */

/** One line of a job's output. */
export interface OutputLine {
  /** 1-based line number within the job. */
  n: number;
  /** `stdout`, `stderr`, or `rte` (the runner's own lines about the job). */
  stream: string;
  /** Verbatim, without its newline: colour codes included, secrets masked by the runner. */
  text: string;
}

/** GET /api/jobs/ID/lines */
export interface OutputWindow {
  jobId: number;
  /** The first line asked for (with `tail`, the first of the last lines). */
  from: number;
  /** The job's line count when this was read. */
  total: number;
  /** The job has ended: `total` is final. */
  final: boolean;
  /** The colour state (an SGR sequence) in force at line `from`; null when plain. */
  ansi: string | null;
  lines: OutputLine[];
}

/** GET /api/jobs/ID/search */
export interface OutputSearch {
  q: string;
  /** Line numbers, ascending. */
  matches: number[];
  /** More lines matched than `limit`. */
  truncated: boolean;
}

export type OutputMarkerKind = "play" | "task" | "handler" | "recap";

/** Where a play, task, handler or the PLAY RECAP starts in a job's output. */
export interface OutputMarker {
  line: number;
  kind: OutputMarkerKind;
  /** As in its banner: `PLAY [web servers]` → `web servers`, `TASK [common : install]` → `common : install`. */
  name: string;
  /** The play it belongs to (for a play: its own name; empty before the first play). */
  play: string;
}

/** GET /api/jobs/ID/tasks */
export interface OutputTaskIndex {
  tasks: OutputMarker[];
}
