/**
 * The contents of forms-folder files that jobs were launched with, by sha256 (the JobFile
 * table): see server/jobs/job-files.ts for why and when they are kept.
 */
import { getDb } from "./db";
import { isUniqueViolation } from "./unique";

/** Which of these contents are stored already. */
export async function findStoredJobFiles(hashes: readonly string[]): Promise<Set<string>> {
  if (hashes.length === 0) return new Set();
  const rows = await getDb().jobFile.findMany({ where: { sha256: { in: [...hashes] } }, select: { sha256: true } });
  return new Set(rows.map((r) => r.sha256));
}

/**
 * Stores a content once: two launches storing the same file at once both succeed, since the
 * content behind a hash is the same whoever writes it. (Prisma's upsert is no help here: two at
 * once can both find no row and both insert, and the second insert fails: seen on PostgreSQL.)
 */
export async function storeJobFile(sha256: string, content: Buffer): Promise<void> {
  try {
    await getDb().jobFile.create({ data: { sha256, size: content.length, content: new Uint8Array(content) } });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
}

export async function readJobFile(sha256: string): Promise<Buffer | null> {
  const row = await getDb().jobFile.findUnique({ where: { sha256 }, select: { content: true } });
  return row ? Buffer.from(row.content) : null;
}

/** The manifests of the jobs that may still run (waiting for approval, queued, running). */
export async function listUnfinishedJobManifests(): Promise<unknown[]> {
  const rows = await getDb().job.findMany({
    where: { status: { in: ["approval", "queued", "running"] } },
    select: { manifest: true },
  });
  return rows.map((r) => r.manifest);
}

/** Deletes the stored contents stored before `before` that `keep` does not name; returns how many. */
export async function deleteJobFilesExcept(keep: ReadonlySet<string>, before: Date): Promise<number> {
  const db = getDb();
  const old = await db.jobFile.findMany({ where: { createdAt: { lt: before } }, select: { sha256: true } });
  const unused = old.map((r) => r.sha256).filter((hash) => !keep.has(hash));
  let deleted = 0;
  // In slices: an IN list of thousands of parameters is too long for SQLite.
  for (let i = 0; i < unused.length; i += 500) {
    deleted += (await db.jobFile.deleteMany({ where: { sha256: { in: unused.slice(i, i + 500) }, createdAt: { lt: before } } })).count;
  }
  return deleted;
}
