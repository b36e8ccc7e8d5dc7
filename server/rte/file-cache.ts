/**
 * Job files by content hash. The RTE keeps every file it has seen under
 * its sha256, asks the app only for the hashes it lacks, verifies what arrives, and lays the
 * files out in the job's folder.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { ManifestEntry } from "../protocol/rte-messages";
import { PRIVATE_FILE_MODE, ensurePrivateDir, makePrivate } from "./private-fs";

export type FetchFiles = (hashes: string[]) => Promise<Map<string, Buffer>>;

export class FileCache {
  constructor(private readonly dir: string) {
    ensurePrivateDir(dir);
    // Cached by an older version with the default mode.
    for (const entry of fs.readdirSync(dir)) makePrivate(path.join(dir, entry));
  }

  async materialize(manifest: ManifestEntry[], targetDir: string, fetch: FetchFiles): Promise<{ fetched: number; cached: number }> {
    const wanted = [...new Set(manifest.map((m) => m.sha256))];
    const missing = wanted.filter((hash) => !fs.existsSync(this.file(hash)));
    if (missing.length > 0) {
      const received = await fetch(missing);
      for (const hash of missing) {
        const content = received.get(hash);
        if (!content) throw new Error(`the app did not send file ${hash}`);
        const actual = createHash("sha256").update(content).digest("hex");
        if (actual !== hash) throw new Error(`file ${hash} arrived with hash ${actual}: refusing it`);
        // Write then rename, so a crash never leaves a truncated file under a valid hash.
        const temp = `${this.file(hash)}.${process.pid}.tmp`;
        fs.writeFileSync(temp, content, { mode: PRIVATE_FILE_MODE });
        fs.renameSync(temp, this.file(hash));
      }
    }
    ensurePrivateDir(targetDir);
    for (const entry of manifest) {
      const target = path.resolve(targetDir, entry.path);
      if (!target.startsWith(path.resolve(targetDir) + path.sep)) throw new Error(`file path escapes the job folder: ${entry.path}`);
      ensurePrivateDir(path.dirname(target));
      // copyFile gives the copy the cached file's mode (0600), but say so rather than rely on it.
      fs.copyFileSync(this.file(entry.sha256), target);
      makePrivate(target);
    }
    return { fetched: missing.length, cached: wanted.length - missing.length };
  }

  private file(hash: string): string {
    return path.join(this.dir, hash);
  }
}

/**
 * RTE_FILES=local: the files come from a volume shared with the app, at the path the app
 * sees (mount it at the same path on both sides). A file whose content there is no longer the
 * one the job was launched with (the folder was edited since) is left out: the caller asks the
 * app for it, which kept the launched content. What arrives still goes through the hash check.
 */
export async function readSharedFiles(
  sourceDir: string | undefined,
  manifest: ManifestEntry[],
  hashes: string[],
): Promise<Map<string, Buffer>> {
  if (!sourceDir) throw new Error("RTE_FILES=local, but the app sent no folder for this job's files");
  const files = new Map<string, Buffer>();
  for (const hash of hashes) {
    const entry = manifest.find((m) => m.sha256 === hash);
    if (!entry) throw new Error(`file ${hash} is not part of this job`);
    try {
      const content = await fs.promises.readFile(path.join(sourceDir, entry.path));
      if (createHash("sha256").update(content).digest("hex") === hash) files.set(hash, content);
    } catch (error) {
      throw new Error(
        `cannot read ${entry.path} from the shared folder ${sourceDir}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
        { cause: error },
      );
    }
  }
  return files;
}
