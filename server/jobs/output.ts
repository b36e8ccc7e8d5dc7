/**
 * A job's output for readers: chunk pages by seq (the original API), windows by line, the raw
 * log streamed, search, and the task index (docs/api.md, "A job's output, by line"). Every
 * function here reads what its answer needs, not the whole output: windows find their chunks
 * by the (jobId, firstLine) index, the log and search walk the chunks in pages.
 */
import {
  findOutputState,
  indexStoredOutput,
  iterateOutput,
  listLineChunks,
  listMarkers,
  listOutput,
  storeJobItems,
  type OutputChunk,
  type StoredItem,
} from "../data/job-output";
import { DomainError } from "../errors";
import { advanceStyle, sgrToStyle, stripAnsiByLine, styleToSgr } from "../protocol/ansi";
import { chunkLines } from "../protocol/output-lines";
import type { JobItem } from "../protocol/rte-messages";
import { outputGone } from "../retention/settings";
import type { JobView } from "../data/jobs";
import { requireJob } from "./access";
import { isFinalStatus } from "./lifecycle";
import { indexOutput } from "./output-index";
import type { StoredOutput } from "../hub/job-updates";
import type { OutputLine, OutputMarker, OutputMarkerKind, OutputSearch, OutputTaskIndex, OutputWindow } from "./output-types";

export const MAX_WINDOW_LINES = 5_000;
export const MAX_SEARCH_MATCHES = 1_000;

/** Stores an RTE's batch exactly once, numbering its output by line (see server/data/job-output.ts). */
export function storeRteItems(jobId: number, items: JobItem[]): Promise<StoredItem[]> {
  return storeJobItems(jobId, items, indexOutput);
}

/**
 * What a batch just stored means for followers: the seq range it filled and its output as
 * chunks. Null when the stored items are not one run of consecutive seqs (a resend with some
 * items already stored): followers then read from the database.
 */
export function storedOutput(stored: readonly StoredItem[]): StoredOutput | null {
  if (stored.length === 0) return null;
  const sorted = [...stored].sort((a, b) => a.seq - b.seq);
  const fromSeq = sorted[0]!.seq;
  if (sorted.some((item, i) => item.seq !== fromSeq + i)) return null;
  const chunks: OutputChunk[] = [];
  for (const item of sorted) {
    if ((item.kind !== "output" && item.kind !== "log") || item.firstLine === undefined) continue;
    chunks.push({
      seq: item.seq,
      stream: item.kind === "log" ? "rte" : item.stream,
      text: item.text,
      firstLine: item.firstLine,
      lineCount: item.lineCount ?? 0,
    });
  }
  return { fromSeq, toSeq: sorted[sorted.length - 1]!.seq, chunks };
}

/**
 * The job, when its output is still there: a job whose output retention removed is a `gone`
 * DomainError (410) saying when (docs/api.md, "Retention").
 */
export async function requireJobOutput(jobId: number): Promise<JobView> {
  const job = await requireJob(jobId);
  if (job.outputPurgedAt) throw outputGone(job.id, job.outputPurgedAt);
  return job;
}

/**
 * Up to `limit` output chunks of a job after sequence number `after`; `done` once the job has
 * ended and this page reached the end of its output.
 */
export async function jobOutputPage(jobId: number, after: number, limit: number) {
  const job = await requireJobOutput(jobId);
  await ensureIndexed(jobId);
  const chunks = await listOutput(job.id, after, limit);
  const done = isFinalStatus(job.status) && chunks.length < limit;
  return { chunks, lastSeq: chunks.at(-1)?.seq ?? after, done };
}

/**
 * A job stored before line addressing is numbered on first use (once; concurrent callers are
 * harmless). Returns the job's line count; a missing job is a not_found DomainError.
 */
export async function ensureIndexed(jobId: number): Promise<number> {
  const state = await findOutputState(jobId);
  if (!state) throw new DomainError("not_found", `no job ${jobId}`);
  if (state.outputIndexed) return state.lines;
  await indexStoredOutput(jobId, indexOutput);
  return (await findOutputState(jobId))?.lines ?? 0;
}

export type WindowRequest = { from: number; count: number } | { tail: number };

/** Lines of a job's output: `count` from line `from`, or the last `tail` lines. */
export async function outputWindow(jobId: number, request: WindowRequest): Promise<OutputWindow> {
  const job = await requireJobOutput(jobId);
  const total = await ensureIndexed(jobId);
  const count = "tail" in request ? request.tail : request.count;
  const from = "tail" in request ? Math.max(1, total - request.tail + 1) : request.from;
  const final = isFinalStatus(job.status);
  if (from > total || count <= 0) return { jobId, from, total, final, ansi: null, lines: [] };
  const last = Math.min(from + count - 1, total);
  const chunks = await listLineChunks(jobId, from, last - from + 1);
  const lines: OutputLine[] = [];
  let ansi: string | null = null;
  for (const [index, chunk] of chunks.entries()) {
    const texts = chunkLines(chunk.text);
    const skip = Math.max(0, from - chunk.firstLine);
    if (index === 0) {
      // The colour at `from`: the chunk's colour at its start, moved through the lines before `from`.
      const style =
        chunk.stream === "rte" || skip === 0
          ? sgrToStyle(chunk.ansi)
          : advanceStyle(sgrToStyle(chunk.ansi), texts.slice(0, skip).join("\n"));
      ansi = styleToSgr(style);
    }
    for (let i = skip; i < texts.length && chunk.firstLine + i <= last; i++) {
      lines.push({ n: chunk.firstLine + i, stream: chunk.stream, text: texts[i]! });
    }
  }
  return { jobId, from, total, final, ansi, lines };
}

/**
 * The whole output as stored, in order, as a byte stream: chunks are read a page at a time
 * and written as they come, so memory stays flat whatever the size. `ansi: false` strips
 * colour and other terminal codes.
 */
export async function outputLog(jobId: number, options: { ansi: boolean }): Promise<ReadableStream<Uint8Array>> {
  await requireJobOutput(jobId);
  await ensureIndexed(jobId);
  const pages = iterateOutput(jobId);
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const page = await pages.next();
        if (page.done) return controller.close();
        let text = "";
        for (const chunk of page.value) text += options.ansi ? chunk.text : stripAnsiByLine(chunk.text);
        controller.enqueue(encoder.encode(text));
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel() {
      await pages.return(undefined);
    },
  });
}

/**
 * The line numbers of the lines containing `q`, in order, at most `limit`. The database picks
 * the chunks whose text contains `q` (so a search reads what matches, not the whole output);
 * each hit is then confirmed on the line's text without colour codes. So a match whose
 * characters a colour code splits is not found; ansible-playbook colours whole lines, so its
 * own output never is split that way.
 */
export async function searchOutput(jobId: number, q: string, options: { limit: number; caseSensitive: boolean }): Promise<OutputSearch> {
  await requireJobOutput(jobId);
  await ensureIndexed(jobId);
  const needle = options.caseSensitive ? q : q.toLowerCase();
  const matches: number[] = [];
  for await (const page of iterateOutput(jobId, { containing: { needle: q, caseSensitive: options.caseSensitive } })) {
    for (const chunk of page) {
      const plain = stripAnsiByLine(chunk.text);
      const haystack = options.caseSensitive ? plain : plain.toLowerCase();
      let at = haystack.indexOf(needle);
      if (at === -1) continue;
      // Line of each hit: count the newlines before it; a line with several hits counts once.
      let line = chunk.firstLine;
      let counted = 0;
      while (at !== -1) {
        for (let nl = haystack.indexOf("\n", counted); nl !== -1 && nl < at; nl = haystack.indexOf("\n", nl + 1)) {
          line++;
          counted = nl + 1;
        }
        if (matches.at(-1) !== line) {
          if (matches.length === options.limit) return { q, matches, truncated: true };
          matches.push(line);
        }
        const nextLine = haystack.indexOf("\n", at);
        if (nextLine === -1) break;
        at = haystack.indexOf(needle, nextLine + 1);
      }
    }
  }
  return { q, matches, truncated: false };
}

/** Where each play, task, handler and the recap start, with the play each belongs to. */
export async function taskIndex(jobId: number): Promise<OutputTaskIndex> {
  await requireJobOutput(jobId);
  await ensureIndexed(jobId);
  let play = "";
  const tasks: OutputMarker[] = (await listMarkers(jobId)).map((marker) => {
    const kind = marker.kind as OutputMarkerKind;
    if (kind === "play") play = marker.name;
    return { line: marker.line, kind, name: marker.name, play };
  });
  return { tasks };
}
