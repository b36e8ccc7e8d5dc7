/**
 * Turns a playbook's raw streams into numbered batches: every 0.5 s, or as soon as 64 KB are
 * waiting, whichever comes first.
 *
 * Only whole lines are emitted (a partial line waits for its end, up to one more interval), so
 * a secret is never split across two batches where the masker could not see it whole.
 * Past maxBuffer bytes on one stream, one warning is logged and the rest of that stream is
 * read and dropped: the playbook keeps running, the app's storage is protected.
 */
import { maskJson, type Masker } from "../security/mask";
import type { UnnumberedItem } from "../protocol/rte-messages";

type StreamName = "stdout" | "stderr";

interface StreamState {
  pending: string;
  partialSince: number | null;
  bytes: number;
  overflowed: boolean;
}

export interface BatcherOptions {
  intervalMs: number;
  maxBatchBytes: number;
  maxBuffer: number;
  mask: Masker;
  emit: (items: UnnumberedItem[]) => void;
}

export class OutputBatcher {
  private readonly streams: Record<StreamName, StreamState> = {
    stdout: { pending: "", partialSince: null, bytes: 0, overflowed: false },
    stderr: { pending: "", partialSince: null, bytes: 0, overflowed: false },
  };
  private events: unknown[] = [];
  private eventsPartial = "";
  private readonly logs: string[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: BatcherOptions) {}

  start(): void {
    this.timer = setInterval(() => this.flush(false), this.options.intervalMs);
    this.timer.unref();
  }

  write(stream: StreamName, chunk: string): void {
    const state = this.streams[stream];
    if (state.overflowed) return;
    state.bytes += Buffer.byteLength(chunk);
    if (state.bytes > this.options.maxBuffer) {
      state.overflowed = true;
      this.logs.push(
        `${stream} exceeded ${this.options.maxBuffer} bytes (PROCESS_MAX_BUFFER): the rest of ${stream} is not stored; the playbook continues`,
      );
      return;
    }
    state.pending += chunk;
    if (state.pending.length >= this.options.maxBatchBytes) this.flush(false);
  }

  /** Side-channel events from the callback plugin: JSON lines. */
  writeEvents(chunk: string): void {
    const text = this.eventsPartial + chunk;
    const lines = text.split("\n");
    this.eventsPartial = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.trim()) continue;
      try {
        this.events.push(JSON.parse(line));
      } catch {
        this.logs.push(`ignored a malformed event line from the callback plugin (${line.length} characters)`);
      }
    }
  }

  log(text: string): void {
    this.logs.push(text);
  }

  /** Emits what is waiting. `final` also emits partial lines (the process has ended). */
  flush(final: boolean): void {
    const items: UnnumberedItem[] = [];
    const ts = Date.now() / 1000;
    for (const stream of ["stdout", "stderr"] as const) {
      const text = this.takeLines(this.streams[stream], final);
      if (text) items.push({ kind: "output", stream, text: this.options.mask(text), ts });
    }
    if (final && this.eventsPartial.trim()) this.writeEvents("\n");
    if (this.events.length > 0) {
      // Events carry task names, loop items and labels: whatever the playbook templated into
      // them, secrets included. Masked like the text, string by string, before the spool.
      items.push({ kind: "events", events: this.events.map((event) => maskJson(event, this.options.mask)), ts });
      this.events = [];
    }
    for (const text of this.logs.splice(0)) items.push({ kind: "log", text: this.options.mask(`${text}\n`), ts });
    if (items.length > 0) this.options.emit(items);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.flush(true);
  }

  private takeLines(state: StreamState, final: boolean): string {
    if (!state.pending) return "";
    const cut = state.pending.lastIndexOf("\n") + 1;
    const now = Date.now();
    // A partial line (a prompt, a progress dot) is held back one interval at most.
    const partialIsStale = state.partialSince !== null && now - state.partialSince >= this.options.intervalMs;
    // A stale partial is sent only while it is still the only thing waiting: once a newline came,
    // the text after it is a new partial line that must wait its own turn (it may end in the
    // middle of a secret).
    const takeAll = final || (partialIsStale && cut === 0) || state.pending.length >= this.options.maxBatchBytes * 4;
    const end = takeAll ? state.pending.length : cut;
    const text = state.pending.slice(0, end);
    state.pending = state.pending.slice(end);
    // The clock of a held partial line restarts whenever a whole line went out before it.
    state.partialSince = state.pending ? (end > 0 ? now : (state.partialSince ?? now)) : null;
    return text;
  }
}
