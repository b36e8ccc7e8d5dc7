/**
 * A job's stored output: every numbered item an RTE sent (output, runner lines, events, start,
 * end), stored exactly once, and the output addressed by line (GET /api/jobs/ID/lines, log,
 * search, tasks). What a line is and how chunks are numbered is the domain's
 * (server/jobs/output-index.ts); it is passed in as `index`, so storage never imports it.
 */
import { databaseProvider, getDb } from "./db";
import { Prisma } from "./generated/sqlite/client";
import type { JobItem } from "../protocol/rte-messages";
import type { IndexableChunk, IndexedOutput, OutputCursor } from "../jobs/output-index";

/** The kinds of stored items that hold output lines. */
const OUTPUT_KINDS = ["output", "log"];

/** Numbers chunks by line from a cursor: server/jobs/output-index.ts indexOutput. */
export type OutputIndexer = (start: OutputCursor, chunks: readonly IndexableChunk[]) => IndexedOutput;

export interface OutputChunk {
  seq: number;
  stream: string;
  text: string;
  firstLine: number;
  lineCount: number;
}

/** A stored output chunk with what the line API needs. */
export interface LineChunk {
  seq: number;
  stream: string;
  text: string;
  firstLine: number;
  lineCount: number;
  ansi: string | null;
}

interface ChunkRow {
  seq: number;
  kind: string;
  stream: string | null;
  text: string | null;
  firstLine: number | null;
  lineCount: number | null;
  ansi?: string | null;
}

const chunkSelect = { seq: true, kind: true, stream: true, text: true, firstLine: true, lineCount: true, ansi: true } as const;

function toLineChunk(r: ChunkRow): LineChunk {
  return {
    seq: r.seq,
    stream: r.kind === "log" ? "rte" : (r.stream ?? "stdout"),
    text: r.text ?? "",
    firstLine: r.firstLine ?? 1,
    lineCount: r.lineCount ?? 0,
    ansi: r.ansi ?? null,
  };
}

function toOutputChunk(r: ChunkRow): OutputChunk {
  const { seq, stream, text, firstLine, lineCount } = toLineChunk(r);
  return { seq, stream, text, firstLine, lineCount };
}

/** Up to `limit` output chunks with a seq above `after` (and at most `upTo`, when given), in order. */
export async function listOutput(jobId: number, after: number, limit: number, upTo?: number): Promise<OutputChunk[]> {
  const rows = await getDb().jobChunk.findMany({
    where: { jobId, kind: { in: OUTPUT_KINDS }, seq: upTo === undefined ? { gt: after } : { gt: after, lte: upTo } },
    orderBy: { seq: "asc" },
    take: limit,
    select: chunkSelect,
  });
  return rows.map(toOutputChunk);
}

/**
 * The seq cursor equivalent to "has every line up to `afterLine`": output chunks with a seq
 * above it hold the lines after `afterLine` (the chunk holding both sides is included whole).
 */
export async function seqCursorForLine(jobId: number, afterLine: number): Promise<number> {
  if (afterLine <= 0) return 0;
  const chunk = await getDb().jobChunk.findFirst({
    where: { jobId, firstLine: { lte: afterLine }, lineCount: { gt: 0 } },
    orderBy: { firstLine: "desc" },
    select: { seq: true, firstLine: true, lineCount: true },
  });
  if (!chunk) return 0;
  return chunk.firstLine! + chunk.lineCount! - 1 > afterLine ? chunk.seq - 1 : chunk.seq;
}

/**
 * The chunks holding lines `from`..`from + count - 1`: the one containing `from` (found by the
 * (jobId, firstLine) index) and those starting after it within the window. Reads depend on
 * the window and the chunk size, not on the job's size.
 */
export async function listLineChunks(jobId: number, from: number, count: number): Promise<LineChunk[]> {
  const db = getDb();
  const last = from + count - 1;
  const [first, rest] = await Promise.all([
    db.jobChunk.findFirst({
      where: { jobId, firstLine: { lte: from }, lineCount: { gt: 0 } },
      orderBy: { firstLine: "desc" },
      select: chunkSelect,
    }),
    db.jobChunk.findMany({
      where: { jobId, firstLine: { gt: from, lte: last }, lineCount: { gt: 0 } },
      orderBy: { firstLine: "asc" },
      select: chunkSelect,
    }),
  ]);
  const chunks = first && first.firstLine! + first.lineCount! > from ? [first, ...rest] : rest;
  return chunks.map(toLineChunk);
}

/**
 * Every output chunk of a job in order, `pageSize` at a time: for streaming the log and for
 * searching, never holding the whole output in memory. With `containing`, only the chunks
 * whose raw text contains the needle: the database does the scanning (LIKE), so chunks
 * without it never leave it. Case-insensitive unless `caseSensitive` (SQLite's LIKE folds
 * ASCII only, and is a superset when case matters: callers confirm each hit on the line's text).
 */
export async function* iterateOutput(
  jobId: number,
  options: { pageSize?: number; containing?: { needle: string; caseSensitive: boolean } } = {},
): AsyncGenerator<LineChunk[]> {
  const pageSize = options.pageSize ?? 200;
  const { containing } = options;
  // The SQLite client's types have no `mode`; PostgreSQL's LIKE is case-sensitive without it.
  const text = containing
    ? ((databaseProvider() === "postgresql" && !containing.caseSensitive
        ? { contains: containing.needle, mode: "insensitive" }
        : { contains: containing.needle }) as { contains: string })
    : undefined;
  let after = 0;
  for (;;) {
    const rows = await getDb().jobChunk.findMany({
      where: { jobId, kind: { in: OUTPUT_KINDS }, seq: { gt: after }, ...(text ? { text } : {}) },
      orderBy: { seq: "asc" },
      take: pageSize,
      select: chunkSelect,
    });
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.seq;
    yield rows.map(toLineChunk);
    if (rows.length < pageSize) return;
  }
}

/** A job's plays, tasks, handlers and recap banners by line. */
export async function listMarkers(jobId: number): Promise<{ line: number; kind: string; name: string }[]> {
  return getDb().jobMarker.findMany({ where: { jobId }, orderBy: [{ line: "asc" }, { id: "asc" }], select: { line: true, kind: true, name: true } });
}

/** Where a job's output stands, or null when there is no such job. */
export async function findOutputState(jobId: number): Promise<{ lines: number; lastSeq: number; outputIndexed: boolean } | null> {
  return getDb().job.findUnique({ where: { id: jobId }, select: { lines: true, lastSeq: true, outputIndexed: true } });
}

/** All stdout text of a job in order (for the text recap). */
export async function jobStdout(jobId: number): Promise<string[]> {
  const rows = await getDb().jobChunk.findMany({
    where: { jobId, kind: "output", stream: "stdout" },
    orderBy: { seq: "asc" },
    select: { text: true },
  });
  return rows.map((r) => r.text ?? "");
}

export async function jobEvents(jobId: number): Promise<unknown[]> {
  const rows = await getDb().jobChunk.findMany({
    where: { jobId, kind: "events" },
    orderBy: { seq: "asc" },
    select: { data: true },
  });
  return rows.flatMap((r) => (Array.isArray(r.data) ? (r.data as unknown[]) : []));
}

/**
 * A job's event chunks before seq `beforeSeq` (all: Infinity), newest first, at most `take`:
 * what reads a job's last events without reading them all (the last `stats` event).
 */
export async function eventChunksBefore(jobId: number, beforeSeq: number, take: number): Promise<{ seq: number; events: unknown[] }[]> {
  const rows = await getDb().jobChunk.findMany({
    where: { jobId, kind: "events", ...(Number.isFinite(beforeSeq) ? { seq: { lt: beforeSeq } } : {}) },
    orderBy: { seq: "desc" },
    take,
    select: { seq: true, data: true },
  });
  return rows.map((r) => ({ seq: r.seq, events: Array.isArray(r.data) ? (r.data as unknown[]) : [] }));
}

/**
 * A job's event chunks stored after seq `afterSeq`, in order, each with when it was stored (the
 * app's clock): a running job's progress reads only what is new since its last look.
 */
export async function listEventChunksAfter(jobId: number, afterSeq: number): Promise<{ seq: number; events: unknown[]; storedAt: Date }[]> {
  const rows = await getDb().jobChunk.findMany({
    where: { jobId, kind: "events", seq: { gt: afterSeq } },
    orderBy: { seq: "asc" },
    select: { seq: true, data: true, createdAt: true },
  });
  return rows.map((r) => ({ seq: r.seq, events: Array.isArray(r.data) ? (r.data as unknown[]) : [], storedAt: r.createdAt }));
}

/** A newly stored item, with its line fields when it is output (what a follower is sent). */
export type StoredItem = JobItem & { firstLine?: number; lineCount?: number };

/** Another transaction changed the job's output cursor between our read and our write. */
class CursorMoved extends Error {}

/** The job's earlier output has no line numbers yet (stored before line addressing). */
class NotIndexed extends Error {}

/**
 * Stores a batch of numbered items exactly once and numbers its output by line: items already
 * stored (a resend after a reconnect, or a race with another app node) are skipped. Returns
 * the newly stored items; what their start and end mean for the job's status is the
 * lifecycle's to apply.
 *
 * One transaction of at most five statements whatever the batch size: read the job's cursor,
 * look for already stored seqs (only when some are at or below the stored lastSeq), insert the
 * chunks, insert the markers, move the cursor. The last is conditional on the cursor read: if
 * another node stored items of the same job in between, the transaction is rolled back and
 * retried, so line numbers never overlap. A job whose earlier output predates line numbers
 * (it ran across the upgrade) is numbered first.
 */
export async function storeJobItems(jobId: number, items: JobItem[], index: OutputIndexer): Promise<StoredItem[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await storeOnce(jobId, items, index);
    } catch (error) {
      if (error instanceof NotIndexed && attempt < 5) await indexStoredOutput(jobId, index);
      else if (!(error instanceof CursorMoved) || attempt >= 5) throw error;
    }
  }
}

async function storeOnce(jobId: number, items: JobItem[], index: OutputIndexer): Promise<StoredItem[]> {
  return getDb().$transaction(async (tx) => {
    const job = await tx.job.findUnique({ where: { id: jobId }, select: { lines: true, outputAnsi: true, outputIndexed: true, lastSeq: true } });
    if (!job) return [];
    if (!job.outputIndexed) throw new NotIndexed();
    const maybeStored = items.filter((i) => i.seq <= job.lastSeq).map((i) => i.seq);
    const have = new Set<number>();
    if (maybeStored.length > 0) {
      const existing = await tx.jobChunk.findMany({ where: { jobId, seq: { in: maybeStored } }, select: { seq: true } });
      for (const e of existing) have.add(e.seq);
    }
    const fresh: JobItem[] = [];
    for (const item of [...items].sort((a, b) => a.seq - b.seq)) {
      if (have.has(item.seq)) continue;
      have.add(item.seq);
      fresh.push(item);
    }
    if (fresh.length === 0) return [];
    const indexed = index({ lines: job.lines, ansi: job.outputAnsi }, fresh.map(indexable));
    await tx.jobChunk.createMany({ data: fresh.map((item) => ({ ...chunkData(jobId, item), ...indexed.lines.get(item.seq) })) });
    if (indexed.markers.length > 0) await tx.jobMarker.createMany({ data: indexed.markers.map((m) => ({ jobId, ...m })) });
    const maxSeq = Math.max(job.lastSeq, ...fresh.map((i) => i.seq));
    const moved = await tx.job.updateMany({
      where: { id: jobId, lines: job.lines, lastSeq: job.lastSeq },
      // New items make a cached recap stale (see jobs/recap-cache.ts), and the hosts written from
      // it (jobs/hosts.ts): both cleared in the same write.
      data: { lines: indexed.end.lines, outputAnsi: indexed.end.ansi, lastSeq: maxSeq, recap: Prisma.DbNull, recapSource: null, hostsRecorded: false },
    });
    if (moved.count === 0) throw new CursorMoved();
    return fresh.map((item) => {
      const lines = indexed.lines.get(item.seq);
      return lines ? { ...item, firstLine: lines.firstLine, lineCount: lines.lineCount } : item;
    });
  });
}

function indexable(item: JobItem): IndexableChunk {
  switch (item.kind) {
    case "output":
      return { seq: item.seq, kind: item.kind, stream: item.stream, text: item.text };
    case "log":
      return { seq: item.seq, kind: item.kind, text: item.text };
    default:
      return { seq: item.seq, kind: item.kind };
  }
}

function chunkData(jobId: number, item: JobItem) {
  const base = { jobId, seq: item.seq, kind: item.kind, createdAt: new Date(item.ts * 1000) };
  switch (item.kind) {
    case "output":
      return { ...base, stream: item.stream, text: item.text };
    case "log":
      return { ...base, text: item.text };
    case "events":
      return { ...base, data: item.events as object[] };
    case "start":
      return { ...base, data: { pid: item.pid ?? null } };
    case "end":
      return { ...base, data: { status: item.status, exitCode: item.exitCode, reason: item.reason } };
  }
}

/**
 * Numbers the output of a job stored before line addressing existed (its chunks have no line
 * numbers, it has no markers), once: in one transaction, in seq order, like storeJobItems
 * would have. A job already numbered is left alone, so callers may race.
 */
export async function indexStoredOutput(jobId: number, index: OutputIndexer): Promise<void> {
  await getDb().$transaction(async (tx) => {
    const job = await tx.job.findUnique({ where: { id: jobId }, select: { outputIndexed: true } });
    if (!job || job.outputIndexed) return;
    const rows = await tx.jobChunk.findMany({
      where: { jobId, kind: { in: OUTPUT_KINDS } },
      orderBy: { seq: "asc" },
      select: { seq: true, kind: true, stream: true, text: true },
    });
    const indexed = index({ lines: 0, ansi: null }, rows);
    for (const [seq, lines] of indexed.lines) await tx.jobChunk.updateMany({ where: { jobId, seq }, data: lines });
    await tx.jobMarker.deleteMany({ where: { jobId } });
    if (indexed.markers.length > 0) await tx.jobMarker.createMany({ data: indexed.markers.map((m) => ({ jobId, ...m })) });
    await tx.job.updateMany({
      where: { id: jobId, outputIndexed: false },
      data: { lines: indexed.end.lines, outputAnsi: indexed.end.ansi, outputIndexed: true },
    });
  });
}
