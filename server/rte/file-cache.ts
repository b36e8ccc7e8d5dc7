/**
 * Job files by content hash (RTE_FILES=transfer). The RTE keeps every file it has seen under
 * its sha256, asks the app only for the hashes it lacks, verifies what arrives, and lays the
 * files out in the job's folder.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { ManifestEntry } from "../protocol/rte-messages";

export type FetchFiles = (hashes: string[]) => Promise<Map<string, Buffer>>;

export class FileCache {
  constructor(private readonly dir: string) {
    fs.mkdirSync(dir, { recursive: true });
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
        fs.writeFileSync(temp, content);
        fs.renameSync(temp, this.file(hash));
      }
    }
    for (const entry of manifest) {
      const target = path.resolve(targetDir, entry.path);
      if (!target.startsWith(path.resolve(targetDir) + path.sep)) throw new Error(`file path escapes the job folder: ${entry.path}`);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.copyFileSync(this.file(entry.sha256), target);
    }
    return { fetched: missing.length, cached: wanted.length - missing.length };
  }

  private file(hash: string): string {
    return path.join(this.dir, hash);
  }
}
