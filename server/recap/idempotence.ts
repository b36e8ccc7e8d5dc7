/**
 * The idempotence report of a form (pure): across its last complete runs, how often each task
 * changed, on which hosts, and in which runs first and last. Worst offenders first, so a team
 * fixes those first. Output keys are snake_case like the recap JSON (docs/recap.md,
 * "Beyond one run").
 *
 * The rules:
 * - A task is identified by its play and its name: the play's name and which play of that
 *   name it is (`play_occurrence`, 1 for the first play so named, 2 for the second…), and the
 *   task's banner name (as in the recap's changed_tasks). So two tasks named alike in two
 *   plays stay apart, even when the plays share a name; and adding a play of another name to
 *   the playbook does not renumber the others. The batches of a `serial` play are one play
 *   (their tasks are merged). Tasks of the same name in the same play are one task (a
 *   handler flushed twice, a repeated "restart" task): their hosts are merged.
 * - Only complete runs count: recap status successful or failed (they reached their PLAY
 *   RECAP) and, when given, job status success or failed. An incomplete run (killed, aborted,
 *   abandoned, a plan) did not run every task, so what it did not change says nothing: it is
 *   skipped and counted in `skipped_incomplete`.
 * - A task "ran" in a run when at least one host has a result for it that is not skipped.
 *   It "changed" when at least one host reported changed (a loop: any item changed).
 * - A run without structured events (an old RTE) knows only its recap's changed_tasks: no
 *   hosts, no plays, and not which tasks ran. Its changes go to the first task (in task order)
 *   of that name, or to a task of that name with `play: null`; since a complete run ran every
 *   task it had to, it counts as having run every task of the report. A task's `hosts` is null
 *   when no run it changed in had events; `hosts_unknown_runs` counts its changed runs whose
 *   hosts are not known.
 * - Listed: the tasks that changed in at least one complete run; `tasks_never_changed`
 *   counts the others (a kubespray run has hundreds).
 * - Sorted by runs_changed (descending), then change_rate (descending), then task order: the
 *   order of the latest run that ran the task (tasks of the latest run first, in its order;
 *   then those only older runs had).
 */
import type { PlayformEvent } from "./events";
import { timelineFromEvents } from "./timeline";
import type { Recap } from "./types";

/** One task of one run, as the report needs it. */
export interface TaskChanges {
  /** The play's name; null when unknown (a run without events). */
  play: string | null;
  /** 1 for the first play of that name in the run, 2 for the second…; null with play null. */
  play_occurrence: number | null;
  task: string;
  /** Some host has a result that is not skipped. */
  ran: boolean;
  /** Hosts that reported changed, in the order their results came (shared when empty: do not mutate). */
  changed_hosts: readonly string[];
  /** The task's time in the run (the timeline's durations; a serial play's batches added up), to the millisecond. */
  sec: number;
}

/**
 * What one run did, task by task, from its structured events (via the timeline's per-host
 * statuses). Small next to the events (a kubespray run: ~20,000 events, ~1,000 tasks): this
 * is what the domain caches per finished job.
 */
export function taskChangesFromEvents(events: readonly PlayformEvent[]): TaskChanges[] {
  const timeline = timelineFromEvents(events);
  // The timeline numbers plays by play_start (each serial batch is one); which of them are
  // later batches of the play before comes from the events.
  const batches: number[] = [];
  let taskBeforePlay = false;
  for (const e of events) {
    if (e.type === "play_start") batches.push(e.batch ?? 1);
    else if (e.type === "task_start" && batches.length === 0) taskBeforePlay = true;
  }
  if (taskBeforePlay) batches.unshift(1); // the timeline gave those tasks a play of its own

  const logical = new Map<number, { name: string; occurrence: number }>();
  const seenNames = new Map<string, number>();
  let previous: { name: string; occurrence: number } | null = null;
  for (const [i, play] of timeline.plays.entries()) {
    const batch = batches[i] ?? 1;
    if (batch > 1 && previous !== null && previous.name === play.name) {
      logical.set(play.number, previous);
      continue;
    }
    const occurrence = (seenNames.get(play.name) ?? 0) + 1;
    seenNames.set(play.name, occurrence);
    previous = { name: play.name, occurrence };
    logical.set(play.number, previous);
  }

  const byKey = new Map<string, Omit<TaskChanges, "changed_hosts"> & { changed: Set<string> }>();
  // One string per host name (each event parsed its own copy): the summary is what stays cached.
  const hostNames = new Map<string, string>();
  const intern = (host: string): string => {
    const known = hostNames.get(host);
    if (known !== undefined) return known;
    hostNames.set(host, host);
    return host;
  };
  for (const t of timeline.tasks) {
    const play = logical.get(t.play) ?? { name: "", occurrence: 1 };
    const key = taskKey(play.name, play.occurrence, t.task);
    let entry = byKey.get(key);
    if (!entry) {
      entry = { play: play.name, play_occurrence: play.occurrence, task: t.task, ran: false, changed: new Set(), sec: 0 };
      byKey.set(key, entry);
    }
    entry.sec += t.duration_sec;
    for (const h of t.hosts) {
      if (h.status !== "skipped") entry.ran = true;
      if (h.status === "changed") entry.changed.add(intern(h.host));
    }
  }
  // Exact-size arrays, one shared empty one: a summary stays cached, most tasks change
  // nothing, and an array grown by push keeps spare room.
  return [...byKey.values()].map((e) => ({
    play: e.play,
    play_occurrence: e.play_occurrence,
    task: e.task,
    ran: e.ran,
    changed_hosts: e.changed.size > 0 ? [...e.changed] : NO_HOSTS,
    sec: Math.round(e.sec * 1000) / 1000,
  }));
}

const NO_HOSTS: readonly string[] = Object.freeze([]);

function taskKey(play: string | null, occurrence: number | null, task: string): string {
  return play === null ? `\u0001${task}` : `${play}\u0000${occurrence ?? 1}\u0000${task}`;
}

export interface IdempotenceRunInput {
  id: string;
  finishedAt?: string;
  recap: Recap;
  /**
   * The job's status when known: a run is complete only when it is success or failed (an
   * aborted or abandoned job whose log happens to reach its PLAY RECAP is still skipped).
   */
  jobStatus?: string;
  /** From taskChangesFromEvents; null when the job has no events (the recap's changed_tasks are used). */
  tasks: TaskChanges[] | null;
  /** The Ansible environment it ran in ("k8s (ansible-core 2.18.1)"); null or absent when not recorded. */
  environment?: string | null;
}

/** Ran every task it was going to run: reached its PLAY RECAP, and the job ended success or failed. */
export function isCompleteRun(run: Pick<IdempotenceRunInput, "recap" | "jobStatus">): boolean {
  const jobEnded = run.jobStatus === undefined || run.jobStatus === "success" || run.jobStatus === "failed";
  return jobEnded && (run.recap.status === "successful" || run.recap.status === "failed");
}

/** The environments of these runs in order of first use, when more than one is recorded. */
function differingEnvironments(runs: readonly IdempotenceRunInput[]): string[] {
  const seen = [...new Set(runs.map((r) => r.environment).filter((e): e is string => typeof e === "string"))];
  return seen.length > 1 ? seen : [];
}

export interface IdempotenceRunRef {
  id: string;
  finished_at: string | null;
}

export interface IdempotenceHost {
  host: string;
  /** Complete runs in which this host reported the task changed. */
  runs_changed: number;
}

export interface IdempotenceTask {
  play: string | null;
  play_occurrence: number | null;
  task: string;
  /** Complete runs in which the task ran on some host. */
  runs_ran: number;
  /** Complete runs in which the task changed on some host. */
  runs_changed: number;
  /** runs_changed / runs_ran, between 0 and 1. */
  change_rate: number;
  /** Each host with the runs it changed in, most first (then by name); null when no run it changed in had events. */
  hosts: IdempotenceHost[] | null;
  /** Changed runs without events: their hosts are not in `hosts`. */
  hosts_unknown_runs: number;
  first_changed_run: IdempotenceRunRef;
  last_changed_run: IdempotenceRunRef;
  /** Changed in the latest complete run. */
  changed_in_latest: boolean;
}

export interface IdempotenceReport {
  /** Complete runs the report is made of, oldest first, with the environment each ran in (null: not recorded). */
  runs: (IdempotenceRunRef & { source: "events" | "recap"; environment: string | null })[];
  /**
   * The environments the complete runs ran in, when more than one (else []): a task that changed
   * may have changed because another ansible-core or collection ran it, not because it is not idempotent.
   */
  environments: string[];
  complete_runs: number;
  /** Runs given that were not complete (recap status incomplete or plan): not counted. */
  skipped_incomplete: number;
  /** Tasks that ran in some complete run but never changed: not listed. */
  tasks_never_changed: number;
  tasks: IdempotenceTask[];
}

interface Row {
  play: string | null;
  play_occurrence: number | null;
  task: string;
  order: number;
  ran: number;
  changed: number;
  hosts: Map<string, number>;
  hostsKnown: boolean;
  unknownRuns: number;
  first: IdempotenceRunRef | null;
  last: IdempotenceRunRef | null;
  latest: boolean;
}

/** Ansible sorts recap rows by code point (Python sorted()), so do the same, not localeCompare. */
function byCodePoint(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The report over runs of one form, given oldest first. */
export function idempotenceReport(runs: readonly IdempotenceRunInput[]): IdempotenceReport {
  const complete = runs.filter(isCompleteRun);
  const latestId = complete[complete.length - 1]?.id;
  const rows = new Map<string, Row>();
  let order = 0;
  const rowOf = (key: string, t: { play: string | null; play_occurrence: number | null; task: string }): Row => {
    let row = rows.get(key);
    if (!row) {
      row = {
        play: t.play,
        play_occurrence: t.play_occurrence,
        task: t.task,
        order: order++,
        ran: 0,
        changed: 0,
        hosts: new Map(),
        hostsKnown: false,
        unknownRuns: 0,
        first: null,
        last: null,
        latest: false,
      };
      rows.set(key, row);
    }
    return row;
  };
  const markChanged = (row: Row, run: IdempotenceRunInput): void => {
    const ref = { id: run.id, finished_at: run.finishedAt ?? null };
    row.changed += 1;
    row.first ??= ref;
    row.last = ref;
    if (run.id === latestId) row.latest = true;
  };

  // Task order: newest run first, each in its own order (rows are created in that order).
  const newestFirst = [...complete].reverse();
  for (const run of newestFirst) {
    if (run.tasks) for (const t of run.tasks) rowOf(taskKey(t.play, t.play_occurrence, t.task), t);
  }
  const withEvents = [...rows.values()];
  let runsWithoutEvents = 0;

  for (const run of complete) {
    if (run.tasks) {
      for (const t of run.tasks) {
        const row = rowOf(taskKey(t.play, t.play_occurrence, t.task), t);
        if (t.ran || t.changed_hosts.length > 0) row.ran += 1;
        if (t.changed_hosts.length === 0) continue;
        markChanged(row, run);
        row.hostsKnown = true;
        for (const host of t.changed_hosts) row.hosts.set(host, (row.hosts.get(host) ?? 0) + 1);
      }
      continue;
    }
    // No events: the recap's changed task names, matched to the first task of that name.
    const hit = new Set<Row>();
    for (const name of new Set(run.recap.changed_tasks)) {
      const match =
        withEvents.find((r) => r.task === name) ?? rowOf(taskKey(null, null, name), { play: null, play_occurrence: null, task: name });
      if (hit.has(match)) continue;
      hit.add(match);
      markChanged(match, run);
      match.unknownRuns += 1;
    }
    runsWithoutEvents += 1;
  }
  // A complete run ran every task it had to: one without events counts as having run each one.
  for (const row of rows.values()) row.ran += runsWithoutEvents;

  const all = [...rows.values()];
  const tasks = all
    .filter((r) => r.changed > 0)
    .map((r): IdempotenceTask & { order: number } => ({
      play: r.play,
      play_occurrence: r.play_occurrence,
      task: r.task,
      runs_ran: Math.max(r.ran, r.changed),
      runs_changed: r.changed,
      change_rate: r.changed / Math.max(r.ran, r.changed),
      hosts: r.hostsKnown
        ? [...r.hosts.entries()].sort(([ha, a], [hb, b]) => b - a || byCodePoint(ha, hb)).map(([host, n]) => ({ host, runs_changed: n }))
        : null,
      hosts_unknown_runs: r.unknownRuns,
      first_changed_run: r.first!,
      last_changed_run: r.last!,
      changed_in_latest: r.latest,
      order: r.order,
    }))
    .sort((a, b) => b.runs_changed - a.runs_changed || b.change_rate - a.change_rate || a.order - b.order)
    .map(({ order: _order, ...task }) => task);

  return {
    runs: complete.map((r) => ({
      id: r.id,
      finished_at: r.finishedAt ?? null,
      source: r.tasks ? ("events" as const) : ("recap" as const),
      environment: r.environment ?? null,
    })),
    environments: differingEnvironments(complete),
    complete_runs: complete.length,
    skipped_incomplete: runs.length - complete.length,
    tasks_never_changed: all.filter((r) => r.changed === 0 && r.ran > 0).length,
    tasks,
  };
}

/** The CSV export's columns, in order (docs/api.md). */
export const IDEMPOTENCE_CSV_COLUMNS = [
  "play",
  "play_occurrence",
  "task",
  "runs_changed",
  "runs_ran",
  "change_rate",
  "hosts",
  "first_changed_job",
  "first_changed_at",
  "last_changed_job",
  "last_changed_at",
  "changed_in_latest",
] as const;

/**
 * RFC 4180: a field holding a comma, a quote, CR or LF is quoted, its quotes doubled. A text
 * (task, play or host name: written by whoever wrote the playbook or inventory) that starts
 * with `=`, `+`, `-`, `@`, a tab or CR would be run as a formula by a spreadsheet opening the
 * file (CSV injection): it gets a leading `'`, which spreadsheets show as text. Numbers keep
 * their sign.
 */
export function csvField(value: string | number | boolean | null): string {
  let text = value === null ? "" : String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * The report as CSV (RFC 4180, CRLF line ends, a header row): one row per task, in the
 * report's order. `hosts` is `host:count` joined with `;` (empty when not known);
 * change_rate has 4 decimals.
 */
export function idempotenceCsv(report: IdempotenceReport): string {
  const lines = [IDEMPOTENCE_CSV_COLUMNS.join(",")];
  for (const t of report.tasks) {
    lines.push(
      [
        t.play,
        t.play_occurrence,
        t.task,
        t.runs_changed,
        t.runs_ran,
        Number(t.change_rate.toFixed(4)),
        t.hosts === null ? null : t.hosts.map((h) => `${h.host}:${h.runs_changed}`).join(";"),
        t.first_changed_run.id,
        t.first_changed_run.finished_at,
        t.last_changed_run.id,
        t.last_changed_run.finished_at,
        t.changed_in_latest,
      ]
        .map(csvField)
        .join(","),
    );
  }
  return lines.map((l) => `${l}\r\n`).join("");
}
