import type { OutputChunk, OutputLine } from "@/components/api/types";
import { advanceStyle, sgrToStyle } from "@/server/protocol/ansi";
import { chunkLines, countChunkLines } from "@/server/protocol/output-lines";
import { PLAIN, type AnsiStyle } from "./ansi";

/**
 * The lines of one job the page holds, by number, in fixed pages (page p holds lines
 * p·size+1 … (p+1)·size). Pure: no I/O, no timers; JobLines (./job-lines.ts) decides what
 * to read and what to drop, this only stores.
 *
 * Lines come from two places: windows read over HTTP (`GET /api/jobs/ID/lines`, which say
 * the colour state at their first line) and live chunks (which start a new line each and
 * say where: `firstLine`, split by the rule of server/protocol/output-lines.ts). Both may
 * overlap and arrive in any order: a line already held is kept (the text of a line never
 * changes), so duplicates cost nothing.
 */

/** One line as the pane renders it. Immutable: a change makes a new object, so rows can be memoised on it. */
export interface CachedLine {
  readonly n: number;
  readonly stream: string;
  readonly text: string;
  /** The colour state in force at the start of the line (PLAIN when not known). */
  readonly start: AnsiStyle;
  /** `start` is known: from the server's `ansi`, or carried from a known line before it. */
  readonly startKnown: boolean;
  /** The colour state at its end: the next line's start. */
  readonly end: AnsiStyle;
}

interface Page {
  readonly lines: (CachedLine | undefined)[];
  held: number;
}

/** Styles are few (16 colours × bold): one object each, so lines share them and compare by identity. */
const styles = new Map<string, AnsiStyle>([["null|false", PLAIN]]);
function intern(style: AnsiStyle): AnsiStyle {
  const key = `${style.fg}|${style.bold}`;
  let known = styles.get(key);
  if (!known) {
    known = { fg: style.fg, bold: style.bold };
    styles.set(key, known);
  }
  return known;
}

/** The colour state an SGR sequence such as `"\u001b[0;32m"` sets (null: plain). */
export function styleFromSgr(ansi: string | null): AnsiStyle {
  return ansi ? intern(sgrToStyle(ansi)) : PLAIN;
}

function endStyle(text: string, start: AnsiStyle): AnsiStyle {
  // Most lines hold no escape at all: nothing to parse.
  return text.includes("\x1b") ? intern(advanceStyle(start, text)) : start;
}

function makeLine(n: number, stream: string, text: string, start: AnsiStyle, startKnown: boolean): CachedLine {
  return { n, stream, text, start, startKnown, end: endStyle(text, start) };
}

export class LineCache {
  readonly pageSize: number;
  private readonly pages = new Map<number, Page>();

  constructor(pageSize = 500) {
    if (!Number.isInteger(pageSize) || pageSize < 1) throw new Error("pageSize must be a positive integer");
    this.pageSize = pageSize;
  }

  /** The page holding line n (1-based). */
  pageOf(n: number): number {
    return Math.floor((n - 1) / this.pageSize);
  }

  /** First and last line of page p. */
  pageRange(p: number): [number, number] {
    return [p * this.pageSize + 1, (p + 1) * this.pageSize];
  }

  get pageCount(): number {
    return this.pages.size;
  }

  /** The numbers of the pages held, ascending. */
  heldPages(): number[] {
    return [...this.pages.keys()].sort((a, b) => a - b);
  }

  hasPage(p: number): boolean {
    return this.pages.has(p);
  }

  /** How many lines are held, over all pages. */
  get size(): number {
    let count = 0;
    for (const page of this.pages.values()) count += page.held;
    return count;
  }

  get(n: number): CachedLine | undefined {
    if (!(n >= 1)) return undefined;
    const page = this.pages.get(this.pageOf(n));
    return page?.lines[(n - 1) % this.pageSize];
  }

  /** Whether any line in from..to (inclusive) is missing. */
  missing(from: number, to: number): boolean {
    for (let n = Math.max(1, from); n <= to; n++) {
      const page = this.pages.get(this.pageOf(n));
      if (!page) return true;
      // A full page has every line: skip it at once.
      if (page.held === this.pageSize) {
        n = this.pageRange(this.pageOf(n))[1];
        continue;
      }
      if (page.lines[(n - 1) % this.pageSize] === undefined) return true;
    }
    return false;
  }

  private set(line: CachedLine): void {
    const p = this.pageOf(line.n);
    let page = this.pages.get(p);
    if (!page) {
      page = { lines: new Array<CachedLine | undefined>(this.pageSize), held: 0 };
      this.pages.set(p, page);
    }
    const index = (line.n - 1) % this.pageSize;
    if (page.lines[index] === undefined) page.held++;
    page.lines[index] = line;
  }

  /**
   * Stores consecutive lines starting at `first`, the first one starting in colour `start`
   * (`startKnown`: that colour is certain). Lines already held stay; a held line whose colour
   * was a guess is redone when this run knows better, and so are the guessed lines after the
   * run, up to the first line that is missing or already right. `keep(p)` says whether a page
   * not held yet may be created. Returns whether anything changed.
   */
  private putRun(
    first: number,
    texts: readonly { stream: string; text: string }[],
    start: AnsiStyle,
    startKnown: boolean,
    keep: (page: number) => boolean,
  ): boolean {
    let changed = false;
    let carry = start;
    let known = startKnown;
    for (let i = 0; i < texts.length; i++) {
      const n = first + i;
      const held = this.get(n);
      if (held && (held.startKnown || !known || held.start === carry)) {
        carry = held.end;
        known = held.startKnown;
        continue;
      }
      if (!held && !this.pages.has(this.pageOf(n)) && !keep(this.pageOf(n))) {
        // Dropped (its page is far from what is shown); what follows it has an unknown start.
        known = false;
        carry = PLAIN;
        continue;
      }
      const { stream, text } = held ?? texts[i]!;
      const line = makeLine(n, stream, text, carry, known);
      this.set(line);
      changed = true;
      carry = line.end;
    }
    // Carry a known colour on into the guessed lines after the run.
    if (known) {
      for (let n = first + texts.length; ; n++) {
        const next = this.get(n);
        if (!next || next.startKnown) break;
        const line = makeLine(n, next.stream, next.text, carry, true);
        this.set(line);
        changed = true;
        carry = line.end;
      }
    }
    return changed;
  }

  /** A window read over HTTP: `ansi` is the colour state at its first line. */
  putWindow(from: number, ansi: string | null, lines: readonly OutputLine[], keep: (page: number) => boolean = () => true): boolean {
    if (lines.length === 0) return false;
    // The server numbers its lines: trust those numbers, but they must run on from `from`.
    const first = lines[0]!.n;
    const consecutive = lines.every((line, i) => line.n === first + i);
    if (!consecutive || first < 1) return false;
    const start = first === from ? styleFromSgr(ansi) : PLAIN;
    return this.putRun(first, lines, start, first === from || first === 1, keep);
  }

  /** A live chunk: its lines are `firstLine`, `firstLine + 1`, … */
  putChunk(chunk: OutputChunk, keep: (page: number) => boolean = () => true): boolean {
    if (!(chunk.firstLine >= 1)) return false;
    // A chunk none of whose lines would be kept is not even split (a burst of live output far
    // from the view costs no strings).
    const count = countChunkLines(chunk.text);
    if (count === 0) return false;
    let wanted = false;
    for (let p = this.pageOf(chunk.firstLine); p <= this.pageOf(chunk.firstLine + count - 1) && !wanted; p++) {
      wanted = this.pages.has(p) || keep(p);
    }
    if (!wanted) return false;
    const texts = chunkLines(chunk.text);
    const before = this.get(chunk.firstLine - 1);
    const start = chunk.firstLine === 1 ? PLAIN : (before?.end ?? PLAIN);
    const startKnown = chunk.firstLine === 1 || (before?.startKnown ?? false);
    return this.putRun(
      chunk.firstLine,
      texts.map((text) => ({ stream: chunk.stream, text })),
      start,
      startKnown,
      keep,
    );
  }

  /**
   * Drops pages until at most `max` are held: never those `keep` names, the others farthest
   * from line `center` first. Returns the pages dropped.
   */
  evict(max: number, center: number, keep: (page: number) => boolean): number[] {
    if (this.pages.size <= max) return [];
    const centerPage = this.pageOf(Math.max(1, center));
    const candidates = [...this.pages.keys()].filter((p) => !keep(p)).sort((a, b) => Math.abs(b - centerPage) - Math.abs(a - centerPage));
    const dropped: number[] = [];
    for (const p of candidates) {
      if (this.pages.size <= max) break;
      this.pages.delete(p);
      dropped.push(p);
    }
    return dropped;
  }

  clear(): void {
    this.pages.clear();
  }
}
