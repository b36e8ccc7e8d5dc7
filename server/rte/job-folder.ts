/**
 * Handing a job's folder to the playbook user (see playbook-user.ts).
 *
 * The RTE lays the folder out as itself (0700, files 0600), then, before the playbook starts,
 * hands it over: folders stay the RTE's but open to the job's group (0770), so the playbook can
 * read, write and create in them and no other job can enter; files belong to the playbook user
 * and the job's group (0600; ssh insists that a key file be its user's and private).
 */
import fs from "node:fs";
import path from "node:path";
import type { ManifestEntry } from "../protocol/rte-messages";

export const JOB_FOLDER_MODE = 0o770;

export interface FolderOwner {
  uid: number;
  gid: number;
}

export function handOver(dir: string, owner: FolderOwner): void {
  const self = process.getuid?.() ?? 0;
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const target = path.join(folder, entry.name);
      if (entry.isDirectory()) {
        walk(target);
        fs.chownSync(target, self, owner.gid);
        fs.chmodSync(target, JOB_FOLDER_MODE);
      } else if (entry.isFile()) {
        // The mode first: once the file is another user's, changing it takes CAP_FOWNER.
        fs.chmodSync(target, 0o600);
        fs.chownSync(target, owner.uid, owner.gid);
      }
    }
  };
  walk(dir);
  fs.chownSync(dir, self, owner.gid);
  fs.chmodSync(dir, JOB_FOLDER_MODE);
}

/**
 * The dispatch's `fileVars` as extravars: each file field gets the absolute path of its file in
 * the job folder. A path must be one of the job's manifest (so the file is there) and stay
 * inside the folder; anything else fails the job before the playbook runs.
 */
export function fileVarPaths(
  jobDir: string,
  manifest: readonly ManifestEntry[],
  fileVars: Readonly<Record<string, string>>,
): Record<string, string> {
  const root = path.resolve(jobDir);
  const listed = new Set(manifest.map((entry) => entry.path));
  const paths: Record<string, string> = {};
  for (const [name, rel] of Object.entries(fileVars)) {
    const target = path.resolve(root, rel);
    if (path.isAbsolute(rel) || !target.startsWith(root + path.sep) || !listed.has(rel)) {
      throw new Error(`file of ${name} is not a file of this job: ${rel}`);
    }
    paths[name] = target;
  }
  return paths;
}
