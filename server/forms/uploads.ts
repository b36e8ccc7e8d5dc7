/**
 * Files users upload for a form's `file` fields, from the upload to the job folder.
 *
 * - Upload (POST /api/uploads): only for a form the user may launch and a file field of it;
 *   the field's `accept` (extension or MIME type) and `maxSize` are checked as the file streams
 *   in, never held whole. The content is stored once per hash in the upload store
 *   (`uploads/<sha256>` in the app's data folder, beside the SQLite database or `data/`),
 *   written to a temp file and renamed, 0600 in a 0700 folder; an Upload row names it for that
 *   user, form and field.
 * - Launch: the field's value is the upload id. It must name an upload of the launching user
 *   for this very form and field; whether a job used it already does not matter (a relaunch
 *   runs the same file again). The file joins the job's manifest under
 *   `.playform_uploads/<field>/<name>` (a hidden folder: a form's own hidden files never go to
 *   the runner, so no form file can take that path), the RTE fetches it by hash like the
 *   form's files and gives the playbook its absolute path in the job folder (`fileVars`,
 *   docs/rte.md); the file goes with the job folder.
 * - Cleanup: uploads no job took are deleted after UNUSED_UPLOAD_HOURS (sweepUploads, run
 *   periodically by the custom server); a job's uploads go with the job (deleteJobUploads);
 *   a content file goes once no Upload row names its hash.
 */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { DomainError } from "../errors";
import { requireLaunchableForm, type Viewer } from "../access/policy";
import {
  createUpload,
  deleteUnusedUploadsBefore,
  deleteUploadsOfJob,
  findUploads,
  referencedHashes,
  setUploadsJob,
  uploadStoreDir,
} from "../data/uploads";
import type { FieldSpec } from "../form-rules/fields";
import type { FormValues } from "../form-rules/values";
import type { ManifestEntry } from "../protocol/rte-messages";
import type { StoredForm } from "./catalog";

/** Where a job's uploads are in its folder: `<UPLOADS_FOLDER>/<field>/<name>`. */
export const UPLOADS_FOLDER = ".playform_uploads";
/** Uploads no job took are deleted after this long. */
export const UNUSED_UPLOAD_HOURS = 24;
/**
 * A content file younger than this is never removed by a sweep: an upload renames its content
 * into the store before it records its row, and must not lose it in between.
 */
const CONTENT_GRACE_MS = 60 * 60 * 1000;
/**
 * What a multipart body carries besides the file (boundaries, part headers, the file name):
 * a Content-Length above the field's limit plus this is refused before reading.
 */
export const MULTIPART_ALLOWANCE = 16 * 1024;
const MAX_NAME_LENGTH = 120;
const HASH_NAME = /^[0-9a-f]{64}$/;
const TEMP_PREFIX = ".tmp-";

type FileField = Extract<FieldSpec, { type: "file" }>;

export function uploadContentPath(sha256: string): string {
  if (!HASH_NAME.test(sha256)) throw new Error(`not a sha256: ${sha256}`);
  return path.join(uploadStoreDir(), sha256);
}

/**
 * Characters a file name loses (each run becomes one `_`): control characters (C0, DEL, C1),
 * lone UTF-16 halves, and the bidirectional controls that make "evil\u202Etxt.exe" display as
 * "evilexe.txt". Path separators are dealt with first (only the base name is kept).
 */
const UNSAFE_IN_NAME = /[\p{Cc}\p{Cs}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]+/gu;

/** The longest name in UTF-8 bytes: file systems allow 255, and a suffix may be added by copies. */
const MAX_NAME_BYTES = 240;

/** The code points of `text` that fit in `bytes` UTF-8 bytes and `chars` code points, whole. */
function cutTo(text: string, chars: number, bytes: number): string {
  let out = "";
  let used = 0;
  let count = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char, "utf8");
    if (count + 1 > chars || used + size > bytes) break;
    out += char;
    used += size;
    count++;
  }
  return out;
}

/**
 * The name a file gets in the job folder: its base name (a browser may send a full Windows
 * path), in Unicode NFC, as given but for control and bidi characters (replaced with `_`) and
 * leading dots or spaces (hidden, `..`), at most MAX_NAME_LENGTH characters and MAX_NAME_BYTES
 * bytes with its extension kept; "upload" when nothing is left. No shell ever sees it (the
 * playbook gets its path as an extravar), so spaces, `$` and quotes are kept.
 */
export function sanitizeFileName(raw: string): string {
  const base = raw.split(/[/\\]/).pop() ?? "";
  let name = base
    .normalize("NFC")
    .replace(UNSAFE_IN_NAME, "_")
    .trim()
    .replace(/^[.\s]+/, "");
  if ([...name].length > MAX_NAME_LENGTH || Buffer.byteLength(name, "utf8") > MAX_NAME_BYTES) {
    const ext = /\.[\p{L}\p{N}_-]{1,16}$/u.exec(name)?.[0] ?? "";
    name =
      cutTo(name.slice(0, name.length - ext.length), MAX_NAME_LENGTH - ext.length, MAX_NAME_BYTES - Buffer.byteLength(ext, "utf8")) + ext;
  }
  return name === "" || /^\.*$/.test(name) ? "upload" : name;
}

/** The media type without parameters, lower case ("Text/Plain; charset=utf-8" → "text/plain"); null when there is none. */
export function normalizeMediaType(raw: string | null | undefined): string | null {
  const type = (raw ?? "").split(";")[0]!.trim().toLowerCase();
  return /^[a-z0-9.+-]+\/[a-z0-9.+-]+$/.test(type) ? type : null;
}

/**
 * Whether a field's `accept` list takes the file: an extension (".pem", ".tar.gz") matches the
 * end of the name, case aside; a media type ("text/plain") the part's type, "image/*" any image.
 * An empty list takes anything.
 */
export function acceptsFile(accept: readonly string[], name: string, mediaType: string | null): boolean {
  if (accept.length === 0) return true;
  const lower = name.toLowerCase();
  return accept.some((rule) => {
    const wanted = rule.toLowerCase();
    if (wanted.startsWith(".")) return lower.endsWith(wanted) && lower.length > wanted.length;
    if (mediaType === null) return false;
    return wanted.endsWith("/*") ? mediaType.startsWith(wanted.slice(0, -1)) : mediaType === wanted;
  });
}

/** Sizes as people read them: "512 bytes", "1 KB", "12.3 MB" (1 KB = 1024 bytes). */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const [value, unit] = bytes < 1024 * 1024 ? [bytes / 1024, "KB"] : [bytes / (1024 * 1024), "MB"];
  return `${Number(value.toFixed(1))} ${unit}`;
}

function tooLarge(what: string, bytes: number | null, max: number): DomainError {
  const size = bytes === null ? `larger than ${formatSize(max)}` : formatSize(bytes);
  return new DomainError("payload_too_large", `${what} is ${size}, the field allows at most ${formatSize(max)}`);
}

function fileFieldOf(form: StoredForm, name: string): FileField {
  const field = form.definition.fields.find((f) => f.name === name);
  if (!field || field.type !== "file") throw new DomainError("bad_request", `form "${form.name}" has no file field "${name}"`);
  return field;
}

/** One file part of a multipart body, as it streams in (server/api/upload.ts: multipartFile). */
export interface IncomingFile {
  /** The name the client gave it (sanitized here). */
  filename: string;
  mimeType: string | null;
  stream: Readable;
}

export interface IncomingUpload {
  /** The request's Content-Length, when it said one. */
  declaredBytes: number | null;
  /** Starts reading the body, up to the file part; called once the field's limits are known. */
  open: () => Promise<IncomingFile>;
}

export interface UploadAnswer {
  id: string;
  name: string;
  size: number;
  sha256: string;
  contentType: string | null;
}

/**
 * Stores a file uploaded for a form's file field. 404 for a form the user may not launch,
 * 400 for a field that is not a file field of it (or an empty or broken upload), 413 past the
 * field's maxSize (before reading when Content-Length says so), 422 for a type it does not accept.
 */
export async function storeUpload(viewer: Viewer, formName: string, fieldName: string, incoming: IncomingUpload): Promise<UploadAnswer> {
  const form = await requireLaunchableForm(viewer, formName);
  const field = fileFieldOf(form, fieldName);
  if (incoming.declaredBytes !== null && incoming.declaredBytes > field.maxSize + MULTIPART_ALLOWANCE) {
    throw tooLarge("the upload", incoming.declaredBytes, field.maxSize);
  }
  const file = await incoming.open();
  const name = sanitizeFileName(file.filename);
  const contentType = normalizeMediaType(file.mimeType);
  if (!acceptsFile(field.accept, name, contentType)) {
    const message = `${name}${contentType ? ` (${contentType})` : ""} is not a type this field accepts: ${field.accept.join(", ")}`;
    throw new DomainError("validation_failed", message, { [field.name]: message });
  }
  const { sha256, size } = await writeToStore(file.stream, name, field.maxSize);
  const id = `up_${randomBytes(18).toString("base64url")}`;
  await createUpload({ id, sha256, name, size, contentType, userId: viewer.id, formName: form.name, field: field.name });
  return { id, name, size, sha256, contentType };
}

function ensureStoreDir(): string {
  const dir = uploadStoreDir();
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  return dir;
}

/** Streams the file into a temp file of the store, hashing and counting; renamed to its hash once whole. */
async function writeToStore(stream: Readable, name: string, maxSize: number): Promise<{ sha256: string; size: number }> {
  const dir = ensureStoreDir();
  const temp = path.join(dir, `${TEMP_PREFIX}${randomBytes(8).toString("hex")}`);
  const hash = createHash("sha256");
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > maxSize) return done(tooLarge(name, null, maxSize));
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(stream, counter, fs.createWriteStream(temp, { mode: 0o600, flags: "wx" }));
    if (size === 0) throw new DomainError("bad_request", `${name} is empty`);
    const handle = await fs.promises.open(temp, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    const sha256 = hash.digest("hex");
    // The same content uploaded before is replaced by an identical copy: the rename is atomic.
    await fs.promises.rename(temp, path.join(dir, sha256));
    return { sha256, size };
  } catch (error) {
    await fs.promises.rm(temp, { force: true });
    if (error instanceof DomainError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new DomainError("bad_request", `the upload of ${name} did not arrive whole: ${reason}`);
  }
}

export interface LaunchUploads {
  /** The Upload rows the job takes (setUploadsJob once it exists). */
  ids: string[];
  /** The uploads as manifest entries, at `<UPLOADS_FOLDER>/<field>/<name>`. */
  manifest: ManifestEntry[];
}

/**
 * The uploads a launch's file fields name (their values, already checked to look like upload
 * ids). Each must be an upload of this user for this form and field, else 422 on that field;
 * one that a job already used passes (a relaunch runs the same file again).
 */
export async function resolveUploads(user: Viewer, form: StoredForm, values: FormValues): Promise<LaunchUploads> {
  const wanted = form.definition.fields.flatMap((f) => {
    const value = values[f.name];
    return f.type === "file" && typeof value === "string" ? [{ field: f.name, id: value }] : [];
  });
  if (wanted.length === 0) return { ids: [], manifest: [] };
  const rows = new Map((await findUploads(wanted.map((w) => w.id))).map((row) => [row.id, row]));
  const errors: Record<string, string> = {};
  const manifest: ManifestEntry[] = [];
  for (const { field, id } of wanted) {
    const row = rows.get(id);
    if (!row || row.userId !== user.id || row.formName !== form.name || row.field !== field) {
      errors[field] = "is not a file uploaded for this field";
    } else if (!fs.existsSync(uploadContentPath(row.sha256))) {
      errors[field] = `${row.name} is no longer on the server: upload it again`;
    } else {
      manifest.push({ path: `${UPLOADS_FOLDER}/${field}/${row.name}`, sha256: row.sha256, size: row.size });
    }
  }
  const problems = Object.entries(errors);
  if (problems.length > 0) {
    throw new DomainError("validation_failed", problems.map(([field, message]) => `${field}: ${message}`).join("; "), errors);
  }
  return { ids: wanted.map((w) => w.id), manifest };
}

/** The launched job now holds its uploads: a sweep no longer deletes them as unused. */
export async function markUploadsLaunched(uploads: LaunchUploads, jobId: number): Promise<void> {
  await setUploadsJob(uploads.ids, jobId);
}

/**
 * The file fields' paths relative to the job folder (`{keyfile: ".playform_uploads/keyfile/a.pem"}`),
 * read back from a job's manifest: the dispatch's `fileVars`, which the RTE turns into absolute paths.
 */
export function uploadFileVars(manifest: readonly ManifestEntry[]): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const entry of manifest) {
    const [folder, field, name, ...rest] = entry.path.split("/");
    if (folder === UPLOADS_FOLDER && field && name && rest.length === 0) vars[field] = entry.path;
  }
  return vars;
}

/** Whether a manifest entry is an upload (read from the upload store, not the form's folder). */
export function isUploadEntry(entry: ManifestEntry): boolean {
  return entry.path.startsWith(`${UPLOADS_FOLDER}/`);
}

/**
 * Removes the content files of these hashes that no Upload row names any more, unless younger
 * than CONTENT_GRACE_MS (an upload of the same content may be between its rename and its row;
 * the next sweep takes them). Returns how many were removed.
 */
async function removeUnreferenced(hashes: readonly string[], now: number): Promise<number> {
  const used = await referencedHashes(hashes);
  let removed = 0;
  for (const hash of hashes) {
    if (used.has(hash)) continue;
    const file = uploadContentPath(hash);
    try {
      if (now - (await fs.promises.stat(file)).mtimeMs < CONTENT_GRACE_MS) continue;
      await fs.promises.rm(file, { force: true });
      removed++;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return removed;
}

/**
 * Deletes the uploads no job took within UNUSED_UPLOAD_HOURS, then every content file of the
 * store no row names (older than CONTENT_GRACE_MS) and temp files left by uploads that died.
 */
export async function sweepUploads(now: Date = new Date()): Promise<{ uploads: number; files: number }> {
  const hashes = await deleteUnusedUploadsBefore(new Date(now.getTime() - UNUSED_UPLOAD_HOURS * 3600 * 1000));
  const dir = uploadStoreDir();
  let entries: string[];
  try {
    entries = await fs.promises.readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { uploads: hashes.length, files: 0 };
    throw error;
  }
  let files = 0;
  for (const entry of entries.filter((e) => e.startsWith(TEMP_PREFIX))) {
    const file = path.join(dir, entry);
    const stat = await fs.promises.stat(file).catch(() => null);
    if (stat && now.getTime() - stat.mtimeMs >= CONTENT_GRACE_MS) {
      await fs.promises.rm(file, { force: true });
      files++;
    }
  }
  files += await removeUnreferenced(
    entries.filter((e) => HASH_NAME.test(e)),
    now.getTime(),
  );
  return { uploads: hashes.length, files };
}

/**
 * Deletes a job's uploads and the content no other upload shares (for job retention: a run's output and uploads go together).
 * An upload a later relaunch took belongs to that job and stays.
 */
export async function deleteJobUploads(jobId: number, now: Date = new Date()): Promise<number> {
  return removeUnreferenced(await deleteUploadsOfJob(jobId), now.getTime());
}

/** An uploaded file as the job page shows it: its name and size (the job's value is the upload's id). */
export interface JobFileValue {
  name: string;
  size: number;
}

/**
 * The files a job's file fields name, by field (the form as it is now says which fields are
 * file fields). Only uploads made for that form and field count, so a value can never name
 * someone else's file; a field whose upload is gone (removed with an old job) is left out.
 */
export async function uploadedFilesOfJob(
  form: StoredForm,
  values: Readonly<Record<string, unknown>>,
): Promise<Record<string, JobFileValue>> {
  const wanted = form.definition.fields.flatMap((f) => {
    const value = values[f.name];
    return f.type === "file" && typeof value === "string" ? [{ field: f.name, id: value }] : [];
  });
  const rows = new Map((await findUploads(wanted.map((w) => w.id))).map((row) => [row.id, row]));
  const files: Record<string, JobFileValue> = {};
  for (const { field, id } of wanted) {
    const row = rows.get(id);
    if (row && row.formName === form.name && row.field === field) files[field] = { name: row.name, size: row.size };
  }
  return files;
}
