/**
 * Files users upload for a form's file fields (the Upload rows). The content itself is a file
 * in the upload store, by hash (server/forms/uploads.ts); a row names it for one user, form and
 * field, and, once a job launched with it, that job.
 */
import path from "node:path";
import { databaseUrl, getDb } from "./db";
import { databaseFilesDir } from "./database-url";

export interface UploadRow {
  id: string;
  sha256: string;
  name: string;
  size: number;
  contentType: string | null;
  userId: string;
  formName: string;
  field: string;
  jobId: number | null;
  createdAt: Date;
}

/**
 * The upload store: `uploads/` in the app's data folder, beside the SQLite database (`data/`
 * with PostgreSQL, as for encryption.key: several app nodes must share it).
 */
export function uploadStoreDir(): string {
  return path.join(databaseFilesDir(databaseUrl()), "uploads");
}

export async function createUpload(upload: Omit<UploadRow, "jobId" | "createdAt">): Promise<UploadRow> {
  return getDb().upload.create({ data: upload });
}

export async function findUploads(ids: readonly string[]): Promise<UploadRow[]> {
  if (ids.length === 0) return [];
  return getDb().upload.findMany({ where: { id: { in: [...ids] } } });
}

/**
 * The uploads a job launched with now belong to it (the latest job that used them: a relaunch
 * takes them over, so they live as long as the newest job that needs them).
 */
export async function setUploadsJob(ids: readonly string[], jobId: number): Promise<void> {
  if (ids.length === 0) return;
  await getDb().upload.updateMany({ where: { id: { in: [...ids] } }, data: { jobId } });
}

/** Deletes the uploads no job took that were made before `before`; returns their hashes. */
export async function deleteUnusedUploadsBefore(before: Date): Promise<string[]> {
  const db = getDb();
  const rows = await db.upload.findMany({ where: { jobId: null, createdAt: { lt: before } }, select: { id: true, sha256: true } });
  if (rows.length === 0) return [];
  // jobId: null again, so an upload a launch took in the meantime stays.
  await db.upload.deleteMany({ where: { id: { in: rows.map((r) => r.id) }, jobId: null } });
  return [...new Set(rows.map((r) => r.sha256))];
}

/** Deletes the uploads of a job; returns their hashes. */
export async function deleteUploadsOfJob(jobId: number): Promise<string[]> {
  const db = getDb();
  const rows = await db.upload.findMany({ where: { jobId }, select: { sha256: true } });
  if (rows.length === 0) return [];
  await db.upload.deleteMany({ where: { jobId } });
  return [...new Set(rows.map((r) => r.sha256))];
}

/** Which of these hashes an Upload row still names. */
export async function referencedHashes(hashes: readonly string[]): Promise<Set<string>> {
  if (hashes.length === 0) return new Set();
  const rows = await getDb().upload.findMany({ where: { sha256: { in: [...hashes] } }, select: { sha256: true }, distinct: ["sha256"] });
  return new Set(rows.map((r) => r.sha256));
}
