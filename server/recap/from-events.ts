/**
 * Recap analytics from structured events (see ./events.ts and the RECAP contract).
 *
 * Pure: no I/O. For the same run it gives the same answer as the text parser, i.e. what the
 * default stdout callback shows, which is not always what Ansible's events say:
 * - changed_tasks: a task counts when the display prints a `changed:` line for it — an ok
 *   result with changed (a loop is judged per item, its own summary result prints nothing),
 *   never a failed result (even with changed: true), never include_tasks / include_role.
 * - failures: a non-loop failed result (`fatal:`) or a failed loop item (`failed:`); a host's
 *   failure is ignored when its task result was failed with ignore_errors (`...ignoring`).
 *   Unreachable results are not failures, even with ignore_unreachable. Tasks are told apart
 *   by banner name, like the text; both lists follow the task's first failure.
 * - hosts / status / elapsed / slowest come from the last `stats` event (PLAY RECAP and
 *   profile_tasks summary): a run without one, or with a play started after it (a later
 *   playbook killed before its recap), is incomplete.
 * - slowest_tasks follow profile_tasks: a task runs from its start to the next task start or
 *   the stats event; a task started again (serial batches) adds up under its first name.
 */
import { visitEvents, type PlayformEvent, type PlayformEventOf } from "./events";
import { PartialTally } from "./partial";
import type { Recap, RecapHostRow, RecapPlay, RecapTaskTiming } from "./types";

export interface RecapFromEventsOptions {
  /** profile_tasks' output_limit (PROFILE_TASKS_TASK_OUTPUT_LIMIT); default 20, null = all. */
  slowestLimit?: number | null;
  /** Add partial_hosts / partial_elapsed_sec / partial_slowest_tasks to an incomplete recap (docs/recap.md). */
  partial?: boolean;
}

/** profile_tasks' default output limit. */
export const PROFILE_TASKS_DEFAULT_LIMIT = 20;

/** Python's str.strip() whitespace set (the banner strips the name with it). */
const PY_SPACE = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const PY_STRIP_RE = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, "g");

function pyStrip(s: string): string {
  return s.replace(PY_STRIP_RE, "");
}

/** A task's name as its banner and the recap show it. */
export function taskNameOf(e: Pick<PlayformEventOf<"task_start">, "name" | "display_name">): string {
  return e.display_name ?? pyStrip(e.name);
}

/** Python's "{:.02f}" of a non-negative elapsed time, back to a number. */
function round2(seconds: number): number {
  return Number(seconds.toFixed(2));
}

/** Python's string order (by code point), which sorts the PLAY RECAP rows. */
function compareCodePoints(a: string, b: string): number {
  const ca = Array.from(a);
  const cb = Array.from(b);
  const n = Math.min(ca.length, cb.length);
  for (let i = 0; i < n; i++) {
    const x = ca[i]!.codePointAt(0)!;
    const y = cb[i]!.codePointAt(0)!;
    if (x !== y) return x - y;
  }
  return ca.length - cb.length;
}

interface Timing {
  name: string;
  started: number;
  elapsed: number;
}

/** The failures of one task (by banner name) on one host until `...ignoring` closes them. */
interface FailureEpisode {
  name: string;
  ignored: boolean;
}

interface StatsSnapshot {
  hosts: RecapHostRow[];
  ts: number;
  slowest: RecapTaskTiming[];
}

class UniqueList {
  readonly items: string[] = [];
  private readonly seen = new Set<string>();
  add(value: string): void {
    if (this.seen.has(value)) return;
    this.seen.add(value);
    this.items.push(value);
  }
}

export function recapFromEvents(events: readonly PlayformEvent[], options: RecapFromEventsOptions = {}): Recap {
  const limit = options.slowestLimit === undefined ? PROFILE_TASKS_DEFAULT_LIMIT : options.slowestLimit;

  // The text parser only counts result lines of hosts listed in the (last) PLAY RECAP.
  let lastStatsHosts: Set<string> | null = null;
  for (const e of events) {
    if (e.type === "stats") lastStatsHosts = new Set(e.hosts.map((h) => h.host));
  }
  const counts = (host: string): boolean => lastStatsHosts === null || lastStatsHosts.has(host);

  const plays: RecapPlay[] = [];

  // Display state: a result is shown under the banner of its task's latest start (a serial
  // task is templated again for each batch; with strategy free the banner is re-printed).
  const taskName = new Map<string, string>(); // task uuid -> banner NAME
  const taskIsInclude = new Map<string, boolean>();

  const changed = new UniqueList();
  const unreachable = new UniqueList();
  // Failure episodes per (banner name, host), like the text: a failure opens one unless one
  // is open; the host's `...ignoring` (a failed result with ignore_errors) closes it as ignored.
  const openEpisode = new Map<string, FailureEpisode>();
  const episodes: FailureEpisode[] = [];
  const firstFailure = new Map<string, number>(); // banner name -> order of its first failure

  // profile_tasks state.
  const timings = new Map<string, Timing>();
  let current: string | null = null;
  let startTs: number | null = null;
  let firstTs: number | null = null;
  let snapshot: StatsSnapshot | null = null;
  let playAfterStats = false;

  // Incomplete runs: results per task occurrence (a task_start) and host; the last task start.
  const partial = new PartialTally();
  const occurrenceOf = new Map<string, number>();
  const nameOfOccurrence = new Map<number, string>();
  let starts = 0;
  let lastStartTs: number | null = null;

  // A result of a task that never started (should not happen) has no banner: not counted.
  const nameOf = (task: string): string | undefined => taskName.get(task);

  const closeCurrent = (ts: number): void => {
    if (current === null) return;
    const t = timings.get(current);
    if (t) t.elapsed += ts - t.started;
  };

  const recordFailure = (task: string, host: string): void => {
    const name = nameOf(task);
    if (name === undefined) return;
    if (!firstFailure.has(name)) firstFailure.set(name, firstFailure.size);
    const key = `${name}\u0000${host}`;
    const open = openEpisode.get(key);
    if (open && !open.ignored) return;
    const episode = { name, ignored: false };
    openEpisode.set(key, episode);
    episodes.push(episode);
  };

  const recordIgnoring = (task: string, host: string): void => {
    const name = nameOf(task);
    if (name === undefined) return;
    const open = openEpisode.get(`${name}\u0000${host}`);
    if (open) open.ignored = true;
  };

  const isInclude = (e: { task: string; include?: boolean | undefined }): boolean =>
    e.include === true || taskIsInclude.get(e.task) === true;

  const onTaskStart = (e: PlayformEventOf<"task_start">): void => {
    taskName.set(e.task, taskNameOf(e));
    occurrenceOf.set(e.task, ++starts);
    nameOfOccurrence.set(starts, taskNameOf(e));
    if (e.include !== undefined) taskIsInclude.set(e.task, e.include);
    // profile_tasks records TASK and RUNNING HANDLER starts, not CLEANUP TASK.
    if (e.kind === "cleanup") return;
    closeCurrent(e.ts);
    current = e.task;
    lastStartTs = e.ts;
    const t = timings.get(e.task);
    if (t) t.started = e.ts;
    else timings.set(e.task, { name: e.name, started: e.ts, elapsed: 0 });
  };

  const onTaskResult = (e: PlayformEventOf<"task_result">): void => {
    const occurrence = occurrenceOf.get(e.task);
    if (occurrence !== undefined) {
      const kind = e.status === "ok" ? (e.changed && !isInclude(e) ? "changed" : "ok") : e.status;
      partial.add(occurrence, e.host, kind, e.status === "failed" && e.ignored === true, e.status === "failed" && e.changed);
    }
    if (!counts(e.host)) return;
    switch (e.status) {
      case "ok": {
        if (e.changed && !e.loop && !isInclude(e)) {
          const name = nameOf(e.task);
          if (name !== undefined) changed.add(name);
        }
        break;
      }
      case "failed": {
        // `fatal:` is printed for a non-loop result; a loop printed `failed:` per item.
        if (!e.loop) recordFailure(e.task, e.host);
        if (e.ignored) recordIgnoring(e.task, e.host);
        break;
      }
      case "unreachable":
        unreachable.add(e.host);
        break;
      case "skipped":
        break;
    }
  };

  const onItemResult = (e: PlayformEventOf<"item_result">): void => {
    // An item's result is a result of its host, as the text's `ok: [h] => (item=…)` line is: a
    // loop cut short (an aborted job) never gets the summary task_result that would count it.
    // Items and the summary fall on the same (occurrence, host), so a loop still counts once.
    const occurrence = occurrenceOf.get(e.task);
    if (occurrence !== undefined)
      partial.add(occurrence, e.host, e.status === "ok" ? (e.changed && !isInclude(e) ? "changed" : "ok") : e.status);
    if (!counts(e.host)) return;
    if (e.status === "ok" && e.changed && !isInclude(e)) {
      const name = nameOf(e.task);
      if (name !== undefined) changed.add(name);
    } else if (e.status === "failed") {
      recordFailure(e.task, e.host);
    }
  };

  const onStats = (e: PlayformEventOf<"stats">): void => {
    closeCurrent(e.ts);
    current = null;
    // Python's sorted(reverse=True) is stable, like Array.prototype.sort.
    const ranked = [...timings.values()].sort((a, b) => b.elapsed - a.elapsed);
    const shown = limit === null ? ranked : ranked.slice(0, Math.max(0, limit));
    snapshot = {
      hosts: [...e.hosts]
        .map((h) => ({
          host: h.host,
          ok: h.ok,
          changed: h.changed,
          unreachable: h.unreachable,
          failed: h.failed,
          skipped: h.skipped,
          rescued: h.rescued,
          ignored: h.ignored,
        }))
        .sort((a, b) => compareCodePoints(a.host, b.host)),
      ts: e.ts,
      slowest: shown.map((t) => ({ task: t.name, seconds: round2(t.elapsed) })),
    };
  };

  visitEvents(
    events,
    {
      playbook_start: (e) => {
        if (startTs === null) startTs = e.ts;
      },
      play_start: (e) => {
        // An empty name prints a bare `PLAY` banner, which is not a play banner in the text.
        if (e.name !== "") {
          plays.push({ number: plays.length + 1, name: e.name, hosts: null });
          if (snapshot !== null) playAfterStats = true;
        }
      },
      task_start: onTaskStart,
      task_result: onTaskResult,
      item_result: onItemResult,
      stats: (e) => {
        onStats(e);
        playAfterStats = false;
      },
    },
    (e) => {
      if (firstTs === null) firstTs = e.ts;
    },
  );

  // Each list in the order of the task's first failure line.
  const ignoredSet = new Set<string>();
  const failedSet = new Set<string>();
  for (const ep of episodes) (ep.ignored ? ignoredSet : failedSet).add(ep.name);
  const byFirstFailure = (names: Set<string>): string[] =>
    [...names].sort((a, b) => (firstFailure.get(a) ?? 0) - (firstFailure.get(b) ?? 0));

  const snap = snapshot as StatsSnapshot | null;
  const t0 = startTs ?? firstTs;
  // A play banner after the last PLAY RECAP: a later playbook was killed before its recap.
  let status: Recap["status"] = "incomplete";
  if (snap !== null && !playAfterStats) {
    status = snap.hosts.some((h) => h.failed > 0 || h.unreachable > 0) ? "failed" : "successful";
  }

  const recap: Recap = {
    plays,
    hosts: snap?.hosts ?? [],
    elapsed_sec: snap !== null && t0 !== null ? Math.max(0, Math.floor(snap.ts - t0)) : null,
    slowest_tasks: snap?.slowest ?? [],
    changed_tasks: changed.items,
    ignored_failures: byFirstFailure(ignoredSet),
    failed_tasks: byFirstFailure(failedSet),
    unreachable_hosts: unreachable.items,
    status,
  };
  if (options.partial) recap.changed_results = partial.changedByTask((occurrence) => nameOfOccurrence.get(occurrence));
  if (options.partial && status === "incomplete") {
    // profile_tasks' figures so far: its last timestamp line is printed at the last task start,
    // and the tasks that ended have their times (the one still running has none yet).
    recap.partial_hosts = partial.rows();
    recap.partial_elapsed_sec = lastStartTs !== null && t0 !== null ? Math.max(0, Math.floor(lastStartTs - t0)) : null;
    const ended = [...timings.entries()].filter(([task, t]) => task !== current || t.elapsed > 0).map(([, t]) => t);
    const ranked = ended.sort((a, b) => b.elapsed - a.elapsed);
    const shown = limit === null ? ranked : ranked.slice(0, Math.max(0, limit));
    recap.partial_slowest_tasks = shown.map((t) => ({ task: t.name, seconds: round2(t.elapsed) }));
  }
  return recap;
}
