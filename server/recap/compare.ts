/**
 * Run-to-run analytics on recaps (pure): the idempotence question for two runs of the same
 * playbook ("what changed again the second time?") and trends across the last N runs.
 * Output keys are snake_case like the recap JSON, since both end up in the same API.
 */
import { HOST_COUNTERS, type HostCounter, type Recap, type RecapHostRow, type RecapStatus } from "./types";

export type HostCounts = Record<HostCounter, number>;

export interface HostComparison {
  host: string;
  /**
   * Counts in the first / second run; null when the host is not in that run's recap. For a run
   * that stopped before its PLAY RECAP (in `incomplete_runs`), its `partial_hosts` when the recap
   * has them (a job's or an upload's): the results it printed so far.
   */
  a: HostCounts | null;
  b: HostCounts | null;
  /** b - a per counter, a missing side counting as zeros. */
  delta: HostCounts;
}

export interface ElapsedComparison {
  a: number | null;
  b: number | null;
  /** b - a; null when either run has no profile_tasks summary. */
  delta_sec: number | null;
}

export interface TaskTimingComparison {
  task: string;
  /** null when the task is not in that run's slowest_tasks (only the top N are printed). */
  a_sec: number | null;
  b_sec: number | null;
  delta_sec: number | null;
}

export interface RecapComparison {
  /**
   * False when either run is not a complete run (recap status `incomplete`: killed, aborted;
   * or a `plan`): it did not run every task, so what it did not change says nothing about
   * idempotence. The lists below are then what the logs show, not a verdict.
   */
  idempotence_judgeable: boolean;
  /** Which sides are not complete runs ("first", "second"): empty when idempotence_judgeable. */
  incomplete_runs: ("first" | "second")[];
  changed_in_both: string[];
  changed_only_first: string[];
  changed_only_second: string[];
  hosts: HostComparison[];
  elapsed: ElapsedComparison;
  /**
   * Playbook elapsed measured from each job's events (recap `playbook_sec`), to the millisecond;
   * null unless both recaps have it (a job's recap from events of a run that reached its end).
   */
  playbook: PlaybookTimeComparison | null;
  tasks: TaskTimingComparison[];
}

export interface PlaybookTimeComparison {
  a_sec: number;
  b_sec: number;
  /** b - a, to the millisecond. */
  delta_sec: number;
}

function counts(row: RecapHostRow): HostCounts {
  const out = zeroCounts();
  for (const c of HOST_COUNTERS) out[c] = row[c];
  return out;
}

function zeroCounts(): HostCounts {
  return { ok: 0, changed: 0, unreachable: 0, failed: 0, skipped: 0, rescued: 0, ignored: 0 };
}

/** Timings are printed with 2 decimals; rounding keeps 1.2 - 1.1 from showing as 0.0999…. */
function secondsDelta(a: number, b: number): number {
  return Math.round((b - a) * 100) / 100;
}

/** Ansible sorts recap rows by code point (Python sorted()), so do the same, not localeCompare. */
function byCodePoint(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Keys `name#k` for the k-th occurrence of a name: two tasks may share a name, and the k-th one
 * of the first run is paired with the k-th one of the second.
 */
function occurrenceKeys(names: string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((n) => {
    const k = seen.get(n) ?? 0;
    seen.set(n, k + 1);
    return `${n}\u0000${k}`;
  });
}

/** Reached its PLAY RECAP (successful or failed): ran every task it was going to run. */
export function isComplete(recap: Recap): boolean {
  return recap.status === "successful" || recap.status === "failed";
}

/** The rows a run's hosts are compared by: its PLAY RECAP, or what an incomplete run got so far. */
export function hostRows(recap: Recap): RecapHostRow[] {
  return !isComplete(recap) && recap.partial_hosts ? recap.partial_hosts : recap.hosts;
}

export function compareRecaps(a: Recap, b: Recap): RecapComparison {
  const inA = new Set(a.changed_tasks);
  const inB = new Set(b.changed_tasks);

  const rowsA = new Map(hostRows(a).map((r) => [r.host, r]));
  const rowsB = new Map(hostRows(b).map((r) => [r.host, r]));
  const hostNames = [...new Set([...rowsA.keys(), ...rowsB.keys()])].sort(byCodePoint);
  const hosts = hostNames.map((host): HostComparison => {
    const ra = rowsA.get(host);
    const rb = rowsB.get(host);
    const ca = ra ? counts(ra) : null;
    const cb = rb ? counts(rb) : null;
    const delta = zeroCounts();
    for (const c of HOST_COUNTERS) delta[c] = (cb?.[c] ?? 0) - (ca?.[c] ?? 0);
    return { host, a: ca, b: cb, delta };
  });

  const keysA = occurrenceKeys(a.slowest_tasks.map((t) => t.task));
  const keysB = occurrenceKeys(b.slowest_tasks.map((t) => t.task));
  const secB = new Map(keysB.map((k, i) => [k, b.slowest_tasks[i]?.seconds ?? 0]));
  const tasks: TaskTimingComparison[] = a.slowest_tasks.map((t, i) => {
    const key = keysA[i] ?? "";
    const bSec = secB.get(key);
    secB.delete(key);
    return bSec === undefined
      ? { task: t.task, a_sec: t.seconds, b_sec: null, delta_sec: null }
      : { task: t.task, a_sec: t.seconds, b_sec: bSec, delta_sec: secondsDelta(t.seconds, bSec) };
  });
  b.slowest_tasks.forEach((t, i) => {
    if (secB.has(keysB[i] ?? "")) tasks.push({ task: t.task, a_sec: null, b_sec: t.seconds, delta_sec: null });
  });

  const incomplete_runs: ("first" | "second")[] = [];
  if (!isComplete(a)) incomplete_runs.push("first");
  if (!isComplete(b)) incomplete_runs.push("second");
  return {
    idempotence_judgeable: incomplete_runs.length === 0,
    incomplete_runs,
    changed_in_both: a.changed_tasks.filter((t) => inB.has(t)),
    changed_only_first: a.changed_tasks.filter((t) => !inB.has(t)),
    changed_only_second: b.changed_tasks.filter((t) => !inA.has(t)),
    hosts,
    elapsed: {
      a: a.elapsed_sec,
      b: b.elapsed_sec,
      delta_sec: a.elapsed_sec === null || b.elapsed_sec === null ? null : b.elapsed_sec - a.elapsed_sec,
    },
    playbook:
      typeof a.playbook_sec === "number" && typeof b.playbook_sec === "number"
        ? { a_sec: a.playbook_sec, b_sec: b.playbook_sec, delta_sec: Math.round((b.playbook_sec - a.playbook_sec) * 1000) / 1000 }
        : null,
    tasks,
  };
}

export interface TrendRunInput {
  id: string;
  /** When the job started running; with finishedAt it gives job_sec. */
  startedAt?: string;
  finishedAt?: string;
  recap: Recap;
}

/** Seconds from start to end (ISO strings), to the millisecond; null when either is unknown. */
function secondsBetween(start: string | undefined, end: string | undefined): number | null {
  if (!start || !end) return null;
  const ms = Date.parse(end) - Date.parse(start);
  return Number.isFinite(ms) && ms >= 0 ? ms / 1000 : null;
}

export interface RunDuration {
  id: string;
  finished_at: string | null;
  status: RecapStatus;
  /** The recap's elapsed_sec: playbook elapsed, whole seconds rounded down. */
  elapsed_sec: number | null;
  /** The job's launch-to-end wall time in seconds (ms precision); null when not known. */
  job_sec: number | null;
}

export interface HostFailureRate {
  host: string;
  /** Runs whose recap lists the host (a host left out by --limit is not counted). */
  runs: number;
  /** Runs in which the host had failed > 0 or unreachable > 0. */
  failed_runs: number;
  /** failed_runs / runs, between 0 and 1. */
  failure_rate: number;
}

export interface RunTrend {
  /** Runs that reached their PLAY RECAP (status successful or failed): the ones compared. */
  completed_runs: number;
  /** Tasks in changed_tasks of every completed run; empty with fewer than two completed runs. */
  never_idempotent: string[];
  /** Every completed run given, in the order given (pass them oldest first): a killed run's time is not a duration of the playbook. */
  durations: RunDuration[];
  hosts: HostFailureRate[];
}

/**
 * Trend over runs of one form, in the order given (oldest first). Killed runs and --list-tasks
 * plans have no recap rows and did not run every task, so they would make every task look
 * idempotent or every host look healthy: only completed runs feed never_idempotent and hosts.
 */
export function trendAcrossRuns(runs: TrendRunInput[]): RunTrend {
  const completed = runs.filter((r) => isComplete(r.recap));

  // One run alone says nothing about idempotence: a first run legitimately changes everything.
  let never: string[] = [];
  const [first, ...rest] = completed;
  if (first && rest.length > 0) {
    const sets = rest.map((r) => new Set(r.recap.changed_tasks));
    never = [...new Set(first.recap.changed_tasks)].filter((t) => sets.every((s) => s.has(t)));
  }

  const perHost = new Map<string, { runs: number; failed: number }>();
  for (const run of completed) {
    for (const row of run.recap.hosts) {
      const h = perHost.get(row.host) ?? { runs: 0, failed: 0 };
      h.runs += 1;
      if (row.failed > 0 || row.unreachable > 0) h.failed += 1;
      perHost.set(row.host, h);
    }
  }
  const hosts = [...perHost.entries()]
    .sort(([x], [y]) => byCodePoint(x, y))
    .map(([host, h]) => ({ host, runs: h.runs, failed_runs: h.failed, failure_rate: h.failed / h.runs }));

  return {
    completed_runs: completed.length,
    never_idempotent: never,
    durations: completed.map((r) => ({
      id: r.id,
      finished_at: r.finishedAt ?? null,
      status: r.recap.status,
      elapsed_sec: r.recap.elapsed_sec,
      job_sec: secondsBetween(r.startedAt, r.finishedAt),
    })),
    hosts,
  };
}
