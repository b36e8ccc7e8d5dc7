/**
 * The files a job was launched with stay what it runs until it ends.
 *
 * A job lists its files by content hash (its manifest). A Git source's job reads them from the
 * checkout of its commit, which never changes. The forms folder (PLAYFORM_FORMS_DIR) is edited
 * in place, so a job waiting for approval or for a runner would find other files there: the
 * launch keeps a copy of each content it names that is not stored yet (JobFile, shared by every
 * job with the same content), and a runner asking for a file whose copy in the folder changed
 * gets the kept one. A sweep deletes the copies no job that may still run names.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { deleteJobFilesExcept, findStoredJobFiles, listUnfinishedJobManifests, readJobFile, storeJobFile } from "../data/job-files";
import { isUploadEntry, uploadContentPath } from "../forms/uploads";
import type { ManifestEntry } from "../protocol/rte-messages";
import { manifestSchema } from "./manifest-schema";

const sha256 = (content: Buffer) => createHash("sha256").update(content).digest("hex");

/**
 * Keeps the contents of a launch's form files (not its uploads, which have their own store).
 * Reads only the files whose content is not kept yet; a file that changed between the launch's
 * hashing and now fails the launch rather than keeping the wrong content.
 */
export async function keepLaunchedFiles(sourceDir: string, formFiles: readonly ManifestEntry[]): Promise<void> {
  const stored = await findStoredJobFiles(formFiles.map((f) => f.sha256));
  for (const entry of formFiles) {
    if (stored.has(entry.sha256)) continue;
    const content = await fs.promises.readFile(path.join(sourceDir, entry.path));
    if (sha256(content) !== entry.sha256) throw new Error(`${entry.path} changed while the job was being launched: launch it again`);
    await storeJobFile(entry.sha256, content);
    stored.add(entry.sha256);
  }
}

/**
 * The contents a runner asks for, by hash: a form file from its folder when the folder still
 * holds that content, else the copy kept at launch; an upload from the upload store.
 */
export async function readLaunchedFiles(
  sourceDir: string,
  manifest: readonly ManifestEntry[],
  hashes: readonly string[],
): Promise<{ sha256: string; contentBase64: string }[]> {
  const files: { sha256: string; contentBase64: string }[] = [];
  for (const hash of hashes) {
    const entry = manifest.find((m) => m.sha256 === hash);
    if (!entry) throw new Error(`file ${hash} is not part of this job`);
    const content = isUploadEntry(entry) ? await readUpload(entry) : await readFormFile(sourceDir, entry);
    files.push({ sha256: hash, contentBase64: content.toString("base64") });
  }
  return files;
}

async function readUpload(entry: ManifestEntry): Promise<Buffer> {
  let content: Buffer;
  try {
    content = await fs.promises.readFile(uploadContentPath(entry.sha256));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    throw new Error(`the uploaded file ${entry.path} is no longer on the app`, { cause: error });
  }
  if (sha256(content) !== entry.sha256) throw new Error(`the uploaded file ${entry.path} is damaged on the app`);
  return content;
}

async function readFormFile(sourceDir: string, entry: ManifestEntry): Promise<Buffer> {
  const inFolder = await fs.promises.readFile(path.join(sourceDir, entry.path)).catch(() => null);
  if (inFolder && sha256(inFolder) === entry.sha256) return inFolder;
  const kept = await readJobFile(entry.sha256);
  if (kept && sha256(kept) === entry.sha256) return kept;
  // Only a job launched before launches kept their files gets here.
  throw new Error(`${entry.path} changed on the app since the job was launched`);
}

/** Kept contents no unfinished job names are deleted this long after they were kept. */
export const JOB_FILE_GRACE_MS = 60 * 60 * 1000;

/**
 * Deletes the kept contents that no job waiting, queued or running names, once older than the
 * grace (a launch keeps its files just before it stores its job). Returns how many went.
 */
export async function sweepJobFiles(now = new Date()): Promise<number> {
  const keep = new Set<string>();
  for (const manifest of await listUnfinishedJobManifests()) {
    const parsed = manifestSchema.safeParse(manifest);
    if (parsed.success) for (const entry of parsed.data) keep.add(entry.sha256);
  }
  return deleteJobFilesExcept(keep, new Date(now.getTime() - JOB_FILE_GRACE_MS));
}
