/**
 * A timeline of tasks from structured events (./events.ts): where the time of a run went.
 *
 * Pure: no I/O. Times are seconds relative to `started_at` (the first task start), rounded to
 * milliseconds. The rules:
 * - Plays: one entry per play_start, in order, so each batch of a `serial` play is its own play
 *   (like the recap's plays; but a play_start with an empty name, which prints no banner and
 *   which the recap leaves out, is a play here too, so that its tasks have one). A play ends at the next play_start, at the stats / playbook_end
 *   of its playbook, or at the last event of a killed run; never before its last task ends.
 * - Tasks (linear and other strategies that run one task at a time): every task_start opens a
 *   new entry, so each serial batch's run of a task, and a handler flushed twice, is an entry of
 *   its own. Like profile_tasks, a task ends when the next task starts (cleanup tasks included,
 *   they are entries too), but also at a play_start or the stats event, so the setup of the
 *   next play is not billed to the last task of the previous one. In a killed run the last
 *   task ends at the run's last event.
 * - `strategy: free` (and host_pinned): each host walks the tasks on its own and the plugin
 *   sends one task_start per host, so tasks overlap. A task is one entry per play: it starts at
 *   its first task_start and ends at its last host result, or at the end of its play when a
 *   host started it but never answered (killed, or still running when the play ended).
 * - A task's entry never ends before the last event that belongs to it.
 * - `task` is the name the recap uses in its task lists (the banner NAME).
 * - Hosts: one entry per host with its final status and `at_sec`, when its result arrived,
 *   in that order. For a loop that is the loop's own summary result, which
 *   says failed/skipped/ignored for the whole loop; it is "changed" when any item changed. A
 *   loop cut off before its summary (killed run) takes its worst item.
 * - Statuses: a failed result with ignore_errors, and an unreachable one with
 *   ignore_unreachable, are "ignored". A failed result that a block's rescue handled is
 *   "rescued": events do not say so, but the stats do. Each non-ignored failure adds one to
 *   the host's `failed` or `rescued` counter, and a failure that was not rescued ends the host's
 *   run (only always sections and handlers follow). So, per playbook (stats are cumulative; a
 *   playbook's share is the difference with the previous stats), the host's first R failures
 *   are the rescued ones. Without stats (killed run) every failure stays "failed".
 * - `total_sec` runs from the first task start to the last playbook_end; null when the run has
 *   none, or something started after it (a later playbook was killed).
 * - A run without any task start has no time axis: started_at null, no plays, no tasks.
 */
import type { PlayformEvent, PlayformEventOf } from "./events";

export type TimelineHostStatus = "ok" | "changed" | "failed" | "skipped" | "unreachable" | "ignored" | "rescued";
export type TimelineTaskKind = PlayformEventOf<"task_start">["kind"];

export interface TimelineHost {
  host: string;
  status: TimelineHostStatus;
  at_sec: number;
}

export interface TimelineTask {
  task: string;
  play: number;
  kind: TimelineTaskKind;
  start_sec: number;
  end_sec: number;
  duration_sec: number;
  hosts: TimelineHost[];
}

export interface TimelinePlay {
  number: number;
  name: string;
  start_sec: number;
  end_sec: number;
}

export interface Timeline {
  /** Epoch seconds of the first task start; null when no task started. */
  started_at: number | null;
  total_sec: number | null;
  plays: TimelinePlay[];
  tasks: TimelineTask[];
}

/** Least to most significant: a row of the timeline shows its hosts' most significant status. */
export const TIMELINE_HOST_STATUSES: readonly TimelineHostStatus[] = [
  "skipped",
  "ok",
  "changed",
  "ignored",
  "rescued",
  "unreachable",
  "failed",
];

const rank = (status: TimelineHostStatus): number => TIMELINE_HOST_STATUSES.indexOf(status);

function worse(a: TimelineHostStatus, b: TimelineHostStatus): TimelineHostStatus {
  return rank(b) > rank(a) ? b : a;
}

/** The most significant status of a task's hosts; null for a task without results (an include, a meta task). */
export function worstHostStatus(hosts: readonly { status: TimelineHostStatus }[]): TimelineHostStatus | null {
  return hosts.reduce<TimelineHostStatus | null>((acc, h) => (acc === null ? h.status : worse(acc, h.status)), null);
}

const FREE_STRATEGY = /(^|\.)(free|host_pinned)$/;

/** A task result on one host (a loop's summary counts once, its items are separate). */
interface FinalResult {
  status: PlayformEventOf<"task_result">["status"];
  changed: boolean;
  ignored: boolean;
  rescued: boolean;
  ts: number;
}

interface HostState {
  host: string;
  finals: FinalResult[];
  itemStatus: TimelineHostStatus | null;
  itemChanged: boolean;
  lastItemTs: number;
}

interface Entry {
  name: string;
  kind: TimelineTaskKind;
  play: PlayState;
  free: boolean;
  start: number;
  end: number | null;
  /** The latest event of this entry: its (re)starts, results, items, retries. */
  last: number;
  /** task_start events and task results: a free task with fewer results has a host still running. */
  starts: number;
  results: number;
  hosts: Map<string, HostState>;
}

interface PlayState {
  number: number;
  name: string;
  start: number;
  end: number | null;
  free: boolean;
}

interface Failure {
  host: string;
  result: FinalResult;
}

function finalStatus(r: FinalResult): TimelineHostStatus {
  switch (r.status) {
    case "ok":
      return r.changed ? "changed" : "ok";
    case "skipped":
      return "skipped";
    case "unreachable":
      return r.ignored ? "ignored" : "unreachable";
    case "failed":
      if (r.ignored) return "ignored";
      return r.rescued ? "rescued" : "failed";
  }
}

function hostStatus(h: HostState): { status: TimelineHostStatus; at: number } | null {
  if (h.finals.length === 0) return h.itemStatus === null ? null : { status: h.itemStatus, at: h.lastItemTs };
  let status = h.finals.map(finalStatus).reduce(worse);
  if (status === "ok" && h.itemChanged) status = "changed";
  return { status, at: Math.max(...h.finals.map((r) => r.ts)) };
}

function itemStatus(e: PlayformEventOf<"item_result">): TimelineHostStatus {
  if (e.status === "ok") return e.changed ? "changed" : "ok";
  return e.status;
}

const round3 = (seconds: number): number => Math.round(seconds * 1000) / 1000;

export function timelineFromEvents(events: readonly PlayformEvent[]): Timeline {
  const plays: PlayState[] = [];
  const entries: Entry[] = [];
  const current = new Map<string, Entry>(); // task uuid -> the entry its results belong to
  let running: Entry | null = null; // the linear task that ends at the next boundary
  let play: PlayState | null = null;
  // In one object: TypeScript does not see assignments made inside the closures below and
  // would narrow plain `let`s to their initial null.
  const clock: { firstTask: number | null; last: number | null; end: number | null } = {
    firstTask: null,
    last: null,
    end: null, // the last playbook_end, unless something started after it
  };
  // Non-ignored failures of the current playbook, matched against the stats' rescued counters.
  let failures: Failure[] = [];
  let previousRescued = new Map<string, number>();

  /** Ends the running linear task and, at a play boundary, the free tasks of the play. */
  const boundary = (ts: number, endsPlay: boolean): void => {
    if (running !== null) running.end = ts;
    running = null;
    if (!endsPlay || play === null) return;
    for (const e of entries) {
      if (e.play === play && e.free && e.end === null) e.end = e.results < e.starts ? ts : e.last;
    }
    if (play.end === null) play.end = ts;
  };

  const hostOf = (entry: Entry, host: string): HostState => {
    let h = entry.hosts.get(host);
    if (!h) {
      h = { host, finals: [], itemStatus: null, itemChanged: false, lastItemTs: 0 };
      entry.hosts.set(host, h);
    }
    return h;
  };

  const onTaskStart = (e: PlayformEventOf<"task_start">): void => {
    clock.firstTask ??= e.ts;
    clock.end = null;
    if (play === null) {
      // A task before any play_start (should not happen): give it a play to belong to.
      play = { number: plays.length + 1, name: "", start: e.ts, end: null, free: false };
      plays.push(play);
    }
    const previous = current.get(e.task);
    if (play.free && previous !== undefined && previous.play === play) {
      previous.starts += 1;
      previous.last = Math.max(previous.last, e.ts);
      return;
    }
    boundary(e.ts, false);
    const entry: Entry = {
      name: e.display_name ?? e.name,
      kind: e.kind,
      play,
      free: play.free,
      start: e.ts,
      end: null,
      last: e.ts,
      starts: 1,
      results: 0,
      hosts: new Map(),
    };
    entries.push(entry);
    current.set(e.task, entry);
    if (!play.free) running = entry;
  };

  const onTaskResult = (e: PlayformEventOf<"task_result">): void => {
    const entry = current.get(e.task);
    if (!entry) return;
    entry.results += 1;
    entry.last = Math.max(entry.last, e.ts);
    const result: FinalResult = { status: e.status, changed: e.changed, ignored: e.ignored === true, rescued: false, ts: e.ts };
    hostOf(entry, e.host).finals.push(result);
    if (e.status === "failed" && !result.ignored) failures.push({ host: e.host, result });
  };

  const onItemResult = (e: PlayformEventOf<"item_result">): void => {
    const entry = current.get(e.task);
    if (!entry) return;
    entry.last = Math.max(entry.last, e.ts);
    const h = hostOf(entry, e.host);
    const status = itemStatus(e);
    h.itemStatus = h.itemStatus === null ? status : worse(h.itemStatus, status);
    h.itemChanged ||= e.changed;
    h.lastItemTs = Math.max(h.lastItemTs, e.ts);
  };

  const onStats = (e: PlayformEventOf<"stats">): void => {
    const rescued = new Map(e.hosts.map((row) => [row.host, row.rescued]));
    const left = new Map<string, number>();
    for (const [host, count] of rescued) left.set(host, Math.max(0, count - (previousRescued.get(host) ?? 0)));
    for (const f of failures) {
      const n = left.get(f.host) ?? 0;
      if (n > 0) {
        f.result.rescued = true;
        left.set(f.host, n - 1);
      }
    }
    failures = [];
    previousRescued = rescued;
  };

  for (const e of events) {
    clock.last = clock.last === null ? e.ts : Math.max(clock.last, e.ts);
    switch (e.type) {
      case "playbook_start":
        boundary(e.ts, true);
        clock.end = null;
        break;
      case "play_start":
        boundary(e.ts, true);
        clock.end = null;
        play = { number: plays.length + 1, name: e.name, start: e.ts, end: null, free: FREE_STRATEGY.test(e.strategy ?? "") };
        plays.push(play);
        break;
      case "task_start":
        onTaskStart(e);
        break;
      case "task_result":
        onTaskResult(e);
        break;
      case "item_result":
        onItemResult(e);
        break;
      case "retry": {
        const entry = current.get(e.task);
        if (entry) entry.last = Math.max(entry.last, e.ts);
        break;
      }
      case "stats":
        boundary(e.ts, true);
        onStats(e);
        break;
      case "playbook_end":
        boundary(e.ts, true);
        clock.end = e.ts;
        break;
      default:
        break;
    }
  }

  // A killed run: whatever is still open ends at the last thing we heard.
  if (clock.last !== null) boundary(clock.last, true);

  const t0 = clock.firstTask;
  if (t0 === null) return { started_at: null, total_sec: null, plays: [], tasks: [] };
  const rel = (ts: number): number => round3(Math.max(0, ts - t0));

  const tasks: TimelineTask[] = entries.map((entry) => {
    const end = Math.max(entry.end ?? entry.last, entry.last);
    const hosts: TimelineHost[] = [];
    for (const h of entry.hosts.values()) {
      const s = hostStatus(h);
      if (s !== null) hosts.push({ host: h.host, status: s.status, at_sec: rel(s.at) });
    }
    hosts.sort((a, b) => a.at_sec - b.at_sec);
    return {
      task: entry.name,
      play: entry.play.number,
      kind: entry.kind,
      start_sec: rel(entry.start),
      end_sec: rel(end),
      duration_sec: round3(end - entry.start),
      hosts,
    };
  });

  const playEnd = new Map<number, number>();
  for (const t of tasks) playEnd.set(t.play, Math.max(playEnd.get(t.play) ?? 0, t.end_sec));
  return {
    started_at: t0,
    total_sec: clock.end === null ? null : rel(clock.end),
    plays: plays.map((p) => {
      const start = rel(p.start);
      const end = Math.max(rel(p.end ?? p.start), playEnd.get(p.number) ?? 0, start);
      return { number: p.number, name: p.name, start_sec: start, end_sec: end };
    }),
    tasks,
  };
}
