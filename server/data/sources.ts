/**
 * Git sources of forms (server/sources): the rows, the sync lease, and the source's forms.
 * The webhook secret is stored only encrypted (server/sources/sources.ts encrypts it).
 */
import path from "node:path";
import { databaseFilesDir } from "./database-url";
import { databaseUrl, getDb } from "./db";
import { isUniqueViolation } from "./unique";

export interface SourceRow {
  id: string;
  name: string;
  url: string;
  ref: string | null;
  credential: string | null;
  formsPath: string;
  syncIntervalMinutes: number | null;
  webhookSecret: string | null;
  commit: string | null;
  syncedAt: Date | null;
  syncStatus: string | null;
  syncError: string | null;
  syncErrors: unknown;
  createdAt: Date;
  updatedAt: Date;
}

export class SourceExistsError extends Error {}

/**
 * The sources' cache: `sources/` in the app's data folder, beside the SQLite database (`data/`
 * with PostgreSQL, as for uploads: the forms' folders must be readable by every app node).
 */
export function sourceCacheDir(): string {
  return path.join(databaseFilesDir(databaseUrl()), "sources");
}

export async function listSourceRows(): Promise<SourceRow[]> {
  return getDb().source.findMany({ orderBy: { name: "asc" } });
}

export async function findSourceRow(name: string): Promise<SourceRow | null> {
  return getDb().source.findUnique({ where: { name } });
}

export async function insertSource(row: Pick<SourceRow, "id" | "name" | "url" | "ref" | "credential" | "formsPath" | "syncIntervalMinutes" | "webhookSecret">): Promise<SourceRow> {
  try {
    return await getDb().source.create({ data: row });
  } catch (error) {
    if (isUniqueViolation(error)) throw new SourceExistsError(`a source named "${row.name}" exists already`);
    throw error;
  }
}

export async function updateSource(
  name: string,
  data: Partial<Pick<SourceRow, "url" | "ref" | "credential" | "formsPath" | "syncIntervalMinutes" | "webhookSecret">>,
): Promise<SourceRow | null> {
  const result = await getDb().source.updateMany({ where: { name }, data });
  return result.count > 0 ? findSourceRow(name) : null;
}

export async function deleteSourceRow(name: string): Promise<boolean> {
  return (await getDb().source.deleteMany({ where: { name } })).count > 0;
}

/**
 * Takes the source's sync lease: one conditional update, so of several nodes (or a webhook and
 * a click) exactly one syncs a source at a time. A lease older than `staleMs` (its node died
 * mid-sync) may be taken over: updatedAt moves with every write of the row.
 */
export async function takeSyncLease(name: string, staleMs: number): Promise<boolean> {
  const result = await getDb().source.updateMany({
    where: {
      name,
      OR: [{ syncStatus: null }, { syncStatus: { not: "running" } }, { updatedAt: { lt: new Date(Date.now() - staleMs) } }],
    },
    data: { syncStatus: "running" },
  });
  return result.count > 0;
}

/** The end of a sync: the lease is released with its outcome. A failed sync leaves `commit` and the refused forms as they were. */
export async function finishSync(
  name: string,
  outcome: { status: "ok"; commit: string; errors: string[] } | { status: "failed"; error: string },
): Promise<void> {
  await getDb().source.updateMany({
    where: { name },
    data:
      outcome.status === "ok"
        ? { syncStatus: "ok", commit: outcome.commit, syncError: null, syncErrors: outcome.errors, syncedAt: new Date() }
        : // The refused forms of the last good sync stay listed: they still are at their previous version.
          { syncStatus: "failed", syncError: outcome.error, syncedAt: new Date() },
  });
}

/** Sources synced every N minutes whose last sync is older than that (or that never synced). */
export async function listSourcesDue(now: Date): Promise<string[]> {
  const rows = await getDb().source.findMany({
    where: { syncIntervalMinutes: { not: null } },
    select: { name: true, syncIntervalMinutes: true, syncedAt: true },
  });
  return rows.filter((r) => !r.syncedAt || now.getTime() - r.syncedAt.getTime() >= r.syncIntervalMinutes! * 60_000).map((r) => r.name);
}

/** Where forms of these names come from: a source's name, or null for the forms folder. */
export async function findFormOrigins(names: readonly string[]): Promise<Map<string, string | null>> {
  if (names.length === 0) return new Map();
  const rows = await getDb().form.findMany({ where: { name: { in: [...names] } }, select: { name: true, sourceName: true } });
  return new Map(rows.map((r) => [r.name, r.sourceName]));
}

/** The forms imported from a source, with their commit and folder. */
export async function listSourceForms(sourceName: string): Promise<{ name: string; sourceCommit: string | null; sourceDir: string }[]> {
  return getDb().form.findMany({
    where: { sourceName },
    select: { name: true, sourceCommit: true, sourceDir: true },
    orderBy: { name: "asc" },
  });
}

/** Commits of a source that jobs not yet ended may still read files from. */
export async function listCommitsOfUnfinishedJobs(sourceName: string): Promise<string[]> {
  const rows = await getDb().job.findMany({
    where: { sourceName, status: { in: ["approval", "queued", "running"] }, sourceCommit: { not: null } },
    select: { sourceCommit: true },
    distinct: ["sourceCommit"],
  });
  return rows.map((r) => r.sourceCommit!);
}

/**
 * Removes a source's forms no job ran (they have no history to keep); forms with jobs stay, at
 * their last commit. Returns the names removed.
 */
export async function deleteUnusedSourceForms(sourceName: string): Promise<string[]> {
  const rows = await getDb().form.findMany({ where: { sourceName, jobs: { none: {} } }, select: { id: true, name: true } });
  if (rows.length === 0) return [];
  await getDb().form.deleteMany({ where: { id: { in: rows.map((r) => r.id) }, jobs: { none: {} } } });
  return rows.map((r) => r.name);
}
