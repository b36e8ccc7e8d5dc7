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
 * An item never holds more than maxBatchBytes of text, except a single longer line:
 * several megabytes printed at once (a debug of a huge list) are cut at line ends, after masking.
 * Past maxBuffer bytes on one stream, one warning is logged and the rest of that stream is
 * read and dropped: the playbook keeps running, the app's storage is protected, and
 * `truncated` says so (the job's end item carries it: the job is marked outputTruncated).
 */
import { isBase64Char, maskJson, wrappedBase64Start, type Masker } from "../security/mask";
import type { UnnumberedItem } from "../protocol/rte-messages";

type StreamName = "stdout" | "stderr";

/** A line of base64 wrapped by `base64` (76 columns) or openssl (64), as printed raw, in YAML or in stdout_lines (coloured or not). */
// eslint-disable-next-line no-control-regex -- ansible-playbook colours its output: ANSI escapes start with ESC
const WRAPPED_BASE64_LINE = /^(?:\x1b\[[0-9;]*m)*[ "-]*(?:[A-Za-z0-9+/_-]{64}|[A-Za-z0-9+/_-]{76})(?:",)?(?:\x1b\[[0-9;]*m)*\r?\n$/;

/**
 * The event fields that carry a label the playbook templated (a loop item, delegate_to, an
 * included file, an error message) and their length once masked. The callback plugin sends
 * them nearly whole (up to PLUGIN_TEXT_MAX): cut before the masking, a secret across the cut
 * would keep its first characters.
 */
const EVENT_LABEL_MAX: Readonly<Record<string, number>> = { item: 200, delegate: 200, action: 200, message: 200, file: 1000 };
/** The callback plugin's cap (TEXT_MAX in playform_events.py, in code points): a text that long may have been cut there. */
const PLUGIN_TEXT_MAX = 65_536;

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
type Entry = { kind: "output"; stream: StreamName; text: string } | { kind: "events"; events: unknown[] } | { kind: "log"; text: string };

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
      // lines, a multi-line secret): the rest of it is dropped, so that start is dropped too.
      state.pending = state.pending.slice(0, state.pending.length - (this.options.mask.pending?.(state.pending) ?? 0));
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

  /** Side-channel events from the callback plugin: JSON lines. */
  writeEvents(chunk: string): void {
    const text = this.eventsPartial + chunk;
    const lines = text.split("\n");
    this.eventsPartial = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.trim()) continue;
      let event: unknown;
      try {
        event = JSON.parse(line);
      } catch {
        this.log(`ignored a malformed event line from the callback plugin (${line.length} characters)`);
        continue;
      }
      this.syncStreams();
      const last = this.queue.at(-1);
      if (last?.kind === "events") last.events.push(event);
      else this.queue.push({ kind: "events", events: [event] });
    }
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
    this.takePending(last === "stdout" ? "stderr" : "stdout", final, now);
    this.takePending(last, final, now);
    if (this.queue.length === 0) return;
    const entries = this.queue;
    this.queue = [];
    this.queuedChars = 0;
    const ts = now / 1000;
    const { mask, maxBatchBytes } = this.options;
    const items: UnnumberedItem[] = [];
    for (const entry of entries) {
      if (entry.kind === "output") {
        // Masked whole, then cut: the masker sees the whole run of lines (a secret YAML folded
        // over two lines included), and what is cut is what is sent.
        for (const text of cutAtLineEnds(mask(entry.text), maxBatchBytes)) items.push({ kind: "output", stream: entry.stream, text, ts });
      } else if (entry.kind === "events") {
        // Events carry task names, loop items and labels: whatever the playbook templated into
        // them, secrets included. Masked like the text, string by string, before the spool.
        items.push({ kind: "events", events: entry.events.map((event) => maskEvent(event, mask)), ts });
      } else {
        items.push({ kind: "log", text: mask(`${entry.text}\n`), ts });
      }
    }
    this.options.emit(items);
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

  /** At a flush: queues the stream's complete lines, and its partial line when it may go. */
  private takePending(stream: StreamName, final: boolean, now: number): void {
    const state = this.streams[stream];
    if (!state.pending) return;
    const cut = state.pending.lastIndexOf("\n") + 1;
    // A partial line (a prompt, a progress dot) is held back one interval at most.
    const partialIsStale = state.partialSince !== null && now - state.partialSince >= this.options.intervalMs;
    // A stale partial is sent only while it is still the only thing waiting: once a newline came,
    // the text after it is a new partial line that must wait its own turn (it may end in the
    // middle of a secret).
    const takeAll = final || (partialIsStale && cut === 0) || state.pending.length >= this.options.maxBatchBytes * 4;
    // Not the end that could be the start of a secret cut by the end of a write (see held).
    const end = final ? state.pending.length : Math.min(takeAll ? state.pending.length : cut, this.heldOnce(state, cut));
    if (end > 0) this.enqueueOutput(stream, state.pending.slice(0, end));
    state.pending = state.pending.slice(end);
    if (!state.pending) state.heldFor = null;
    // The clock of a held partial line restarts whenever a whole line went out before it.
    state.partialSince = state.pending ? (end > 0 ? now : (state.partialSince ?? now)) : null;
  }

  /**
   * held() for a stream's pending text, remembered with that text: a partial line that waits
   * (the playbook printed it and sleeps) is not masked again at every interval while it has
   * not changed (up to 64 KiB at every flush, on the runner's event loop: attack 4 on issue 34).
   */
  private heldOnce(state: StreamState, cut: number): number {
    if (state.heldFor !== state.pending) {
      state.heldAt = this.held(state.pending, cut);
      state.heldFor = state.pending;
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
    while (run > cut && start - run <= 76 && isBase64Char(pending.charCodeAt(run - 1))) run--;
    if (start < pending.length && run < start && start - run <= 76) start = run;
    // A partial line ending in a run of at most 76 base64 characters may be the first line of
    // wrapped base64 cut by the end of a write: sent now, it would leave the rest of that line
    // shorter than 64 or 76 columns, and the block would not be found as wrapped base64. The
    // whole partial line waits, when the run is all of it but an indentation, a list dash, a
    // quote or a colour before it (not a run after other text: holding that from the run could
    // cut a secret the line holds, and holding the line would keep back every word).
    let first = pending.length;
    while (first > cut && pending.length - first <= 76 && isBase64Char(pending.charCodeAt(first - 1))) first--;
    const firstRun = pending.length - first;
    if (firstRun > 0 && firstRun <= 76 && LINE_START.test(pending.slice(cut, first))) start = Math.min(start, cut);
    return Math.min(start, wrappedAt);
  }
}

/** How much of a partial line is masked to tell whether a secret ends inside its last run of base64 (see held). */
const MASKED_LINE_MAX = 65_536;

/** The characters of a secret's start at the end of a complete line that hold the line back (see held). */
const FOLDED_PREFIX = 8;

/** What may come before the first line of wrapped base64 on its line (see held). */
// eslint-disable-next-line no-control-regex -- ansible-playbook colours its output: ANSI escapes start with ESC
const LINE_START = /^(?:\x1b\[[0-9;]*m)*[ \t]*(?:- )?["'[]?$/;

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
