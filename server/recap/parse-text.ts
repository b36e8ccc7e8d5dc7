/**
 * ansible-playbook text log -> Recap, following the rules of docs/recap.md ("Reading the text").
 *
 * Pure and streaming: `push()` chunks as they come (any split, even inside a CRLF or a line),
 * then `finish()`. Speed matters (logs of tens of MB are parsed on import), so the scan works
 * on the chunk itself with indexOf and looks at the first character of each line before
 * anything else: indented payload (most of a -v log) is skipped without slicing or regex.
 * Only small records are kept (task names, hosts, counters), never the text.
 */
import { HOST_COUNTERS, type Recap, type RecapHostRow, type RecapPlay, type RecapStatus, type RecapTaskTiming } from "./types";

const ESC = 0x1b,
  SPACE = 0x20,
  TAB = 0x09,
  STAR = 0x2a,
  EQUALS = 0x3d,
  CLOSE_BRACKET = 0x5d;
// eslint-disable-next-line no-control-regex -- ESC starts every ANSI sequence
const ANSI_RE = /\x1b\[[0-?]*[ -/]*[@-~]/g; // any CSI sequence; colours are ESC[...m
const CHECK_MODE_SUFFIX = "] [CHECK MODE";
const BANNERS = ["TASK", "RUNNING HANDLER", "CLEANUP TASK"] as const;
/** profile_tasks header tail: `(0:00:01.234)       0:00:07.562 *****`; the date before it is locale-dependent. */
const TIMESTAMP_TAIL_RE = /\(\d+:\d\d:\d\d(?:\.\d+)?\) +(\d+):(\d\d):(\d\d(?:\.\d+)?) \*{3,}\s*$/;
/** NAME is greedy, so it ends before the *last* ` -+ ` that precedes the seconds. */
const ENTRY_DASHES_RE = /^(.*) -+ (\d+(?:\.\d+)?)s\s*$/;
const ENTRY_TWO_SPACES_RE = /^(.*?) {2}(\d+(?:\.\d+)?)s\s*$/;
const PATH_LINE_RE = /^\S.*:\d+(?: -*)?\s*$/;
const RECAP_ROW_RE = /^(\S+) +: ((?:[a-z_]+=-?\d+\s*)+)$/;
const COUNTER_RE = /([a-z_]+)=(-?\d+)/g;
const PLAN_PLAY_RE = /^ {2}play #\d+ \((.*?)\): (.*)\tTAGS: \[/;

const enum Ev {
  Fail,
  Unreachable,
  Ignoring,
}

/**
 * A line longer than this while it is still arriving keeps only its head and its tail: a -v
 * result of a command that printed 100 MB is one JSON line, and only its start (`changed: [h]`)
 * or its end (banner stars, timestamp) can matter. Keeps memory flat whatever the line length.
 */
const LONG_LINE_KEEP = 1 << 16;

function stripAnsi(s: string): string {
  return s.includes("\x1b") ? s.replace(ANSI_RE, "") : s;
}

/**
 * A copy that does not point into the chunk. V8 slices of 13+ chars share the parent string,
 * so keeping a task name or host sliced from a 1 MB chunk would keep the whole chunk alive.
 */
function detach(s: string): string {
  return (" " + s).slice(1);
}

function isBlank(s: string): boolean {
  return s.trim().length === 0;
}

/**
 * `[h]` / `[h -> delegate]` with `[` at s[open], within the line s[open, end): the host (the
 * part before ` -> `) and the index of `]`, or null. Scans only the line, never the chunk.
 */
function hostAt(s: string, open: number, end: number): { host: string; close: number } | null {
  let close = open + 1;
  while (close < end && s.charCodeAt(close) !== CLOSE_BRACKET) close++;
  if (close >= end) return null;
  let host = stripAnsi(s.slice(open + 1, close));
  const arrow = host.indexOf(" -> ");
  if (arrow >= 0) host = host.slice(0, arrow);
  return { host, close };
}

/**
 * NAME of `PREFIX [NAME]( [CHECK MODE])? ***`: between the first `[` and the last `]` before
 * the stars (names may contain brackets). Null when the line is not such a banner.
 */
function bannerName(line: string, prefix: string): string | null {
  if (!line.startsWith(prefix) || !line.startsWith(" [", prefix.length)) return null;
  let end = line.length;
  while (end > 0 && line.charCodeAt(end - 1) === SPACE) end--;
  let stars = end;
  while (stars > 0 && line.charCodeAt(stars - 1) === STAR) stars--;
  const close = stars - 2;
  const open = prefix.length + 1;
  if (end - stars < 3 || line.charCodeAt(stars - 1) !== SPACE || close <= open) return null;
  if (line.charCodeAt(close) !== CLOSE_BRACKET) return null;
  const name = line.slice(open + 1, close);
  return name.endsWith(CHECK_MODE_SUFFIX) ? name.slice(0, -CHECK_MODE_SUFFIX.length) : name;
}

function parseRecapRow(line: string): RecapHostRow | null {
  const m = RECAP_ROW_RE.exec(line);
  if (!m || m[1] === undefined || m[2] === undefined) return null;
  const row: RecapHostRow = { host: detach(m[1]), ok: 0, changed: 0, unreachable: 0, failed: 0, skipped: 0, rescued: 0, ignored: 0 };
  for (const [, key, value] of m[2].matchAll(COUNTER_RE)) {
    const counter = HOST_COUNTERS.find((c) => c === key);
    if (counter) row[counter] = Number(value);
  }
  return row;
}

function parseEntry(line: string): RecapTaskTiming | null {
  const m = ENTRY_DASHES_RE.exec(line) ?? ENTRY_TWO_SPACES_RE.exec(line);
  if (!m || m[1] === undefined || m[2] === undefined) return null;
  return { task: detach(m[1]), seconds: Number.parseFloat(m[2]) };
}

export class RecapTextParser {
  private carry = "";
  private pendingCR = false;
  private started = false;
  private finished = false;

  private task: string | null = null;
  private readonly plays: RecapPlay[] = [];
  private sawRecap = false;
  private playAfterRecap = false;
  private inRecap = false;
  private recapRows: RecapHostRow[] = [];

  /** Cumulative seconds of the previous line when it was a profile_tasks timestamp line. */
  private pendingElapsed = -1;
  private inSummary = false;
  private lastWasEntry = false;
  private elapsed: number | null = null;
  private slowest: RecapTaskTiming[] = [];

  private readonly planPlays: RecapPlay[] = [];
  private readonly planTasks: number[] = [];

  /**
   * Candidate results, kept small and resolved in finish(): whether a `changed:`/`fatal:` line
   * is a result depends on the recap's hosts, which are only known at the end.
   * Changed lines: distinct (task, host) pairs in first-seen order.
   */
  private readonly changedPairs: { task: string; host: string }[] = [];
  private readonly changedHostsByTask = new Map<string, Set<string>>();
  private currentChangedHosts: Set<string> | null = null;
  /** Failure / unreachable / `...ignoring` lines in order (rare: error output). */
  private readonly events: { kind: Ev; task: string; host: string }[] = [];

  push(chunk: string): void {
    if (this.finished) throw new Error("RecapTextParser: push() after finish()");
    if (chunk.length === 0) return; // keeps a pending CR for the next non-empty chunk
    if (!this.started) {
      this.started = true;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    if (this.pendingCR) {
      // The previous chunk ended with CR, already turned into LF: drop the LF of a CRLF.
      this.pendingCR = false;
      if (chunk.charCodeAt(0) === 0x0a) chunk = chunk.slice(1);
    }
    if (chunk.includes("\r")) {
      this.pendingCR = chunk.charCodeAt(chunk.length - 1) === 0x0d;
      chunk = chunk.replace(/\r\n?/g, "\n");
    }
    let pos = 0;
    if (this.carry.length > 0) {
      const nl = chunk.indexOf("\n");
      if (nl < 0) {
        this.carry += chunk;
        if (this.carry.length > 2 * LONG_LINE_KEEP) {
          this.carry = this.carry.slice(0, LONG_LINE_KEEP) + this.carry.slice(-LONG_LINE_KEEP);
        }
        return;
      }
      const line = this.carry + chunk.slice(0, nl);
      this.carry = "";
      this.line(line, 0, line.length);
      pos = nl + 1;
    }
    for (let nl = chunk.indexOf("\n", pos); nl >= 0; nl = chunk.indexOf("\n", pos)) {
      this.line(chunk, pos, nl);
      pos = nl + 1;
    }
    if (pos < chunk.length) this.carry = chunk.slice(pos);
  }

  finish(): Recap {
    if (!this.finished) {
      if (this.carry.length > 0) this.line(this.carry, 0, this.carry.length);
      this.carry = "";
      this.finished = true;
    }
    return this.resolve();
  }

  /** One line, s[a, b) without its LF. */
  private line(s: string, a: number, b: number): void {
    if (a < b && s.charCodeAt(a) === ESC) {
      s = stripAnsi(s.slice(a, b));
      a = 0;
      b = s.length;
    }
    const pending = this.pendingElapsed;
    this.pendingElapsed = -1;
    if (this.inRecap) {
      const text = stripAnsi(s.slice(a, b));
      if (isBlank(text)) {
        this.inRecap = false;
        return;
      }
      const row = parseRecapRow(text);
      if (row) return void this.recapRows.push(row);
    }
    if (this.inSummary) {
      const text = stripAnsi(s.slice(a, b));
      const entry = parseEntry(text);
      if (entry) {
        this.slowest.push(entry);
        this.lastWasEntry = true;
        return;
      }
      if (this.lastWasEntry && PATH_LINE_RE.test(text)) {
        this.lastWasEntry = false;
        return;
      }
      this.inSummary = false;
    }
    if (a === b) return;
    switch (s.charCodeAt(a)) {
      case 0x63: // c
        if (s.startsWith("changed: [", a)) return this.changed(s, a, b);
        break;
      case 0x66: // f
        if (s.startsWith("fatal: [", a) || s.startsWith("failed: [", a)) return this.failure(s, a, b);
        break;
      case 0x2e: // .
        if (s.startsWith("...ignoring", a) && isBlank(s.slice(a + 11, b))) {
          this.events.push({ kind: Ev.Ignoring, task: this.task ?? "", host: "" });
          return;
        }
        break;
      case SPACE:
        return this.planLine(s, a, b);
      case EQUALS:
        if (pending >= 0 && /^=+\s*$/.test(s.slice(a, b))) {
          this.elapsed = pending;
          this.slowest = [];
          this.inSummary = true;
          this.lastWasEntry = false;
          this.inRecap = false;
          return;
        }
        break;
      case 0x50: // P
        if (this.playLine(stripAnsi(s.slice(a, b)))) return;
        break;
      case 0x54: // T
      case 0x52: // R
      case 0x43: // C
        if (this.taskBanner(stripAnsi(s.slice(a, b)))) return;
        break;
      case TAB:
        return;
    }
    this.maybeTimestamp(s, a, b);
  }

  private playLine(line: string): boolean {
    if (line.startsWith("PLAY RECAP ") && /^PLAY RECAP \*{3,}\s*$/.test(line)) {
      this.sawRecap = true;
      this.playAfterRecap = false;
      this.inRecap = true;
      this.inSummary = false;
      this.recapRows = []; // counts are cumulative: only the last recap matters
      return true;
    }
    const name = bannerName(line, "PLAY");
    if (name === null) return false;
    this.plays.push({ number: this.plays.length + 1, name: detach(name), hosts: null });
    if (this.sawRecap) this.playAfterRecap = true;
    this.setTask(null);
    return true;
  }

  private taskBanner(line: string): boolean {
    for (const prefix of BANNERS) {
      const name = bannerName(line, prefix);
      if (name !== null) {
        if (name !== this.task) this.setTask(detach(name));
        return true;
      }
    }
    return false;
  }

  private setTask(task: string | null): void {
    this.task = task;
    this.currentChangedHosts = task === null ? null : (this.changedHostsByTask.get(task) ?? null);
  }

  private changed(s: string, a: number, b: number): void {
    if (this.task === null) return;
    const found = hostAt(s, a + 9, b);
    if (!found) return;
    let hosts = this.currentChangedHosts;
    if (hosts === null) {
      hosts = new Set();
      this.changedHostsByTask.set(this.task, hosts);
      this.currentChangedHosts = hosts;
    }
    if (hosts.has(found.host)) return;
    const host = detach(found.host);
    hosts.add(host);
    this.changedPairs.push({ task: this.task, host });
  }

  private failure(s: string, a: number, b: number): void {
    const fatal = s.charCodeAt(a + 2) === 0x74; // "fatal" vs "failed"
    const found = hostAt(s, a + (fatal ? 7 : 8), b);
    if (!found) return;
    const at = (text: string): boolean => found.close + text.length <= b && s.startsWith(text, found.close);
    let kind: Ev;
    if (fatal && at("]: FAILED!")) kind = Ev.Fail;
    else if (fatal && at("]: UNREACHABLE!")) kind = Ev.Unreachable;
    else if (!fatal && at("] (item=")) kind = Ev.Fail;
    else return;
    if (kind === Ev.Fail && this.task === null) return;
    this.events.push({ kind, task: this.task ?? "", host: detach(found.host) });
  }

  /** `--list-tasks` output: `  play #N (HOSTS): NAME\tTAGS: [...]` and 6-space task lines. */
  private planLine(s: string, a: number, b: number): void {
    if (s.startsWith("  play #", a)) {
      const m = PLAN_PLAY_RE.exec(s.slice(a, b));
      if (m && m[1] !== undefined && m[2] !== undefined) {
        this.planPlays.push({ number: this.planPlays.length + 1, name: detach(m[2]), hosts: detach(m[1]) });
        this.planTasks.push(0);
      }
      return;
    }
    const last = this.planTasks.length - 1;
    // Ansible indents every task line by 6 spaces (nested blocks are flattened); a name that
    // itself starts with spaces only adds to that, so "at least 6" is the rule.
    if (last < 0 || b - a < 7 || !s.startsWith("      ", a)) return;
    if (s.slice(a, b).includes("\tTAGS: [")) this.planTasks[last] = (this.planTasks[last] ?? 0) + 1;
  }

  /** profile_tasks timestamp line: remembered for one line, in case the `=` line follows. */
  private maybeTimestamp(s: string, a: number, b: number): void {
    let end = b;
    while (end > a && s.charCodeAt(end - 1) === SPACE) end--;
    if (end - a < 20 || s.charCodeAt(end - 1) !== STAR) return;
    const m = TIMESTAMP_TAIL_RE.exec(s.slice(a, b));
    if (!m) return;
    this.pendingElapsed = Math.floor(Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]));
  }

  private resolve(): Recap {
    const valid = this.sawRecap ? new Set(this.recapRows.map((r) => r.host)) : null;
    const isValid = (host: string): boolean => valid === null || valid.has(host);

    const changed = new Set<string>();
    for (const { task, host } of this.changedPairs) if (isValid(host)) changed.add(task);

    // Failure episodes per (task, host): `...ignoring` marks the open episode of the current
    // task whose last failure line is the latest. Unreachable episodes take part in that
    // matching (ignore_unreachable prints `...ignoring` too) but are never failures.
    type Episode = { task: string; failed: boolean; last: number; ignored: boolean };
    const open = new Map<string, Episode>();
    const byTask = new Map<string, Episode[]>();
    const firstFailure = new Map<string, number>();
    const unreachable = new Set<string>();
    this.events.forEach((ev, seq) => {
      if (ev.kind === Ev.Ignoring) {
        let best: Episode | undefined;
        for (const ep of byTask.get(ev.task) ?? []) if (!ep.ignored && (!best || ep.last > best.last)) best = ep;
        if (best) best.ignored = true;
        return;
      }
      if (!isValid(ev.host)) return;
      if (ev.kind === Ev.Unreachable) unreachable.add(ev.host);
      else if (!firstFailure.has(ev.task)) firstFailure.set(ev.task, seq);
      const key = `${ev.task}\u0000${ev.host}`;
      let ep = open.get(key);
      if (!ep || ep.ignored) {
        ep = { task: ev.task, failed: false, last: seq, ignored: false };
        open.set(key, ep);
        const list = byTask.get(ev.task) ?? [];
        list.push(ep);
        byTask.set(ev.task, list);
      }
      ep.last = seq;
      if (ev.kind === Ev.Fail) ep.failed = true;
    });
    const ignoredTasks = new Set<string>();
    const failedTasks = new Set<string>();
    for (const list of byTask.values()) {
      for (const ep of list) if (ep.failed) (ep.ignored ? ignoredTasks : failedTasks).add(ep.task);
    }
    const byFirstFailure = (tasks: Set<string>): string[] =>
      [...tasks].sort((x, y) => (firstFailure.get(x) ?? 0) - (firstFailure.get(y) ?? 0));

    const plan = this.planPlays.length > 0 && this.plays.length === 0 && !this.sawRecap;
    let status: RecapStatus;
    if (plan) status = "plan";
    else if (!this.sawRecap || this.playAfterRecap) status = "incomplete";
    else if (this.recapRows.some((r) => r.failed > 0 || r.unreachable > 0)) status = "failed";
    else status = "successful";

    const recap: Recap = {
      plays: (plan ? this.planPlays : this.plays).map((p) => ({ ...p })),
      hosts: this.recapRows.map((r) => ({ ...r })),
      elapsed_sec: this.elapsed,
      slowest_tasks: this.elapsed === null ? [] : this.slowest.map((t) => ({ ...t })),
      changed_tasks: [...changed],
      ignored_failures: byFirstFailure(ignoredTasks),
      failed_tasks: byFirstFailure(failedTasks),
      unreachable_hosts: [...unreachable],
      status,
    };
    if (plan) recap.tasks_per_play = [...this.planTasks];
    return recap;
  }
}

/** Whole-text convenience wrapper around the streaming parser. */
export function parseRecapText(text: string): Recap {
  const parser = new RecapTextParser();
  parser.push(text);
  return parser.finish();
}

/** The recap of a log that arrives in chunks (an upload, stored output): parsed as they come, never joined. */
export async function parseRecapChunks(chunks: Iterable<string> | AsyncIterable<string>): Promise<Recap> {
  const parser = new RecapTextParser();
  for await (const chunk of chunks) parser.push(chunk);
  return parser.finish();
}
