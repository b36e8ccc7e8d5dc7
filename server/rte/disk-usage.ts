/**
 * How much disk a job takes: its folder (the form's files, what the playbook writes there, its
 * private /tmp) and the output it printed. A runner's disk is shared by every job and by the
 * spool that keeps output until the app has it: one job that fills it stops the others and
 * loses their output. So the RTE measures each running job every RTE_JOB_DISK_CHECK_SECONDS and
 * fails the one that passes RTE_JOB_DISK_LIMIT.
 *
 * A measure, not a quota: between two checks a job may write past the limit by what it writes
 * in that time. The kernel's quotas would stop it at the byte, but need a file system mounted
 * with them and root to set them, which a runner in a pod or on a developer's machine does not
 * have.
 */
import fs from "node:fs/promises";
import path from "node:path";

const UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  k: 1000,
  kb: 1000,
  m: 1000 ** 2,
  mb: 1000 ** 2,
  g: 1000 ** 3,
  gb: 1000 ** 3,
  t: 1000 ** 4,
  tb: 1000 ** 4,
  ki: 1024,
  kib: 1024,
  mi: 1024 ** 2,
  mib: 1024 ** 2,
  gi: 1024 ** 3,
  gib: 1024 ** 3,
  ti: 1024 ** 4,
  tib: 1024 ** 4,
};

/**
 * "10GiB", "500 MB", "1.5Ti", "1048576" → bytes (KiB, MiB, GiB, TiB: powers of 1024; KB, MB,
 * GB, TB: powers of 1000, as Kubernetes quantities), or null when it is not a size.
 */
export function parseByteSize(text: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  if (!match) return null;
  const unit = UNITS[match[2]!.toLowerCase()];
  if (unit === undefined) return null;
  const bytes = Math.floor(Number(match[1]) * unit);
  return Number.isSafeInteger(bytes) ? bytes : null;
}

/** 10737418240 → "10 GiB", for messages. */
export function formatBytes(bytes: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}

export interface FolderUsage {
  /** Bytes of disk the folder's files take (allocated blocks: a sparse file counts what it holds). */
  bytes: number;
  /** Entries that could not be read (gone meanwhile, or closed to the RTE): not counted. */
  unreadable: number;
}

/**
 * The disk a folder takes, without following symbolic links or leaving it for another mount
 * (a bind mount inside the job folder is not the job's). Each inode counts once, so hard links
 * to one file do not add up. Asynchronous and one folder at a time, so a job of a million files
 * slows its own check, never the RTE's event loop.
 */
export async function folderUsage(root: string): Promise<FolderUsage> {
  const seen = new Set<string>();
  const usage: FolderUsage = { bytes: 0, unreadable: 0 };
  let device: number;
  try {
    const top = await fs.lstat(root);
    device = top.dev;
    usage.bytes += allocated(top);
  } catch {
    return { bytes: 0, unreadable: 1 };
  }
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch {
      usage.unreadable++;
      continue;
    }
    for (const name of names) {
      const entry = path.join(dir, name);
      let stat: Awaited<ReturnType<typeof fs.lstat>>;
      try {
        stat = await fs.lstat(entry);
      } catch {
        usage.unreadable++;
        continue;
      }
      if (stat.dev !== device) continue;
      if (stat.nlink > 1 && !stat.isDirectory()) {
        const key = `${stat.ino}`;
        if (seen.has(key)) continue;
        seen.add(key);
      }
      usage.bytes += allocated(stat);
      if (stat.isDirectory()) pending.push(entry);
    }
  }
  return usage;
}

function allocated(stat: { blocks: number }): number {
  // st_blocks is in 512-byte units whatever the file system's block size: what the file holds
  // on disk, so a sparse file of a terabyte that holds nothing counts nothing.
  return stat.blocks * 512;
}
