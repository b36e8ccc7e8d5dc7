/**
 * The files a job needs, by content hash. Everything in the form's folder goes (roles,
 * group_vars, templates), except hidden files and the form definition itself.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { ManifestEntry } from "../protocol/rte-messages";
import { isUploadEntry, uploadContentPath } from "./uploads";

const MAX_FILES = 2_000;

export function buildManifest(dir: string): ManifestEntry[] {
  const entries: ManifestEntry[] = [];
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      if (entry.name.startsWith(".")) continue;
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) {
        const rel = path.relative(dir, full).split(path.sep).join("/");
        if (rel === "form.yaml") continue;
        const content = fs.readFileSync(full);
        entries.push({ path: rel, sha256: createHash("sha256").update(content).digest("hex"), size: content.length });
        if (entries.length > MAX_FILES) throw new Error(`form folder ${dir} has more than ${MAX_FILES} files`);
      }
    }
  };
  walk(dir);
  return entries.sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * Reads the files the manifest names by hash, checking the content still matches: the form's
 * files from its folder, uploads (server/forms/uploads.ts) from the upload store.
 */
export function readManifestFiles(dir: string, manifest: ManifestEntry[], hashes: string[]): { sha256: string; contentBase64: string }[] {
  return hashes.map((hash) => {
    const entry = manifest.find((m) => m.sha256 === hash);
    if (!entry) throw new Error(`file ${hash} is not part of this job`);
    const upload = isUploadEntry(entry);
    let content: Buffer;
    try {
      content = fs.readFileSync(upload ? uploadContentPath(hash) : path.join(dir, entry.path));
    } catch (error) {
      if (!upload || (error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      throw new Error(`the uploaded file ${entry.path} is no longer on the app`, { cause: error });
    }
    if (createHash("sha256").update(content).digest("hex") !== hash) {
      throw new Error(`${entry.path} changed on the app since the job was launched`);
    }
    return { sha256: hash, contentBase64: content.toString("base64") };
  });
}
