/**
 * ansible-playbook text log -> Recap, following the rules of docs/recap.md ("Reading the text").
 *
 * Two kinds of text: what a terminal shows (stdout), and Ansible's own log file (log_path /
 * ANSIBLE_LOG_PATH), where the first line of every message carries a `DATE TIME,ms p=PID u=USER
 * n=ansible | ` prefix and its other lines carry none. A RunReader reads the structure of one
 * run from lines without their prefix; RecapTextParser splits the text into lines, recognises
 * the prefix and hands each line to the reader.
 *
 * Pure and streaming: `push()` chunks as they come (any split, even inside a CRLF or a line),
 * then `finish()`. Speed matters (logs of tens of MB are parsed on import), so the scan works
 * on the chunk itself with indexOf and looks at the first character of each line before
 * anything else: indented payload (most of a -v log) is skipped without slicing or regex.
 * Only small records are kept (task names, hosts, counters), never the text.
 */
import { PartialTally, slowestOf } from "./partial";
import {
  HOST_COUNTERS,
  type Recap,
  type RecapHostRow,
  type RecapOptions,
  type RecapPlay,
  type RecapStatus,
  type RecapTaskTiming,
} from "./types";

const ESC = 0x1b,
  SPACE = 0x20,
  TAB = 0x09,
  STAR = 0x2a,
  EQUALS = 0x3d,
  CLOSE_BRACKET = 0x5d,
  DIGIT_0 = 0x30,
  DASH = 0x2d,
  COLON = 0x3a,
  COMMA = 0x2c,
  DOT = 0x2e,
  UPPER_A = 0x41,
  UPPER_Z = 0x5a;
// eslint-disable-next-line no-control-regex -- ESC starts every ANSI sequence
const ANSI_RE = /\x1b\[[0-?]*[ -/]*[@-~]/g; // any CSI sequence; colours are ESC[...m
const CHECK_MODE_SUFFIX = "] [CHECK MODE";
const BANNERS = ["TASK", "RUNNING HANDLER", "CLEANUP TASK"] as const;
/** profile_tasks header tail: `(0:00:01.234)       0:00:07.562 *****`; the date before it is locale-dependent. */
const TIMESTAMP_PAREN_RE = /\((\d+):(\d\d):(\d\d(?:\.\d+)?)\) +\d+:\d\d:\d\d(?:\.\d+)? \*{3,}\s*$/;
const TIMESTAMP_TAIL_RE = /\(\d+:\d\d:\d\d(?:\.\d+)?\) +(\d+):(\d\d):(\d\d(?:\.\d+)?) \*{3,}\s*$/;
/** NAME is greedy, so it ends before the *last* ` -+ ` that precedes the seconds. */
const ENTRY_DASHES_RE = /^(.*) -+ (\d+(?:\.\d+)?)s\s*$/;
const ENTRY_TWO_SPACES_RE = /^(.*?) {2}(\d+(?:\.\d+)?)s\s*$/;
const PATH_LINE_RE = /^\S.*:\d+(?: -*)?\s*$/;
const RECAP_ROW_RE = /^(\S+) +: ((?:[a-z_]+=-?\d+\s*)+)$/;
const COUNTER_RE = /([a-z_]+)=(-?\d+)/g;
const PLAN_PLAY_RE = /^ {2}play #\d+ \((.*?)\): (.*)\tTAGS: \[/;
/** profile_tasks' default number of entries, used for the timings read from a log file's timestamps. */
const SLOWEST_LIMIT = 20;
/**
 * Ansible fills a banner to its display width, which is at least 79 columns (the terminal's
 * width minus 1), plus 1: a real banner is never narrower than this.
 */
const MIN_BANNER_WIDTH = 80;
/** Headers of the debug callback's raw sections (ansible.posix.debug: `\n\nSTDOUT:\n\n<text>\n`). */
const RAW_SECTIONS = new Set(["STDOUT:", "STDERR:", "MSG:", "MODULE_STDOUT:", "MODULE_STDERR:"]);
/** A log file's processes kept while they have printed no play (see RecapTextParser.runOf). */
const MAX_RUNS = 64;

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

/** s has text at `at`, within the line that ends at b. */
function startsWithin(s: string, text: string, at: number, b: number): boolean {
  return at + text.length <= b && s.startsWith(text, at);
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

/** Display columns of a line or more, never less: a non-ASCII character counts 2 (CJK takes 2, accents 1, combining marks 0). */
function widthBound(line: string): number {
  let width = 0;
  for (let i = 0; i < line.length; i++) width += line.charCodeAt(i) < 0x80 ? 1 : 2;
  return width;
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

/** A task's time read from a log file's timestamps: the sum of its intervals, in ms. */
interface Timing {
  task: string;
  ms: number;
}

/** Timings as profile_tasks would print them: slowest first, at most its 20, seconds to 2 decimals. */
function slowestTimings(timings: Timing[]): RecapTaskTiming[] {
  // Descending; Array.prototype.sort is stable, so ties keep the order the tasks started in.
  return [...timings]
    .sort((x, y) => y.ms - x.ms)
    .slice(0, SLOWEST_LIMIT)
    .map((t) => ({ task: t.task, seconds: Math.round(t.ms / 10) / 100 }));
}

/**
 * The structure of one ansible-playbook run, read line by line. `line()` gets lines that start
 * a message (every line of a terminal's text; in a log file, the prefixed lines without their
 * prefix, with the prefix's time in ms); `continuation()` gets a log file's other lines.
 */
class RunReader {
  private task: string | null = null;
  /** Incomplete runs (docs/recap.md, "Incomplete runs"): results per task occurrence and host. */
  private readonly partial = new PartialTally();
  private occurrence = 0;
  /** profile_tasks' durations so far (the parenthesised figure belongs to the task before), and its last total. */
  private readonly stampDurations = new Map<string, number>();
  private stampTask: string | null = null;
  private lastStampTotal: number | null = null;
  private readonly plays: RecapPlay[] = [];
  private sawRecap = false;
  private playAfterRecap = false;
  private inRecap = false;
  private recapRows: RecapHostRow[] = [];
  /** A banner, a recap or a --list-tasks play line was read: the text is ansible-playbook output. */
  sawStructure = false;
  /** A PLAY banner or a --list-tasks play line was read: this is an ansible-playbook run. */
  startedPlays = false;
  /** In a log file: the order in which runs printed their first play (0: not yet). */
  startOrder = 0;

  /** Cumulative seconds of the previous line when it was a profile_tasks timestamp line. */
  private pendingElapsed = -1;
  private inSummary = false;
  private lastWasEntry = false;
  private elapsed: number | null = null;
  private slowest: RecapTaskTiming[] = [];

  private readonly planPlays: RecapPlay[] = [];
  private readonly planTasks: number[] = [];

  private prevBlank = false;
  /**
   * Inside a raw section of the debug callback: a command's output printed as is, at column 0,
   * up to the next banner. Only a banner as wide as Ansible prints them ends it.
   */
  private inRawSection = false;

  /**
   * Timings from a log file's timestamps (docs/recap.md, "Timings from a log file"): a task
   * lasts from its banner to the next TASK / RUNNING HANDLER banner or the PLAY RECAP. The text
   * does not name Ansible's task objects, so a task is a banner of the play's first batch (a
   * run of PLAY banners with the same name is one play, in batches when `serial`); a later
   * batch's banner adds to the first batch's task with the same name and rank among that name's
   * banners, else to the one at its position (a name templated per host), else it is a task of
   * its own. A handler is its name in the play.
   */
  private firstPlayMs = -1;
  private lastPlayName: string | null = null;
  private batch = 0;
  /** The play's first batch: its TASK timings in banner order, and by name. */
  private firstBatch: Timing[] = [];
  private firstByName = new Map<string, Timing[]>();
  /** The current batch: TASK banners per name, their count, the first batch's tasks it took. */
  private batchNames = new Map<string, number>();
  private batchPosition = 0;
  private batchTaken = new Set<Timing>();
  private handlers = new Map<string, Timing>();
  /** Every timing, in the order the tasks first started. */
  private readonly timings: Timing[] = [];
  private openTiming: Timing | null = null;
  private openedAt = 0;
  /** When the last TASK / RUNNING HANDLER banner started (-1: none): an incomplete run's elapsed so far. */
  private lastStartMs = -1;
  /** What the timestamps say at the last PLAY RECAP, as profile_tasks would print it there. */
  private stampElapsed: number | null = null;
  private stampSlowest: RecapTaskTiming[] = [];

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

  /** One line, s[a, b) without its LF (and without a log file's prefix; ms is its time, else -1). */
  line(s: string, a: number, b: number, ms: number): void {
    if (a < b && s.charCodeAt(a) === ESC) {
      s = stripAnsi(s.slice(a, b));
      a = 0;
      b = s.length;
    }
    const prevBlank = this.prevBlank;
    this.prevBlank = a === b;
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
      // A log file has no empty line after the rows (Ansible prints it to the screen only).
      this.inRecap = false;
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
      case 0x6f: // o
        if (s.startsWith("ok: [", a)) return this.seen(s, a + 4, b, "ok");
        break;
      case 0x73: // s
        if (s.startsWith("skipping: [", a)) return this.seen(s, a + 10, b, "skipped");
        break;
      case 0x66: // f
        if (s.startsWith("fatal: [", a) || s.startsWith("failed: [", a)) return this.failure(s, a, b);
        break;
      case DOT:
        if (s.startsWith("...ignoring", a) && isBlank(s.slice(a + 11, b))) {
          this.events.push({ kind: Ev.Ignoring, task: this.task ?? "", host: "" });
          this.partial.ignoreLast();
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
        if (this.playLine(stripAnsi(s.slice(a, b)), ms)) return;
        break;
      case 0x54: // T
      case 0x52: // R
      case 0x43: // C
        if (this.taskBanner(stripAnsi(s.slice(a, b)), ms)) return;
        break;
      case 0x53: // S
      case 0x4d: // M
        if (prevBlank && b - a <= 14 && RAW_SECTIONS.has(s.slice(a, b))) {
          this.inRawSection = true;
          return;
        }
        break;
      case TAB:
        return;
    }
    this.maybeTimestamp(s, a, b);
  }

  /**
   * A line of a log file without the prefix: the rest of a multi-line message (result payload,
   * a wrapped warning), never structure, except the path line of a -vv profile_tasks entry and
   * the task lines of a --list-tasks play (Ansible prints a play's tasks as one message).
   */
  continuation(s: string, a: number, b: number): void {
    if (this.inSummary && this.lastWasEntry && PATH_LINE_RE.test(stripAnsi(s.slice(a, b)))) this.lastWasEntry = false;
    else if (this.planTasks.length > 0 && s.charCodeAt(a) === SPACE) this.planTaskLine(s, a, b);
  }

  /** In a raw section, a banner-like line narrower than Ansible's banners is the command's output. */
  private isOutput(line: string): boolean {
    if (!this.inRawSection) return false;
    if (widthBound(line.trimEnd()) < MIN_BANNER_WIDTH) return true;
    this.inRawSection = false;
    return false;
  }

  private playLine(line: string, ms: number): boolean {
    if (line.startsWith("PLAY RECAP ") && /^PLAY RECAP \*{3,}\s*$/.test(line)) {
      if (this.isOutput(line)) return false;
      this.sawStructure = true;
      this.sawRecap = true;
      this.playAfterRecap = false;
      this.inRecap = true;
      this.inSummary = false;
      this.recapRows = []; // counts are cumulative: only the last recap matters
      if (ms >= 0) this.recapStamp(ms);
      return true;
    }
    const name = bannerName(line, "PLAY");
    if (name === null || this.isOutput(line)) return false;
    this.sawStructure = true;
    this.startedPlays = true;
    this.plays.push({ number: this.plays.length + 1, name: detach(name), hosts: null });
    if (this.sawRecap) this.playAfterRecap = true;
    this.setTask(null);
    if (ms >= 0) {
      if (this.firstPlayMs < 0) this.firstPlayMs = ms;
      if (name !== this.lastPlayName) {
        this.lastPlayName = detach(name);
        this.batch = 0;
        this.firstBatch = [];
        this.firstByName = new Map();
        this.handlers = new Map();
      } else {
        this.batch++;
      }
      this.batchNames = new Map();
      this.batchPosition = 0;
      this.batchTaken = new Set();
    }
    return true;
  }

  private taskBanner(line: string, ms: number): boolean {
    for (const prefix of BANNERS) {
      const name = bannerName(line, prefix);
      if (name !== null) {
        if (this.isOutput(line)) return false;
        this.sawStructure = true;
        if (name !== this.task) this.setTask(detach(name));
        if (ms >= 0 && prefix !== "CLEANUP TASK") this.startTiming(prefix === "TASK", this.task ?? name, ms);
        return true;
      }
    }
    return false;
  }

  /** A TASK / RUNNING HANDLER banner at ms: the open task ends, this one starts (CLEANUP TASK does neither, like profile_tasks). */
  private startTiming(isTask: boolean, name: string, ms: number): void {
    this.stopTiming(ms);
    this.lastStartMs = ms;
    let timing = isTask ? this.batchTask(name) : this.handlers.get(name);
    if (!timing) {
      timing = { task: name, ms: 0 };
      this.timings.push(timing);
      if (isTask) {
        if (this.batch === 0) {
          this.firstBatch.push(timing);
          const same = this.firstByName.get(name);
          if (same) same.push(timing);
          else this.firstByName.set(name, [timing]);
        }
      } else {
        this.handlers.set(name, timing);
      }
    }
    this.openTiming = timing;
    this.openedAt = ms;
  }

  /** The first batch's task that a later batch's TASK banner adds to, if any (see the fields). */
  private batchTask(name: string): Timing | undefined {
    const rank = this.batchNames.get(name) ?? 0;
    this.batchNames.set(name, rank + 1);
    const position = this.batchPosition++;
    if (this.batch === 0) return undefined;
    const byName = this.firstByName.get(name);
    let timing = byName?.[rank];
    if (!byName) timing = this.firstBatch[position];
    if (!timing || this.batchTaken.has(timing)) return undefined;
    this.batchTaken.add(timing);
    return timing;
  }

  private stopTiming(ms: number): void {
    if (this.openTiming) this.openTiming.ms += Math.max(0, ms - this.openedAt);
    this.openTiming = null;
  }

  /** PLAY RECAP at ms: what profile_tasks would print here, from the timestamps. */
  private recapStamp(ms: number): void {
    this.stopTiming(ms);
    if (this.firstPlayMs < 0) return;
    this.stampElapsed = Math.floor(Math.max(0, ms - this.firstPlayMs) / 1000);
    this.stampSlowest = slowestTimings(this.timings);
  }

  /**
   * An incomplete run's elapsed time and timings so far: profile_tasks' figures when it printed
   * any, else a log file's timestamps (the last task's start after the first play's, and the
   * tasks that ended, the one still running left out unless an earlier batch gave it time).
   */
  private partialTimings(): { elapsed: number | null; slowest: RecapTaskTiming[] } {
    if (this.lastStampTotal !== null) return { elapsed: this.lastStampTotal, slowest: slowestOf(this.stampDurations) };
    if (this.firstPlayMs < 0 || this.lastStartMs < 0) return { elapsed: null, slowest: [] };
    const ended = this.timings.filter((t) => t !== this.openTiming || t.ms > 0);
    return { elapsed: Math.floor(Math.max(0, this.lastStartMs - this.firstPlayMs) / 1000), slowest: slowestTimings(ended) };
  }

  private setTask(task: string | null): void {
    this.task = task;
    this.occurrence += 1;
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
    this.partial.add(this.occurrence, detach(found.host), "changed");
    if (hosts.has(found.host)) return;
    const host = detach(found.host);
    hosts.add(host);
    this.changedPairs.push({ task: this.task, host });
  }

  /** An `ok:` / `skipping:` line: only the partial counts of an incomplete run use it. */
  private seen(s: string, open: number, b: number, kind: "ok" | "skipped"): void {
    if (this.task === null) return;
    const found = hostAt(s, open, b);
    if (found) this.partial.add(this.occurrence, detach(found.host), kind);
  }

  private failure(s: string, a: number, b: number): void {
    const fatal = s.charCodeAt(a + 2) === 0x74; // "fatal" vs "failed"
    const found = hostAt(s, a + (fatal ? 7 : 8), b);
    if (!found) return;
    let kind: Ev;
    if (fatal && startsWithin(s, "]: FAILED!", found.close, b)) kind = Ev.Fail;
    else if (fatal && startsWithin(s, "]: UNREACHABLE!", found.close, b)) kind = Ev.Unreachable;
    else if (!fatal && startsWithin(s, "] (item=", found.close, b)) kind = Ev.Fail;
    else return;
    if (kind === Ev.Fail && this.task === null) return;
    this.partial.add(this.occurrence, detach(found.host), kind === Ev.Fail ? "failed" : "unreachable");
    this.events.push({ kind, task: this.task ?? "", host: detach(found.host) });
  }

  /** `--list-tasks` output: `  play #N (HOSTS): NAME\tTAGS: [...]` and 6-space task lines. */
  private planLine(s: string, a: number, b: number): void {
    if (s.startsWith("  play #", a)) {
      const m = PLAN_PLAY_RE.exec(s.slice(a, b));
      if (m && m[1] !== undefined && m[2] !== undefined) {
        this.sawStructure = true;
        this.startedPlays = true;
        this.planPlays.push({ number: this.planPlays.length + 1, name: detach(m[2]), hosts: detach(m[1]) });
        this.planTasks.push(0);
      }
      return;
    }
    this.planTaskLine(s, a, b);
  }

  private planTaskLine(s: string, a: number, b: number): void {
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
    this.lastStampTotal = this.pendingElapsed;
    const took = TIMESTAMP_PAREN_RE.exec(s.slice(a, b));
    if (this.stampTask !== null && took) {
      const sec = Number(took[1]) * 3600 + Number(took[2]) * 60 + Number(took[3]);
      this.stampDurations.set(this.stampTask, (this.stampDurations.get(this.stampTask) ?? 0) + sec);
    }
    this.stampTask = this.task;
  }

  /** Reached its (last) PLAY RECAP and started nothing after it. */
  get ended(): boolean {
    return this.sawRecap && !this.playAfterRecap;
  }

  resolve(options: RecapOptions = {}): Recap {
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

    // profile_tasks' own figures win; a log file's timestamps stand in for them.
    const fromProfile = this.elapsed !== null;
    const elapsed = fromProfile ? this.elapsed : this.stampElapsed;
    const slowest = fromProfile ? this.slowest : this.stampSlowest;
    const recap: Recap = {
      plays: (plan ? this.planPlays : this.plays).map((p) => ({ ...p })),
      hosts: this.recapRows.map((r) => ({ ...r })),
      elapsed_sec: elapsed,
      slowest_tasks: elapsed === null ? [] : slowest.map((t) => ({ ...t })),
      changed_tasks: [...changed],
      ignored_failures: byFirstFailure(ignoredTasks),
      failed_tasks: byFirstFailure(failedTasks),
      unreachable_hosts: [...unreachable],
      status,
    };
    if (plan) recap.tasks_per_play = [...this.planTasks];
    if (options.partial && status === "incomplete") {
      recap.partial_hosts = this.partial.rows();
      const soFar = this.partialTimings();
      recap.partial_elapsed_sec = soFar.elapsed;
      recap.partial_slowest_tasks = soFar.slowest;
    }
    return recap;
  }
}

const enum Mode {
  /** Nothing seen yet that says which kind of text this is. */
  Detect,
  /** A terminal's text: no line is read as a log file's prefix any more. */
  Plain,
  /** Ansible's log file: prefixed lines start messages, the others continue them. */
  Log,
}

const isDigit = (c: number): boolean => c >= DIGIT_0 && c <= DIGIT_0 + 9;

export class RecapTextParser {
  private carry = "";
  private pendingCR = false;
  private started = false;
  private finished = false;

  private mode = Mode.Detect;
  private readonly plain = new RunReader();
  /**
   * A log file: one reader per process (`p=`), since Ansible appends every run (and every
   * ad-hoc command) to the same file, and runs at the same time interleave their lines.
   */
  private readonly runs = new Map<number, RunReader>();
  private startedRuns = 0;
  /** The reader of the last prefixed line (its continuation lines go there), null for another logger's line. */
  private current: RunReader | null = null;
  /** The pid of the last prefix recognised by logPrefix(), and whether it was Ansible's logger. */
  private prefixPid = 0;
  private prefixAnsible = false;

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

  constructor(private readonly options: RecapOptions = {}) {}

  finish(): Recap {
    if (!this.finished) {
      if (this.carry.length > 0) this.line(this.carry, 0, this.carry.length);
      this.carry = "";
      this.finished = true;
    }
    return (this.mode === Mode.Log ? this.lastRun() : this.plain).resolve(this.options);
  }

  /** The run of a log file that started its plays last (docs/recap.md: "Several runs in one file"). */
  private lastRun(): RunReader {
    let last: RunReader | null = null;
    for (const run of this.runs.values()) if (run.startOrder > (last?.startOrder ?? 0)) last = run;
    return last ?? new RunReader();
  }

  private runOf(pid: number): RunReader {
    let run = this.runs.get(pid);
    if (run) return run;
    run = new RunReader();
    this.runs.set(pid, run);
    // Processes that printed no play yet (ad-hoc commands, ansible-connection…) are kept, but not forever.
    if (this.runs.size > MAX_RUNS) {
      for (const [other, r] of this.runs) {
        if (r.startOrder === 0 && r !== run) {
          this.runs.delete(other);
          break;
        }
      }
    }
    return run;
  }

  /**
   * A run started its plays: it is now the last run. The runs that started before it and ended
   * can never be chosen again: dropped, so memory stays small over a file of a year of runs.
   * A run that did not end is kept (it may still be running, interleaved with this one).
   */
  private runStarted(run: RunReader): void {
    run.startOrder = ++this.startedRuns;
    for (const [pid, other] of this.runs) if (other !== run && other.startOrder > 0 && other.ended) this.runs.delete(pid);
  }

  /** One line, s[a, b) without its LF. */
  private line(s: string, a: number, b: number): void {
    if (this.mode === Mode.Plain) return this.plain.line(s, a, b, -1);
    const message = this.logPrefix(s, a, b);
    if (message >= 0) {
      // The first prefix before any structure: Ansible's log file (lines before it belong to a
      // message whose start is not in the text). After structure, it is a command's output.
      this.mode = Mode.Log;
      const run = this.prefixAnsible ? this.runOf(this.prefixPid) : null;
      this.current = run;
      if (run) {
        // Only banners and the PLAY RECAP use the time (P, T, R): the others skip the date arithmetic.
        const c = s.charCodeAt(message);
        run.line(s, message, b, c === 0x50 || c === 0x54 || c === 0x52 ? prefixTime(s, a) : -1);
        if (run.startOrder === 0 && run.startedPlays) this.runStarted(run);
      }
    } else if (this.mode === Mode.Log) {
      this.current?.continuation(s, a, b);
    } else {
      this.plain.line(s, a, b, -1);
      if (this.plain.sawStructure) this.mode = Mode.Plain;
    }
  }

  /**
   * The prefix of a log file line, as Python's logging writes it for Ansible:
   *   2.10 to 2.16: `2026-11-30 16:20:20,557 p=1989 u=root n=ansible | MESSAGE`
   *   2.17 and on:  `2026-11-30 16:20:20,557 p=1989 u=root n=ansible INFO| MESSAGE`
   *   2.9 and before: `2026-11-30 16:20:20,557 p=1989 u=root |  MESSAGE`
   * Returns where MESSAGE starts (and sets prefixPid, prefixAnsible), or -1.
   * Hand-written: it runs on every line of a log file, and most lines fail at the first test.
   */
  private logPrefix(s: string, a: number, b: number): number {
    if (b - a < 32 || !isDigit(s.charCodeAt(a))) return -1;
    if (
      s.charCodeAt(a + 4) !== DASH ||
      s.charCodeAt(a + 7) !== DASH ||
      s.charCodeAt(a + 10) !== SPACE ||
      s.charCodeAt(a + 13) !== COLON ||
      s.charCodeAt(a + 16) !== COLON ||
      s.charCodeAt(a + 19) !== COMMA ||
      !s.startsWith(" p=", a + 23)
    ) {
      return -1;
    }
    for (const at of STAMP_DIGITS) if (!isDigit(s.charCodeAt(a + at))) return -1;
    let i = a + 26;
    let pid = 0;
    for (; i < b && isDigit(s.charCodeAt(i)); i++) pid = pid * 10 + s.charCodeAt(i) - DIGIT_0;
    if (i === a + 26 || !s.startsWith(" u=", i)) return -1;
    const userEnd = s.indexOf(" ", i + 3);
    if (userEnd < 0 || userEnd >= b) return -1;
    let message: number;
    let ansible: boolean;
    if (s.startsWith("|  ", userEnd + 1)) {
      message = userEnd + 4; // 2.9: the logger's name was `p=.. u=.. | `, then a space
      ansible = true;
    } else if (s.startsWith("n=", userEnd + 1)) {
      const name = userEnd + 3;
      const nameEnd = s.indexOf(" ", name);
      if (nameEnd < 0 || nameEnd >= b) return -1;
      // Libraries log to the same file under their own names (n=paramiko.transport…): not Ansible's display.
      ansible = s.startsWith("ansible", name) && (nameEnd === name + 7 || s.charCodeAt(name + 7) === DOT);
      let j = nameEnd + 1;
      while (j < b && s.charCodeAt(j) >= UPPER_A && s.charCodeAt(j) <= UPPER_Z) j++; // 2.17: the level name
      if (!s.startsWith("| ", j)) return -1;
      message = j + 2;
    } else {
      return -1;
    }
    if (message > b) return -1;
    this.prefixPid = pid;
    this.prefixAnsible = ansible;
    return message;
  }
}

/** Positions of the digits in `2026-11-30 16:20:20,557`. */
const STAMP_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22];

function digits(s: string, at: number, len: number): number {
  let v = 0;
  for (let i = at; i < at + len; i++) v = v * 10 + s.charCodeAt(i) - DIGIT_0;
  return v;
}

/** The time of a log file line whose prefix starts at a, in ms (the local wall clock read as UTC: only differences matter). */
function prefixTime(s: string, a: number): number {
  return Date.UTC(
    digits(s, a, 4),
    digits(s, a + 5, 2) - 1,
    digits(s, a + 8, 2),
    digits(s, a + 11, 2),
    digits(s, a + 14, 2),
    digits(s, a + 17, 2),
    digits(s, a + 20, 3),
  );
}

/** Whole-text convenience wrapper around the streaming parser. */
export function parseRecapText(text: string): Recap {
  const parser = new RecapTextParser();
  parser.push(text);
  return parser.finish();
}

/** The recap of a log that arrives in chunks (an upload, stored output): parsed as they come, never joined. */
export async function parseRecapChunks(chunks: Iterable<string> | AsyncIterable<string>, options: RecapOptions = {}): Promise<Recap> {
  const parser = new RecapTextParser(options);
  for await (const chunk of chunks) parser.push(chunk);
  return parser.finish();
}
