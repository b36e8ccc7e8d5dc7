/**
 * The queries of retention (server/retention): which finished jobs' output goes, deleting it
 * in short batches, deleting old audit events, and the lock that lets one app node clean at a
 * time. Every delete here is bounded by a batch size the caller passes: on SQLite a write
 * blocks every other writer, so no statement holds the database for long.
 */
import Database from "better-sqlite3";
import { sqliteFilePath } from "./database-url";
import { ADVISORY_LOCKS, withAdvisoryLock } from "./advisory-lock";
import { databaseProvider, databaseUrl, getDb } from "./db";
import type { Prisma } from "./generated/sqlite/client";
import type { JobStatus } from "./jobs";

/** Which jobs lose their output: finished before `finishedBefore`, or beyond the newest `keepPerForm` of their form. */
export interface PurgeRule {
  /** Final statuses only: a job that may still change is never touched. */
  statuses: readonly JobStatus[];
  finishedBefore?: Date;
  keepPerForm?: number;
}

/**
 * The rule as one condition: a final job not purged yet, finished before the cut-off OR
 * older than the newest `keepPerForm` final jobs of its form (one threshold id per form, found
 * by walking the form's index newest first). Null when the rule selects nothing.
 */
export async function purgeWhere(rule: PurgeRule): Promise<Prisma.JobWhereInput | null> {
  const db = getDb();
  const statuses = [...rule.statuses];
  const either: Prisma.JobWhereInput[] = [];
  if (rule.finishedBefore) {
    // A job rejected while waiting for approval may have no finishedAt: its creation counts.
    either.push({ finishedAt: { lt: rule.finishedBefore } }, { finishedAt: null, createdAt: { lt: rule.finishedBefore } });
  }
  if (rule.keepPerForm !== undefined) {
    const forms = await db.job.groupBy({ by: ["formName"] });
    for (const { formName } of forms) {
      const [newestGoing] = await db.job.findMany({
        where: { formName, status: { in: statuses } },
        orderBy: { id: "desc" },
        skip: rule.keepPerForm,
        take: 1,
        select: { id: true },
      });
      if (newestGoing) either.push({ formName, id: { lte: newestGoing.id } });
    }
  }
  if (either.length === 0) return null;
  return { status: { in: statuses }, outputPurgedAt: null, OR: either };
}

/** The oldest `limit` jobs the condition selects: their ids, status and whether their recap is cached. */
export async function listJobsToPurge(where: Prisma.JobWhereInput, limit: number): Promise<{ id: number; status: JobStatus }[]> {
  return getDb().job.findMany({ where, orderBy: { id: "asc" }, take: limit, select: { id: true, status: true } });
}

export async function countJobsToPurge(where: Prisma.JobWhereInput | null): Promise<number> {
  return where ? getDb().job.count({ where }) : 0;
}

/**
 * Deletes the output of `jobIds` (chunks, then markers), at most `rowBatch` rows per statement,
 * pausing `pauseMs` between statements; then marks the jobs purged (only those still final, so
 * a job is never marked while it could change). Returns the rows deleted. A crash half-way
 * leaves the jobs unmarked: the next run deletes the rest.
 */
export async function purgeJobOutput(
  jobIds: readonly number[],
  options: { rowBatch: number; pause: () => Promise<void>; statuses: readonly JobStatus[]; at: Date; onStatement?: (rows: number) => void },
): Promise<{ chunks: number; markers: number; jobs: number }> {
  const db = getDb();
  const ids = [...jobIds];
  let chunks = 0;
  let markers = 0;
  for (;;) {
    const batch = await db.jobChunk.findMany({ where: { jobId: { in: ids } }, take: options.rowBatch, select: { id: true } });
    if (batch.length === 0) break;
    const { count } = await db.jobChunk.deleteMany({ where: { id: { in: batch.map((row) => row.id) } } });
    options.onStatement?.(count);
    chunks += count;
    await options.pause();
  }
  for (;;) {
    const batch = await db.jobMarker.findMany({ where: { jobId: { in: ids } }, take: options.rowBatch, select: { id: true } });
    if (batch.length === 0) break;
    const { count } = await db.jobMarker.deleteMany({ where: { id: { in: batch.map((row) => row.id) } } });
    options.onStatement?.(count);
    markers += count;
    await options.pause();
  }
  const { count: jobs } = await db.job.updateMany({
    where: { id: { in: ids }, status: { in: [...options.statuses] }, outputPurgedAt: null },
    data: { outputPurgedAt: options.at },
  });
  return { chunks, markers, jobs };
}

/** When the job's output was removed by retention; null while it is kept (or no such job). */
export async function findOutputPurgedAt(jobId: number): Promise<Date | null> {
  const row = await getDb().job.findUnique({ where: { id: jobId }, select: { outputPurgedAt: true } });
  return row?.outputPurgedAt ?? null;
}

export async function countAuditEventsBefore(before: Date): Promise<number> {
  return getDb().auditEvent.count({ where: { at: { lt: before } } });
}

/** Deletes audit events older than `before`, oldest first, `batch` rows per statement. */
export async function deleteAuditEventsBefore(
  before: Date,
  options: { batch: number; pause: () => Promise<void>; onStatement?: (rows: number) => void },
): Promise<number> {
  const db = getDb();
  let deleted = 0;
  for (;;) {
    const rows = await db.auditEvent.findMany({ where: { at: { lt: before } }, orderBy: { id: "asc" }, take: options.batch, select: { id: true } });
    if (rows.length === 0) break;
    const { count } = await db.auditEvent.deleteMany({ where: { id: { in: rows.map((row) => row.id) } } });
    options.onStatement?.(count);
    deleted += count;
    await options.pause();
  }
  return deleted;
}

/** The details of the newest audit event of `action` (retention's last run), and when. */
export async function latestAuditEventOf(action: string): Promise<{ at: Date; actor: string | null; details: string | null } | null> {
  return getDb().auditEvent.findFirst({ where: { action }, orderBy: { id: "desc" }, select: { at: true, actor: true, details: true } });
}

/**
 * SQLite only: gives the file's free pages back when the database was created with
 * `auto_vacuum = INCREMENTAL` (docs/operations.md, "Retention"); otherwise SQLite reuses them for new rows
 * and the file keeps its size. Returns the auto_vacuum mode (0 none, 1 full, 2 incremental).
 */
export async function sqliteReleaseFreePages(): Promise<number | null> {
  if (databaseProvider() !== "sqlite") return null;
  const file = sqliteFilePath(databaseUrl());
  if (file === ":memory:") return null;
  // A connection of its own: the pragma frees one page per step, and only exec() steps it to
  // the end (the adapter's raw queries step once).
  const db = new Database(file, { timeout: 15_000 });
  try {
    const mode = Number(db.pragma("auto_vacuum", { simple: true }));
    if (mode === 2) db.exec("PRAGMA incremental_vacuum");
    return mode;
  } finally {
    db.close();
  }
}

/** Runs `work` unless another app node runs retention (server/data/advisory-lock.ts); null when the lock was held. */
export function withRetentionLock<T>(work: () => Promise<T>): Promise<T | null> {
  return withAdvisoryLock(ADVISORY_LOCKS.retention, work);
}
