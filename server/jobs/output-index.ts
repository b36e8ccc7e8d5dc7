/**
 * Numbers a job's output by line as it is stored: each output chunk gets its first line
 * number, its line count and the colour state at its start, and the banners of plays, tasks,
 * handlers and the PLAY RECAP become markers (the task index). Pure: the data layer calls it
 * inside the transaction that stores the chunks (server/data/job-output.ts), with the job's
 * line cursor as stored, so numbering follows storage order, which is seq order.
 *
 * The line rule is server/protocol/output-lines.ts. Colour carries over from one output chunk
 * to the next, as on the terminal the playbook wrote to; the runner's own lines (kind `log`)
 * are shown plain and leave the colour as it was (a runner chunk's `ansi` is the playbook's
 * colour state around it, for the lines after it).
 */
import { advanceStyle, sgrToStyle, stripAnsi, styleToSgr } from "../protocol/ansi";
import { countChunkLines } from "../protocol/output-lines";
import type { OutputMarkerKind } from "./output-types";

/** Where a job's output stands: lines stored so far and the colour state after them. */
export interface OutputCursor {
  lines: number;
  ansi: string | null;
}

export interface IndexableChunk {
  seq: number;
  kind: string;
  stream?: string | null;
  text?: string | null;
}

export interface ChunkLines {
  firstLine: number;
  lineCount: number;
  /** The playbook's colour state at the chunk's first line; null when plain. */
  ansi: string | null;
}

export interface FoundMarker {
  line: number;
  kind: OutputMarkerKind;
  name: string;
}

export interface IndexedOutput {
  /** Line fields by seq, for the output and runner chunks among the input. */
  lines: Map<number, ChunkLines>;
  markers: FoundMarker[];
  end: OutputCursor;
}

/** Whether a stored chunk of this kind is output, i.e. holds lines. */
export function isOutputKind(kind: string): boolean {
  return kind === "output" || kind === "log";
}

/**
 * Indexes `chunks` (any kinds, in seq order; those that are not output are passed over) from
 * `start`. Cost: one pass over each chunk's text, plus a scan of its banner lines.
 */
export function indexOutput(start: OutputCursor, chunks: readonly IndexableChunk[]): IndexedOutput {
  const lines = new Map<number, ChunkLines>();
  const markers: FoundMarker[] = [];
  let next = start.lines + 1;
  let style = sgrToStyle(start.ansi);
  for (const chunk of chunks) {
    if (!isOutputKind(chunk.kind)) continue;
    const text = chunk.text ?? "";
    const lineCount = countChunkLines(text);
    const isRunner = chunk.kind === "log";
    lines.set(chunk.seq, { firstLine: next, lineCount, ansi: styleToSgr(style) });
    if (!isRunner) {
      if (chunk.stream !== "stderr") findBanners(text, next, markers);
      style = advanceStyle(style, text);
    }
    next += lineCount;
  }
  return { lines, markers, end: { lines: next - 1, ansi: styleToSgr(style) } };
}

/*
 * ansible-playbook's banners (the default, yaml, debug and minimal-ish callbacks): a keyword,
 * a bracketed name, then a rule of asterisks filling the terminal width:
 *   PLAY [web servers] *****      TASK [common : install packages] *****
 *   RUNNING HANDLER [restart nginx] *****      PLAY RECAP *****
 * Colour codes may wrap the line (ANSIBLE_FORCE_COLOR); they are stripped before matching.
 */
const BANNER = /^(PLAY RECAP|PLAY|TASK|RUNNING HANDLER) (?:\[(.*)\] )?\*{3,}\s*$/;
const BANNER_START = /^(?:\x1b\[[0-9;]*m)*(?:PLAY|TASK|RUNNING HANDLER)/gm; // eslint-disable-line no-control-regex

const KIND: Record<string, OutputMarkerKind> = { PLAY: "play", TASK: "task", "RUNNING HANDLER": "handler", "PLAY RECAP": "recap" };

function findBanners(text: string, firstLine: number, into: FoundMarker[]): void {
  let line = firstLine;
  let counted = 0;
  BANNER_START.lastIndex = 0;
  for (let match = BANNER_START.exec(text); match !== null; match = BANNER_START.exec(text)) {
    for (let at = text.indexOf("\n", counted); at !== -1 && at < match.index; at = text.indexOf("\n", at + 1)) line++;
    counted = match.index;
    let end = text.indexOf("\n", match.index);
    if (end === -1) end = text.length;
    const banner = BANNER.exec(stripAnsi(text.slice(match.index, end)));
    if (!banner) continue;
    const kind = KIND[banner[1]!]!;
    // The recap has no bracketed name; a play, task or handler without one is not a banner.
    if (kind !== "recap" && banner[2] === undefined) continue;
    into.push({ line, kind, name: kind === "recap" ? "PLAY RECAP" : banner[2]! });
  }
}
