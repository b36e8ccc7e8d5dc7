import type { OutputChunk, OutputWindow } from "@/components/api/types";
import { countChunkLines } from "@/server/protocol/output-lines";
import { LineCache, type CachedLine } from "./line-cache";

/**
 * What the job page knows of a job's output, windowed: the lines near what is shown (and the
 * tail) are read over HTTP a page at a time and kept in a bounded LineCache; live chunks fill
 * lines by number. Memory stays bounded whatever the size of the job: at most `maxPages`
 * pages are held, the ones far from the view are dropped, and a live line for a page that is
 * neither held nor near the view is not kept (it is read again when it is scrolled to).
 *
 * No React, no socket, no fetch of its own: the caller passes a `read` function (the HTTP
 * call) and feeds it the socket's chunks, so every rule here is unit tested without a server.
 * components/hooks/use-job-lines.ts wires it to the page.
 */

export type LinesQuery = { from: number; count: number } | { tail: number };
export type ReadLines = (query: LinesQuery, signal: AbortSignal) => Promise<OutputWindow>;

export interface JobLinesOptions {
  /** Lines per page (one HTTP read). */
  pageSize?: number;
  /** Pages held at most (the pages of the view and of the tail are never dropped, so a few more may be held for a moment). */
  maxPages?: number;
  /** Lines above and below the view read ahead. */
  margin?: number;
  /** Reads for a new view start at most this often: a fast scroll does not read every page it passes. */
  readDelayMs?: number;
  /** A page whose read failed is tried again after this long. */
  retryMs?: number;
  /** While live, lines the socket owes (Job.lines is ahead of it) are read over HTTP after this long. */
  stallMs?: number;
  now?: () => number;
}

export interface JobLinesState {
  /** Changes whenever anything below or any held line changes. */
  readonly version: number;
  /** How many lines the job has: max(Job.lines, the highest line known). */
  readonly total: number;
  /** The job has ended (from a read or from the job): `total` will not change. */
  readonly final: boolean;
  /** The first read of the tail is over, successful or not. */
  readonly loaded: boolean;
  /** The last failed read of the tail (null once one succeeds). */
  readonly error: unknown;
  /** Line n (1-based) if it is held. Bound to this state: a new state has a new function. */
  readonly line: (n: number) => CachedLine | undefined;
}

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === "AbortError";
}

export class JobLines {
  readonly cache: LineCache;
  private readonly read: ReadLines;
  private readonly maxPages: number;
  private readonly margin: number;
  private readonly readDelayMs: number;
  private readonly retryMs: number;
  private readonly stallMs: number;
  private readonly now: () => number;

  private jobLines = 0;
  private known = 0;
  private finalSeen = false;
  private loaded = false;
  private error: unknown = null;
  /**
   * The follow cursor: every line up to it is either held or can be read over HTTP (a read
   * of the tail, or a run of chunks without a gap, got that far). The socket is followed
   * from here, so a reconnection neither loses nor repeats what was live.
   */
  private cursor = 0;
  /** Line ranges received above the cursor with a gap below them (a chunk out of order). */
  private ahead: [number, number][] = [];
  /** The socket is following: lines above the cursor will come from it. */
  private live = false;
  /** Since when the socket owes lines (total above the cursor while live). */
  private owedSince: number | null = null;

  private view: { first: number; last: number } | null = null;
  private readonly inflight = new Map<number, AbortController>();
  private readonly failedUntil = new Map<number, number>();
  private lastSync = -Infinity;
  private syncTimer: ReturnType<typeof setTimeout> | null = null;
  private wakeTimer: ReturnType<typeof setTimeout> | null = null;
  private tailController: AbortController | null = null;
  private stopped = false;

  private state: JobLinesState;
  private readonly listeners = new Set<() => void>();

  constructor(read: ReadLines, options: JobLinesOptions = {}) {
    this.read = read;
    this.cache = new LineCache(options.pageSize ?? 500);
    this.maxPages = options.maxPages ?? 24;
    this.margin = options.margin ?? Math.ceil(this.cache.pageSize / 2);
    this.readDelayMs = options.readDelayMs ?? 60;
    this.retryMs = options.retryMs ?? 2000;
    this.stallMs = options.stallMs ?? 4000;
    this.now = options.now ?? Date.now;
    this.state = this.makeState(0);
  }

  // --- React's external store --------------------------------------------------------

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getState = (): JobLinesState => this.state;

  private makeState(version: number): JobLinesState {
    const cache = this.cache;
    return {
      version,
      total: this.total,
      final: this.finalSeen,
      loaded: this.loaded,
      error: this.error,
      line: (n) => cache.get(n),
    };
  }

  private changed(): void {
    this.state = this.makeState(this.state.version + 1);
    for (const listener of this.listeners) listener();
  }

  // --- What is known -----------------------------------------------------------------

  get total(): number {
    return Math.max(this.jobLines, this.known);
  }

  get final(): boolean {
    return this.finalSeen;
  }

  /** The `afterLine` to follow the socket from. */
  get followCursor(): number {
    return this.cursor;
  }

  /** Lines arrived up to `to` with nothing missing from the cursor: move it on, over what arrived early too. */
  private advance(from: number, to: number): void {
    if (to <= this.cursor) return;
    if (from > this.cursor + 1) {
      this.ahead.push([from, to]);
      this.ahead.sort((a, b) => a[0] - b[0]);
      // Bounded: a burst of far chunks cannot grow this without end (the oldest ranges are
      // forgotten; lines there are read over HTTP if ever missing).
      if (this.ahead.length > 256) this.ahead.splice(0, this.ahead.length - 256);
      return;
    }
    this.cursor = to;
    let moved = true;
    while (moved) {
      moved = false;
      this.ahead = this.ahead.filter(([a, b]) => {
        if (b <= this.cursor) return false;
        if (a <= this.cursor + 1) {
          this.cursor = b;
          moved = true;
          return false;
        }
        return true;
      });
    }
  }

  private noteTotal(total: number): void {
    this.known = Math.max(this.known, total);
    this.checkOwed();
  }

  private checkOwed(): void {
    const owed = this.live && !this.finalSeen && this.total > this.cursor;
    if (!owed) {
      this.owedSince = null;
      return;
    }
    if (this.owedSince === null) {
      this.owedSince = this.now();
      this.scheduleSync();
    }
  }

  /** Job.lines and whether the job is final, from the job itself (the query or job:status). */
  setJob(lines: number, final: boolean): void {
    const before = this.total;
    const wasFinal = this.finalSeen;
    this.jobLines = Math.max(this.jobLines, lines);
    this.finalSeen ||= final;
    this.checkOwed();
    if (this.total !== before || this.finalSeen !== wasFinal) {
      this.changed();
      this.scheduleSync();
    }
  }

  /** The socket follows (true) or is down (false). */
  setLive(live: boolean): void {
    if (this.live === live) return;
    this.live = live;
    this.checkOwed();
    this.scheduleSync();
  }

  // --- Input -------------------------------------------------------------------------

  /**
   * A window read over HTTP. Every line up to its `total` is stored on the server, so the
   * cursor moves there: what of it is not held is read over HTTP when it is shown.
   */
  private putWindow(window: OutputWindow): boolean {
    const changed = this.cache.putWindow(window.from, window.ansi, window.lines, (p) => this.keepPage(p));
    const wasFinal = this.finalSeen;
    const before = this.total;
    this.finalSeen ||= window.final;
    const last = window.lines.length > 0 ? window.lines[window.lines.length - 1]!.n : 0;
    const total = Math.max(window.total, last);
    this.noteTotal(total);
    this.advance(1, total);
    this.checkOwed();
    this.evict();
    return changed || this.total !== before || wasFinal !== this.finalSeen;
  }

  /** Chunks from the socket (any order, duplicates allowed). Lines for pages far from the view are not kept. */
  receiveChunks(chunks: readonly OutputChunk[]): void {
    let changed = false;
    const before = this.total;
    for (const chunk of [...chunks].sort((a, b) => a.firstLine - b.firstLine)) {
      const count = countChunkLines(chunk.text);
      if (count === 0 || !(chunk.firstLine >= 1)) continue;
      const last = chunk.firstLine + count - 1;
      if (this.cache.putChunk(chunk, (p) => this.keepPage(p))) changed = true;
      this.advance(chunk.firstLine, last);
      this.noteTotal(last);
    }
    this.checkOwed();
    this.evict();
    if (changed || this.total !== before) this.changed();
  }

  // --- Reading -----------------------------------------------------------------------

  /**
   * Reads the last page of lines: at the start, when the job ends, while polling. Throws what
   * the read threw (the caller decides whether to give up); a read already running is
   * replaced by this one.
   */
  async readTail(): Promise<void> {
    this.tailController?.abort();
    const controller = new AbortController();
    this.tailController = controller;
    try {
      const window = await this.read({ tail: this.cache.pageSize }, controller.signal);
      if (controller.signal.aborted || this.stopped) return;
      this.error = null;
      this.loaded = true;
      this.putWindow(window);
      this.changed();
      this.scheduleSync();
    } catch (cause) {
      if (isAbort(cause) || controller.signal.aborted || this.stopped) return;
      this.error = cause;
      this.loaded = true;
      this.changed();
      throw cause;
    } finally {
      if (this.tailController === controller) this.tailController = null;
    }
  }

  /** The lines shown now (1-based, inclusive). Pages around them are read, others dropped. */
  setView(first: number, last: number): void {
    const view = { first: Math.max(1, Math.min(first, last)), last: Math.max(1, first, last) };
    if (this.view && this.view.first === view.first && this.view.last === view.last) return;
    this.view = view;
    // Reads for pages no longer wanted stop at once; new ones start after a short delay.
    for (const [p, controller] of this.inflight) {
      if (!this.wanted(p)) {
        controller.abort();
        this.inflight.delete(p);
      }
    }
    this.scheduleSync();
  }

  /** Pages near the view: read when incomplete, never dropped. */
  private wanted(p: number): boolean {
    if (!this.view) return false;
    const from = this.cache.pageOf(Math.max(1, this.view.first - this.margin));
    const to = this.cache.pageOf(this.view.last + this.margin);
    return p >= from && p <= to;
  }

  /** Pages whose lines are kept when they arrive: the view's and the tail's. */
  private keepPage(p: number): boolean {
    if (this.wanted(p)) return true;
    const total = this.total;
    // Before any view, and for the tail: the last two pages (the tail read spans two).
    const tailPage = this.cache.pageOf(Math.max(1, total));
    return p >= tailPage - 1;
  }

  /** Up to which line pages may be read over HTTP: while live, what the socket owes is left to it (for a while). */
  private readableUpTo(): number {
    const total = this.total;
    if (!this.live || this.finalSeen) return total;
    if (this.owedSince !== null && this.now() - this.owedSince >= this.stallMs) return total;
    return Math.min(total, this.cursor);
  }

  private scheduleSync(): void {
    if (this.stopped || this.syncTimer !== null) return;
    const wait = Math.max(0, this.lastSync + this.readDelayMs - this.now());
    this.syncTimer = setTimeout(() => {
      this.syncTimer = null;
      this.sync();
    }, wait);
  }

  private wakeAt(time: number): void {
    if (this.stopped) return;
    if (this.wakeTimer !== null) clearTimeout(this.wakeTimer);
    this.wakeTimer = setTimeout(
      () => {
        this.wakeTimer = null;
        this.sync();
      },
      Math.max(0, time - this.now()),
    );
  }

  /** Starts the reads the view needs. Called by the timers; public for tests. */
  sync(): void {
    if (this.stopped) return;
    this.lastSync = this.now();
    this.evict();
    const view = this.view;
    if (!view) return;
    const upTo = this.readableUpTo();
    const from = this.cache.pageOf(Math.max(1, view.first - this.margin));
    const to = this.cache.pageOf(Math.max(1, Math.min(view.last + this.margin, upTo)));
    const now = this.now();
    let nextRetry = Infinity;
    // The view's own pages first, then the read-ahead.
    const centre = this.cache.pageOf(Math.floor((view.first + view.last) / 2));
    const order: number[] = [];
    for (let p = from; p <= to; p++) order.push(p);
    order.sort((a, b) => Math.abs(a - centre) - Math.abs(b - centre));
    for (const p of order) {
      if (this.inflight.has(p)) continue;
      const [first, last] = this.cache.pageRange(p);
      if (first > upTo || !this.cache.missing(first, Math.min(last, upTo))) continue;
      const retryAt = this.failedUntil.get(p);
      if (retryAt !== undefined && retryAt > now) {
        nextRetry = Math.min(nextRetry, retryAt);
        continue;
      }
      this.readPage(p);
    }
    // Wake up for the next retry, and when what the socket owes is due over HTTP.
    let wake = nextRetry;
    if (this.owedSince !== null && now < this.owedSince + this.stallMs) wake = Math.min(wake, this.owedSince + this.stallMs);
    if (wake !== Infinity) this.wakeAt(wake);
  }

  private readPage(p: number): void {
    const controller = new AbortController();
    this.inflight.set(p, controller);
    const [first] = this.cache.pageRange(p);
    this.read({ from: first, count: this.cache.pageSize }, controller.signal).then(
      (window) => {
        if (this.inflight.get(p) === controller) this.inflight.delete(p);
        if (controller.signal.aborted || this.stopped) return;
        this.failedUntil.delete(p);
        if (this.putWindow(window)) this.changed();
        // The job may have grown while this read ran, or the view moved on.
        this.scheduleSync();
      },
      (cause: unknown) => {
        if (this.inflight.get(p) === controller) this.inflight.delete(p);
        if (isAbort(cause) || controller.signal.aborted || this.stopped) return;
        this.failedUntil.set(p, this.now() + this.retryMs);
        this.scheduleSync();
      },
    );
  }

  /** Pages being read now (for tests). */
  readingPages(): number[] {
    return [...this.inflight.keys()].sort((a, b) => a - b);
  }

  private evict(): void {
    const view = this.view;
    const centre = view ? Math.floor((view.first + view.last) / 2) : this.total;
    const dropped = this.cache.evict(this.maxPages, centre, (p) => this.keepPage(p) || this.inflight.has(p));
    if (dropped.length > 0) this.failedUntil.clear();
  }

  // --- Life --------------------------------------------------------------------------

  /** Starts again after stop() (React runs effects twice in development). */
  start(): void {
    this.stopped = false;
    this.scheduleSync();
  }

  /** Aborts every read and timer. The lines held stay. */
  stop(): void {
    this.stopped = true;
    this.tailController?.abort();
    this.tailController = null;
    for (const controller of this.inflight.values()) controller.abort();
    this.inflight.clear();
    if (this.syncTimer !== null) clearTimeout(this.syncTimer);
    if (this.wakeTimer !== null) clearTimeout(this.wakeTimer);
    this.syncTimer = null;
    this.wakeTimer = null;
    this.live = false;
    this.owedSince = null;
  }
}
