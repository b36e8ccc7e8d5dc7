/**
 * Turns a playbook's raw streams into numbered batches: every 0.5 s, or as soon as 64 KB are
 * waiting, whichever comes first.
 *
 * Order: items are emitted in the order things happened. Everything waits in one queue; when a
 * runner log line, an events line or data on the other stream arrives, the complete lines
 * already pending on the stream(s) move into the queue first, so a line printed before it is
 * numbered before it. Consecutive pieces of one stream stay one item, so a chatty stdout still
 * makes one item per batch. (Two pipes read by one process cannot say what happened first to
 * the microsecond; what arrives first here comes first.)
 *
 * Only whole lines are queued (a partial line waits on its stream for its end, up to one more
 * interval), so a secret is never split across two batches where the masker could not see it
 * whole. A partial line that goes out after that interval keeps back its end when that end could
 * start a secret (the masker's `pending`: a playbook printed half of it and sleeps), and so do
 * trailing lines of wrapped base64: that much waits for the next write or the end of the stream.
 * The same holds when an event, a runner line or the other stream came after those lines (they
 * were queued already): the queue is sent up to where a stream's held text starts, and what came
 * after it waits with it, in order (at most HELD_BEHIND_ITEMS items or maxBatchBytes characters:
 * past that the hold ends and everything goes). A stream's pieces that meet at a line end, with
 * such items between them, are masked as one text and cut back at that line end (see
 * maskOutputPieces), so wrapped base64 split by an event is masked whole (attack 4 on issue 34).
 * An item never holds more than maxBatchBytes of text, except a single longer line:
 * several megabytes printed at once (a debug of a huge list) are cut at line ends, after masking.
 * Past maxBuffer bytes on one stream, one warning is logged and the rest of that stream is
 * read and dropped: the playbook keeps running, the app's storage is protected, and
 * `truncated` says so (the job's end item carries it: the job is marked outputTruncated).
 */
import { colourEndsAt, isBase64Char, maskJson, wrappedBase64Start, type Masker } from "../security/mask";
import type { UnnumberedItem } from "../protocol/rte-messages";

type StreamName = "stdout" | "stderr";

/** A line of base64 wrapped by `base64` (76 columns) or openssl (64), as printed raw, in YAML or in stdout_lines (coloured or not). */
// eslint-disable-next-line no-control-regex -- ansible-playbook colours its output: ANSI escapes start with ESC
const WRAPPED_BASE64_LINE = /^(?:\x1b\[[0-9;]*m)*[ "-]*(?:[A-Za-z0-9+/_-]{64}|[A-Za-z0-9+/_-]{76})(?:",)?(?:\x1b\[[0-9;]*m)*\r?\n$/;

/**
 * The event fields that carry a label the playbook templated (a loop item, delegate_to, an
 * included file, an error message, a result's diff) and their length once masked. The callback plugin sends
 * them nearly whole (up to PLUGIN_TEXT_MAX): cut before the masking, a secret across the cut
 * would keep its first characters.
 */
const EVENT_LABEL_MAX: Readonly<Record<string, number>> = { item: 200, delegate: 200, action: 200, message: 200, file: 1000, diff: 16_384 };
/** The callback plugin's cap (TEXT_MAX in playform_events.py, in code points): a text that long may have been cut there. */
const PLUGIN_TEXT_MAX = 65_536;

/**
 * The longest events line kept, in characters (UTF-16 code units, at most the line's UTF-8
 * bytes). The callback plugin's longest line is the `stats` event: set_stats data of at most
 * 1 MiB of JSON (ARTIFACTS_MAX in playform_events.py) and a row of about 100 characters per
 * host; its labels are cut at 64 Ki code points. 4 Mi leaves room for the rows of some 30,000
 * hosts on top of a full set_stats; a longer line is not the plugin's own (form code writing to
 * the events pipe) and is dropped.
 */
export const EVENTS_LINE_MAX = 4 * 1024 * 1024;

interface StreamState {
  /** Text not queued yet: complete lines since the last sync point, then a partial line. */
  pending: string;
  partialSince: number | null;
  bytes: number;
  overflowed: boolean;
  /** The pending text held() last answered for, and its answer (see heldOnce). */
  heldFor: string | null;
  heldAt: number;
}

/** What happened, in order, waiting for the next flush. */
export type Entry =
  | { kind: "output"; stream: StreamName; text: string }
  | { kind: "events"; events: unknown[]; chars: number }
  | { kind: "log"; text: string };

/**
 * Items that may wait in the queue behind a stream's held text (see release): an event counts
 * one, and so does a runner line or a piece of output. Past this many, or past maxBatchBytes
 * characters of them, the hold ends at the next flush and the queue goes whole (the held text
 * masked as it is, as at the end of the stream): a playbook that stops its stdout on a line of
 * base64 while its tasks go on does not make the runner keep their events without end.
 */
const HELD_BEHIND_ITEMS = 256;

export interface BatcherOptions {
  intervalMs: number;
  maxBatchBytes: number;
  maxBuffer: number;
  mask: Masker;
  emit: (items: UnnumberedItem[]) => void;
}

export class OutputBatcher {
  private readonly streams: Record<StreamName, StreamState> = {
    stdout: { pending: "", partialSince: null, bytes: 0, overflowed: false, heldFor: null, heldAt: 0 },
    stderr: { pending: "", partialSince: null, bytes: 0, overflowed: false, heldFor: null, heldAt: 0 },
  };
  private queue: Entry[] = [];
  /** Characters of output in the queue (with what is pending: when to flush early). */
  private queuedChars = 0;
  /** The stream written last: the only one that may hold complete lines not yet queued. */
  private lastStream: StreamName = "stdout";
  private eventsPartial = "";
  /** An events line went past EVENTS_LINE_MAX: the rest of it, up to its line break, is dropped. */
  private eventsDropping = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: BatcherOptions) {}

  /** Whether a stream went past maxBuffer and the rest of it was dropped. */
  get truncated(): boolean {
    return this.streams.stdout.overflowed || this.streams.stderr.overflowed;
  }

  start(): void {
    this.timer = setInterval(() => this.flush(false), this.options.intervalMs);
    this.timer.unref();
  }

  write(stream: StreamName, chunk: string): void {
    const state = this.streams[stream];
    if (state.overflowed) return;
    const size = Buffer.byteLength(chunk);
    if (state.bytes + size > this.options.maxBuffer) {
      // The stream is kept up to the cap, to the last whole line that fits: the stored output
      // ends where the cap is, not one pipe read (up to 64 KB) short of it.
      const room = this.options.maxBuffer - state.bytes;
      const head = Buffer.from(chunk).subarray(0, room).toString("utf8");
      const cut = (state.pending + head).lastIndexOf("\n") + 1 - state.pending.length;
      if (cut > 0) this.write(stream, head.slice(0, cut));
      // A partial line pending before the cap ends there (the flush sends it as it is), but not
      // what may be the start of a secret in one of its forms (a secret's base64 wrapped over
      // lines, a multi-line secret): the rest of it is dropped, so that start is dropped too;
      // also from the lines still queued (held behind an event or a runner line: see release).
      // In the partial line, all that held() keeps back, not only the masker's pending(): a
      // partial line that is a run of base64 waits whole as the possible first line of wrapped
      // base64, and pending() alone left its first characters, the secret's base64 among them,
      // to go out at the end (attack 5 on issue 34: the playbook paused inside that line, then
      // crossed the cap). Complete lines held as wrapped base64 are kept: the masker masks the
      // pieces of a secret's base64 they end with (pending() covers a break cut at the end).
      const unsent = this.queuedText(stream) + state.pending;
      const lineStart = unsent.lastIndexOf("\n") + 1;
      const heldInLine = unsent.length - Math.max(lineStart, this.held(unsent, lineStart));
      this.dropEnd(stream, Math.max(heldInLine, this.options.mask.pending?.(unsent) ?? 0));
      state.overflowed = true;
      this.log(
        `${stream} exceeded ${this.options.maxBuffer} bytes (PROCESS_MAX_BUFFER): the rest of ${stream} is not stored (the job is marked outputTruncated); the playbook continues`,
      );
      return;
    }
    state.bytes += size;
    // The other stream's complete lines came before this chunk.
    this.queueLines(stream === "stdout" ? "stderr" : "stdout");
    state.pending += chunk;
    this.lastStream = stream;
    const waiting = this.queuedChars + this.streams.stdout.pending.length + this.streams.stderr.pending.length;
    if (waiting >= this.options.maxBatchBytes) this.flush(false);
  }

  /**
   * Side-channel events from the callback plugin: JSON lines. Only the new chunk is searched for
   * line breaks, and a line longer than EVENTS_LINE_MAX is dropped as it comes (one runner line
   * says so) and read on to its end: splitting the whole partial line again at every 64 KiB read
   * was quadratic, and the line was kept whole until the end of the stream (attack 5 on issue
   * 34: 16 MiB with no line break took 10.6 s of the runner's event loop, 64 MiB 151 s and
   * 522 MiB; a form's filter plugin reaches the pipe from ansible-playbook's workers).
   */
  writeEvents(chunk: string): void {
    let from = 0;
    for (let at = chunk.indexOf("\n"); at !== -1; at = chunk.indexOf("\n", from)) {
      const piece = chunk.slice(from, at);
      from = at + 1;
      if (this.eventsDropping) {
        this.eventsDropping = false;
        continue;
      }
      const line = this.eventsPartial + piece;
      this.eventsPartial = "";
      if (line.length > EVENTS_LINE_MAX) this.dropEventsLine();
      else this.eventLine(line);
    }
    if (this.eventsDropping) return;
    this.eventsPartial += chunk.slice(from);
    if (this.eventsPartial.length > EVENTS_LINE_MAX) {
      this.eventsPartial = "";
      this.eventsDropping = true;
      this.dropEventsLine();
    }
  }

  private dropEventsLine(): void {
    this.log(
      `dropped an event line from the callback plugin longer than ${EVENTS_LINE_MAX} characters (the plugin writes none that long: not its own)`,
    );
  }

  /** One line of the events pipe: a JSON event, queued in order with the output. */
  private eventLine(line: string): void {
    if (!line.trim()) return;
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      this.log(`ignored a malformed event line from the callback plugin (${line.length} characters)`);
      return;
    }
    this.syncStreams();
    const last = this.queue.at(-1);
    if (last?.kind === "events") {
      last.events.push(event);
      last.chars += line.length;
    } else this.queue.push({ kind: "events", events: [event], chars: line.length });
  }

  log(text: string): void {
    this.syncStreams();
    this.queue.push({ kind: "log", text });
  }

  /** Emits what is waiting. `final` also emits partial lines (the process has ended). */
  flush(final: boolean): void {
    if (final && this.eventsPartial.trim()) this.writeEvents("\n");
    const now = Date.now();
    // The stream written last holds the newest text: the other one's (partial) line goes first.
    const last = this.lastStream;
    const holds = [this.takePending(last === "stdout" ? "stderr" : "stdout", final, now), this.takePending(last, final, now)];
    if (this.queue.length === 0) return;
    const entries = this.release(final, holds);
    if (entries.length === 0) return;
    const ts = now / 1000;
    const { mask, maxBatchBytes } = this.options;
    const masked = maskOutputPieces(entries, mask);
    const items: UnnumberedItem[] = [];
    for (const [i, entry] of entries.entries()) {
      if (entry.kind === "output") {
        // Masked whole, then cut: the masker sees the whole run of lines (a secret YAML folded
        // over two lines included), and what is cut is what is sent.
        const text = masked[i] ?? "";
        if (!text) continue;
        for (const piece of cutAtLineEnds(text, maxBatchBytes)) items.push({ kind: "output", stream: entry.stream, text: piece, ts });
      } else if (entry.kind === "events") {
        // Events carry task names, loop items and labels: whatever the playbook templated into
        // them, secrets included. Masked like the text, string by string, before the spool.
        items.push({ kind: "events", events: entry.events.map((event) => maskEvent(event, mask)), ts });
      } else {
        items.push({ kind: "log", text: mask(`${entry.text}\n`), ts });
      }
    }
    if (items.length > 0) this.options.emit(items);
  }

  /**
   * Takes what may go out of the queue: all of it at the end of the stream, otherwise up to the
   * earliest place where a stream's held text starts (`holds`: an offset in each stream's
   * queued text, see takePending). What came after that place (events, runner lines, the other
   * stream) stays queued behind it, in order, until the hold ends: masked with what follows, the
   * held lines go out first and the rest after them. Bounded: past HELD_BEHIND_ITEMS items or
   * maxBatchBytes characters behind the hold, the whole queue goes.
   */
  private release(final: boolean, holds: (readonly [StreamName, number] | null)[]): Entry[] {
    let at = this.queue.length;
    let offset = 0;
    if (!final) {
      for (const hold of holds) {
        if (!hold) continue;
        const [stream, held] = hold;
        // The entry of that stream the held offset falls in; the earliest hold wins.
        let seen = 0;
        for (let i = 0; i < this.queue.length; i++) {
          const entry = this.queue[i]!;
          if (entry.kind !== "output" || entry.stream !== stream) continue;
          if (held < seen + entry.text.length) {
            if (i < at || (i === at && held - seen < offset)) [at, offset] = [i, held - seen];
            break;
          }
          seen += entry.text.length;
        }
      }
      let behind = 0;
      let chars = 0;
      for (let i = at; i < this.queue.length; i++) {
        const entry = this.queue[i]!;
        behind += entry.kind === "events" ? entry.events.length : 1;
        chars += entry.kind === "events" ? entry.chars : entry.text.length;
      }
      if (behind > HELD_BEHIND_ITEMS || chars > this.options.maxBatchBytes) [at, offset] = [this.queue.length, 0];
    }
    const entries = this.queue.slice(0, at);
    const rest = this.queue.slice(at);
    const split = rest[0];
    if (offset > 0 && split?.kind === "output") {
      entries.push({ ...split, text: split.text.slice(0, offset) });
      rest[0] = { ...split, text: split.text.slice(offset) };
    }
    this.queue = rest;
    this.queuedChars = rest.reduce((sum, entry) => sum + (entry.kind === "output" ? entry.text.length : 0), 0);
    return entries;
  }

  /** A stream's output still in the queue, in order: its text before what is pending. */
  private queuedText(stream: StreamName): string {
    let text = "";
    for (const entry of this.queue) if (entry.kind === "output" && entry.stream === stream) text += entry.text;
    return text;
  }

  /** Drops the last `count` characters of a stream's unsent text: pending first, then queued. */
  private dropEnd(stream: StreamName, count: number): void {
    const state = this.streams[stream];
    const fromPending = Math.min(count, state.pending.length);
    state.pending = state.pending.slice(0, state.pending.length - fromPending);
    let left = count - fromPending;
    for (let i = this.queue.length - 1; i >= 0 && left > 0; i--) {
      const entry = this.queue[i]!;
      if (entry.kind !== "output" || entry.stream !== stream) continue;
      const cut = Math.min(left, entry.text.length);
      entry.text = entry.text.slice(0, entry.text.length - cut);
      this.queuedChars -= cut;
      left -= cut;
      if (!entry.text) this.queue.splice(i, 1);
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.flush(true);
  }

  /** A sync point (a log line, an event): both streams' complete lines are queued before it. */
  private syncStreams(): void {
    this.queueLines("stdout");
    this.queueLines("stderr");
  }

  /** Moves a stream's complete lines into the queue; a partial line stays pending. */
  private queueLines(stream: StreamName): void {
    const state = this.streams[stream];
    const cut = state.pending.lastIndexOf("\n") + 1;
    if (cut === 0) return;
    this.enqueueOutput(stream, state.pending.slice(0, cut));
    state.pending = state.pending.slice(cut);
    // What is left is a new partial line: its clock starts at the next flush, as when whole
    // lines go out at a flush (see takePending); an older clock could cut it at once.
    state.partialSince = null;
  }

  private enqueueOutput(stream: StreamName, text: string): void {
    this.queuedChars += text.length;
    const last = this.queue.at(-1);
    if (last?.kind === "output" && last.stream === stream) last.text += text;
    else this.queue.push({ kind: "output", stream, text });
  }

  /**
   * At a flush: queues the stream's complete lines, and its partial line when it may go. Returns
   * where the stream's held text starts in its queued text (see release), when it starts there:
   * lines queued at an event or a runner line may be the first lines of wrapped base64 that the
   * pending text goes on with.
   */
  private takePending(stream: StreamName, final: boolean, now: number): readonly [StreamName, number] | null {
    const state = this.streams[stream];
    if (final) {
      if (state.pending) this.enqueueOutput(stream, state.pending);
      state.pending = "";
      state.heldFor = null;
      state.partialSince = null;
      return null;
    }
    const queued = this.queuedText(stream);
    if (!state.pending && !queued) return null;
    // The stream's whole unsent text: what is queued, then what is pending.
    const text = queued + state.pending;
    const cut = state.pending.lastIndexOf("\n") + 1;
    // A partial line (a prompt, a progress dot) is held back one interval at most.
    const partialIsStale = state.partialSince !== null && now - state.partialSince >= this.options.intervalMs;
    // A stale partial is sent only while it is still the only thing waiting: once a newline came,
    // the text after it is a new partial line that must wait its own turn (it may end in the
    // middle of a secret).
    const takeAll = (partialIsStale && cut === 0) || state.pending.length >= this.options.maxBatchBytes * 4;
    // Not the end that could be the start of a secret cut by the end of a write (see held).
    // held() looks at the last line from its start: in the queued text when a partial line
    // went there (stale, behind a hold) and pending goes on with it.
    const held = this.heldOnce(state, text, text.lastIndexOf("\n") + 1);
    const end = Math.max(0, Math.min(takeAll ? state.pending.length : cut, held - queued.length));
    if (end > 0) this.enqueueOutput(stream, state.pending.slice(0, end));
    state.pending = state.pending.slice(end);
    // The clock of a held partial line restarts whenever a whole line went out before it.
    state.partialSince = state.pending ? (end > 0 ? now : (state.partialSince ?? now)) : null;
    return held < queued.length ? [stream, held] : null;
  }

  /**
   * held() for a stream's pending text, remembered with that text: a partial line that waits
   * (the playbook printed it and sleeps) is not masked again at every interval while it has
   * not changed (up to 64 KiB at every flush, on the runner's event loop: attack 4 on issue 34).
   */
  private heldOnce(state: StreamState, text: string, cut: number): number {
    if (state.heldFor !== text) {
      state.heldAt = this.held(text, cut);
      state.heldFor = text;
    }
    return state.heldAt;
  }

  /**
   * Where the text that may be the start of a secret begins, cut by the end of a write (the
   * playbook printed half of it and sleeps): it waits for the next write or the end of the
   * stream, and is masked with what follows. At most the longest form of a secret, minus one
   * character; in the partial line, or in the last complete line and the partial one when that
   * line is a line of wrapped base64 (64 or 76 columns). Complete lines otherwise go at once.
   */
  private held(pending: string, cut: number): number {
    const { pending: pendingOf } = this.options.mask;
    if (!pendingOf) return pending.length;
    // The complete lines of wrapped base64 at the end (a few: a secret's base64 spans at most
    // its length over 64 columns of them), then the partial line.
    let from = cut;
    for (let lines = 0; lines < 64 && from > 0; lines++) {
      const lineStart = pending.lastIndexOf("\n", from - 2) + 1;
      if (!WRAPPED_BASE64_LINE.test(pending.slice(lineStart, from))) break;
      from = lineStart;
    }
    // Wrapped base64 the end may cut, whatever is before its first line (a label, a JSON
    // string's quote; see wrappedBase64Start): from the start of that line when the line is
    // complete; in the partial line, from the start of the run, unless a secret the line holds
    // ends inside the run (the URL encoding of one ends "%2Bw"): then the whole partial line.
    const wrapped = wrappedBase64Start(pending);
    let wrappedAt = wrapped < cut ? pending.lastIndexOf("\n", wrapped - 1) + 1 : wrapped;
    if (wrapped >= cut && wrapped < pending.length) {
      const line = pending.slice(Math.max(cut, pending.length - MASKED_LINE_MAX));
      if (!this.options.mask(line).endsWith(pending.slice(wrapped))) wrappedAt = cut;
    }
    // With the last complete line too: a secret folded over two lines (PyYAML folds at a
    // space) may end a line with its start; held when that start is long enough not to be a
    // coincidence (FOLDED_PREFIX), so ordinary lines are not kept back.
    const lastLine = from === cut && cut > 0 ? pending.lastIndexOf("\n", cut - 2) + 1 : from;
    let start = pending.length - pendingOf(pending.slice(lastLine));
    if (start < cut && from === cut && cut - 1 - start < FOLDED_PREFIX) start = cut;
    // Inside wrapped base64, from the start of that line: the masker finds wrapped base64 by
    // its lines of 64 or 76 columns.
    if (start < cut) return Math.min(wrappedAt, pending.lastIndexOf("\n", start - 1) + 1);
    // In the partial line, a line of wrapped base64 may end at an escaped \n or a list's
    // separator ("stdout" of a JSON result, a list on one line): from the start of that run of
    // base64, when it is no longer than a line.
    let run = start;
    while (run > cut && start - run <= 76 && isBase64Char(pending.charCodeAt(run - 1)) && !colourEndsAt(pending, run, cut)) run--;
    if (start < pending.length && run < start && start - run <= 76) start = run;
    // A partial line ending in a run of at most 76 base64 characters may be the first line of
    // wrapped base64 cut by the end of a write: sent now, it would leave the rest of that line
    // shorter than 64 or 76 columns, and the block would not be found as wrapped base64. The
    // whole partial line waits, when the run is all of it but an indentation, a list dash, a
    // quote or a colour before it (not a run after other text: holding that from the run could
    // cut a secret the line holds, and holding the line would keep back every word).
    // A colour before the run is not part of it (its m is a base64 character; see LINE_START).
    let first = pending.length;
    while (first > cut && pending.length - first <= 76 && isBase64Char(pending.charCodeAt(first - 1)) && !colourEndsAt(pending, first, cut))
      first--;
    const firstRun = pending.length - first;
    if (firstRun > 0 && firstRun <= 76 && LINE_START.test(pending.slice(cut, first))) start = Math.min(start, cut);
    // Never from inside a colour escape: cut short at the end (a pause inside `ESC[0;32m`
    // before a line of wrapped base64), or where the held text starts (its `32m` may be the
    // start of a secret's base64), the escape's end would go with the next text, its digits and
    // its m glued to the base64 after it: the first line longer than 64 or 76 columns, the
    // block unrecognised (attack 5 on issue 34). The whole escape waits.
    start = Math.min(start, wrappedAt);
    const tail = start - Math.min(start - cut, COLOUR_CUT_TAIL);
    const colourCut = COLOUR_CUT.exec(pending.slice(tail, start));
    return colourCut ? tail + colourCut.index : start;
  }
}

/** How much of a partial line is masked to tell whether a secret ends inside its last run of base64 (see held). */
const MASKED_LINE_MAX = 65_536;

/** The characters of a secret's start at the end of a complete line that hold the line back (see held). */
const FOLDED_PREFIX = 8;

/** A colour escape cut short at the end of a text, and how far back it is looked for (see held). */
// eslint-disable-next-line no-control-regex -- ansible-playbook colours its output: ANSI escapes start with ESC
const COLOUR_CUT = /\x1b(?:\[[0-9;]{0,32})?$/;
const COLOUR_CUT_TAIL = 40;

/** What may come before the first line of wrapped base64 on its line (see held). */
// eslint-disable-next-line no-control-regex -- ansible-playbook colours its output: ANSI escapes start with ESC
const LINE_START = /^(?:\x1b\[[0-9;]*m)*[ \t]*(?:- )?["'[]?$/;

/**
 * The text of each output entry, masked (by index; null for other entries). A stream's pieces
 * that meet at a line end (an event, a runner line or the other stream came between them) are
 * masked as one text: the second line of wrapped base64 printed after an event is masked with
 * the first (attack 4 on issue 34). The masked text is then cut back into the pieces at the
 * same line ends: the masker replaces matches with a mask that holds no line end and leaves the
 * rest as it was, so when the masked text has as many line ends as the pieces, its n-th line end
 * is theirs. When it has fewer (a secret that spans lines, masked whole, took some), the run is
 * cut in two near its middle and each part masked alone: when the two parts masked give the
 * same text, that cut is exact, and each part is placed the same way. A mask spans a cut that
 * does not: the next cuts nearest the middle are tried (SPLIT_TRIES in all, so the masking
 * costs at most that many times the run per halving); when none works, the masked text goes
 * whole in the place of the run's first piece (its lines come before the items that arrived
 * between them; nothing of the secret is left). What is sent is always the run masked as one.
 * A piece that ends inside a line (a partial line sent after its interval) ends a run: it went
 * out without the end that could start a secret (see held), as it always did.
 */
export function maskOutputPieces(entries: readonly Entry[], mask: Masker): (string | null)[] {
  const masked: (string | null)[] = entries.map(() => null);
  const textOf = (i: number) => (entries[i] as { text: string }).text;
  const maskRun = (run: number[]) => place(run, mask(run.map(textOf).join("")));
  /** Places `whole`, the run masked as one text, in the run's pieces. */
  const place = (run: number[], whole: string) => {
    if (run.length === 1) {
      masked[run[0]!] = whole;
      return;
    }
    const breaks = run.map((i) => countLineEnds(textOf(i)));
    if (countLineEnds(whole) !== breaks.reduce((sum, n) => sum + n, 0)) {
      // The cuts (after piece 1, 2, ...) nearest the middle first.
      const middle = run.length >> 1;
      const cuts = Array.from({ length: run.length - 1 }, (_, k) => k + 1)
        .sort((a, b) => Math.abs(a - middle) - Math.abs(b - middle))
        .slice(0, SPLIT_TRIES);
      for (const cut of cuts) {
        const [left, right] = [run.slice(0, cut), run.slice(cut)];
        const [leftMasked, rightMasked] = [left, right].map((part) => mask(part.map(textOf).join(""))) as [string, string];
        if (leftMasked + rightMasked !== whole) continue;
        place(left, leftMasked);
        place(right, rightMasked);
        return;
      }
      run.forEach((i, k) => (masked[i] = k === 0 ? whole : ""));
      return;
    }
    let from = 0;
    run.forEach((i, k) => {
      let to = from;
      if (k === run.length - 1) to = whole.length;
      else for (let n = 0; n < breaks[k]!; n++) to = whole.indexOf("\n", to) + 1;
      masked[i] = whole.slice(from, to);
      from = to;
    });
  };
  for (const stream of ["stdout", "stderr"] as const) {
    let run: number[] = [];
    for (const [i, entry] of entries.entries()) {
      if (entry.kind !== "output" || entry.stream !== stream) continue;
      run.push(i);
      if (!entry.text.endsWith("\n")) {
        maskRun(run);
        run = [];
      }
    }
    if (run.length > 0) maskRun(run);
  }
  return masked;
}

/** Cuts tried per run whose masked text lost line ends (see maskOutputPieces). */
const SPLIT_TRIES = 3;

function countLineEnds(text: string): number {
  let count = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count++;
  return count;
}

/** An event masked string by string, then its labels cut to their length (EVENT_LABEL_MAX). */
export function maskEvent(event: unknown, mask: Masker): unknown {
  const masked = maskJson(event, mask);
  if (masked === null || typeof masked !== "object" || Array.isArray(masked)) return masked;
  const raw = event as Record<string, unknown>;
  const fields = masked as Record<string, unknown>;
  for (const [key, max] of Object.entries(EVENT_LABEL_MAX)) {
    const value = fields[key];
    const original = raw[key];
    if (typeof value !== "string" || typeof original !== "string") continue;
    // A text as long as the plugin's cap may end with the start of a secret, cut there.
    fields[key] = cutMasked(value, max, mask, original.length >= PLUGIN_TEXT_MAX);
  }
  return fields;
}

/**
 * Masked text cut to at most `max` characters. A secret across the cut (or across an earlier
 * cut, `wasCut`) was not masked whole: the end that could be the start of a secret in one of
 * its forms is dropped too (the masker's `pending`), so no recognisable prefix is left.
 */
export function cutMasked(text: string, max: number, mask: Masker, wasCut = false): string {
  if (text.length <= max && !wasCut) return text;
  let cut = text.slice(0, max);
  // Not half of a surrogate pair.
  if (cut.length > 0 && /[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  const held = mask.pending?.(cut) ?? 0;
  return cut.slice(0, cut.length - held);
}

/**
 * Cuts text into pieces of at most maxBytes (UTF-8), each ending at a line end; a single line
 * longer than maxBytes is a piece of its own, whole. Text within the limit is one piece.
 */
export function cutAtLineEnds(text: string, maxBytes: number): string[] {
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text) <= maxBytes) return [text];
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    // The longest window from start that fits: a character is at least one byte, so start with
    // maxBytes characters and shrink in proportion until the bytes fit.
    let end = Math.min(text.length, start + maxBytes);
    for (;;) {
      const bytes = Buffer.byteLength(text.slice(start, end));
      if (bytes <= maxBytes) break;
      end = start + Math.floor(((end - start) * maxBytes) / bytes);
    }
    if (end === text.length) {
      pieces.push(text.slice(start));
      break;
    }
    let cut = text.lastIndexOf("\n", end - 1) + 1;
    if (cut <= start) {
      // No line end in the window: one line longer than the limit goes whole.
      const next = text.indexOf("\n", start);
      cut = next === -1 ? text.length : next + 1;
    }
    pieces.push(text.slice(start, cut));
    start = cut;
  }
  return pieces;
}
