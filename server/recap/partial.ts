/**
 * What an incomplete run got (docs/recap.md, "Incomplete runs"): per-host counts from the task
 * results seen so far, and profile_tasks' timings so far. Pure, shared by the text parser and
 * the events reducer. A result is one (task occurrence, host): a loop's items make one result,
 * counted like the PLAY RECAP counts a task: unreachable, else failed (ok + ignored when
 * ignored, + changed when it reported changed), else changed (ok + changed), else ok, else skipped.
 */
import type { RecapHostRow, RecapTaskHosts, RecapTaskTiming } from "./types";

type Seen = {
  occurrence: number;
  host: string;
  ok: boolean;
  changed: boolean;
  failed: boolean;
  unreachable: boolean;
  skipped: boolean;
  ignored: boolean;
  /** A failed result that reported changed (counted as changed when the failure is ignored). */
  failedChanged: boolean;
};
export type PartialKind = "ok" | "changed" | "failed" | "unreachable" | "skipped";

/** profile_tasks' default number of entries. */
const SLOWEST_LIMIT = 20;

function byCodePoint(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

export class PartialTally {
  private readonly seen = new Map<string, Seen>();
  private lastFailed: Seen | null = null;

  /** A result line/event of `host` for the task occurrence `occurrence`. */
  add(occurrence: number, host: string, kind: PartialKind, ignored = false, failedChanged = false): void {
    const key = `${occurrence}\u0000${host}`;
    let s = this.seen.get(key);
    if (!s) {
      s = {
        occurrence,
        host,
        ok: false,
        changed: false,
        failed: false,
        unreachable: false,
        skipped: false,
        ignored: false,
        failedChanged: false,
      };
      this.seen.set(key, s);
    }
    s[kind] = true;
    if (ignored) s.ignored = true;
    if (failedChanged) s.failedChanged = true;
    if (kind === "failed") this.lastFailed = s;
  }

  /** `...ignoring` (ignore_errors): the latest failure is ignored. */
  ignoreLast(): void {
    if (this.lastFailed) this.lastFailed.ignored = true;
  }

  rows(): RecapHostRow[] {
    const rows = new Map<string, RecapHostRow>();
    for (const s of this.seen.values()) {
      const r = rows.get(s.host) ?? { host: s.host, ok: 0, changed: 0, unreachable: 0, failed: 0, skipped: 0, rescued: 0, ignored: 0 };
      if (s.unreachable) r.unreachable += 1;
      else if (s.failed && !s.ignored) r.failed += 1;
      else if (s.failed) {
        r.ok += 1;
        r.ignored += 1;
        if (s.failedChanged) r.changed += 1;
      } else if (s.changed) {
        r.ok += 1;
        r.changed += 1;
      } else if (s.ok) r.ok += 1;
      else if (s.skipped) r.skipped += 1;
      rows.set(s.host, r);
    }
    return [...rows.values()].sort((x, y) => byCodePoint(x.host, y.host));
  }

  /**
   * The results PLAY RECAP counts as changed, by task name (`nameOf` an occurrence): those that
   * did not fail, and the ignored failures that reported changed. Tasks in first-result order.
   */
  changedByTask(nameOf: (occurrence: number) => string | undefined): { changed: RecapTaskHosts[]; ignored_failures: RecapTaskHosts[] } {
    const changed = new Map<string, { hosts: Set<string>; results: number }>();
    const ignored = new Map<string, { hosts: Set<string>; results: number }>();
    for (const s of this.seen.values()) {
      if (s.unreachable) continue;
      const into = s.failed ? (s.ignored && s.failedChanged ? ignored : null) : s.changed ? changed : null;
      const name = into ? nameOf(s.occurrence) : undefined;
      if (!into || name === undefined) continue;
      const entry = into.get(name) ?? { hosts: new Set<string>(), results: 0 };
      entry.hosts.add(s.host);
      entry.results += 1;
      into.set(name, entry);
    }
    const list = (m: Map<string, { hosts: Set<string>; results: number }>): RecapTaskHosts[] =>
      [...m.entries()].map(([task, e]) => ({ task, hosts: [...e.hosts].sort(byCodePoint), results: e.results }));
    return { changed: list(changed), ignored_failures: list(ignored) };
  }
}

/** Durations of tasks that ended, by name (a name run again adds up), slowest first. */
export function slowestOf(durations: Map<string, number>): RecapTaskTiming[] {
  return [...durations.entries()]
    .map(([task, seconds]) => ({ task, seconds: Math.round(seconds * 100) / 100 }))
    .sort((x, y) => y.seconds - x.seconds)
    .slice(0, SLOWEST_LIMIT);
}
