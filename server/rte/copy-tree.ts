/**
 * Copies an installed tree into the cache (RequirementsCache.store: every install, with or
 * without the sandbox, so that nothing the install made, a hard link or a link at a name the RTE
 * writes, reaches the entry: attack 9), as the RTE's user (root, often), while without the
 * sandbox a process of the install's user the leftover search did not find may still rename
 * things in it (attack 8 on issue 34). So the copy never goes by a path that process can change
 * between a check and a use:
 *
 * - Each folder is opened with O_DIRECTORY|O_NOFOLLOW and read through its descriptor
 *   (`/proc/self/fd/N/name`, openat's effect in Node): a folder swapped for a link is refused at
 *   its open, and one renamed away after it keeps the walk inside the folder that was opened.
 *   With the path instead, a link in its place sent the rest of the walk to a folder of root's.
 * - Each file is opened with O_NOFOLLOW|O_NONBLOCK, the descriptor fstat'ed and read only when it
 *   is a regular file: a link swapped in is refused (ELOOP), a FIFO, socket or device is left out
 *   and never read. Before, an lstat then a copy by path copied a link's target (a root-only file
 *   into the entry, 0644 after the seal), and a FIFO stopped the RTE in a synchronous open.
 * - Everything is asynchronous (fs.promises): nothing of an install can hold the event loop, and
 *   with O_NONBLOCK nothing waits on a FIFO in the thread pool either.
 *
 * What changes under the copy is left out with a note (the install's user did that; the entry
 * has the rest). Symbolic links are copied as links, their text as read. Linux only (`/proc`), as
 * the leftover search.
 *
 * What the copy writes is counted against a budget (the install's disk cap), as the disk it
 * takes: each file's bytes rounded up to a block, each folder and link a block. The install's
 * own measure cannot stand in for it: a sparse file (`truncate -s 1T`) takes no blocks until it
 * is copied byte for byte, and a file with 65,000 hard links is counted once but copied 65,000
 * times (attack 11 on issue 34). Past the budget the copy stops and throws CopyOverBudget. A file
 * is read up to the size it had when opened: one a leftover process keeps growing ends there.
 */
import fs from "node:fs";
import path from "node:path";

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
const CHUNK = 1024 * 1024;
/** What one folder, link or file's last partial block is counted as. */
const BLOCK = 4096;

/** The copy would take more of the disk than its budget. */
export class CopyOverBudget extends Error {
  constructor(
    readonly budget: number,
    readonly taken: number,
  ) {
    super(`the copy took more than its budget of ${budget} bytes (${taken} so far)`);
  }
}

/** What the copy has taken so far, and how much it may take (null: no limit). */
interface Budget {
  taken: number;
  max: number | null;
}

function take(budget: Budget, bytes: number): void {
  budget.taken += Math.ceil(Math.max(bytes, 1) / BLOCK) * BLOCK;
  if (budget.max !== null && budget.taken > budget.max) throw new CopyOverBudget(budget.max, budget.taken);
}

/** A name inside a folder opened as `dir`, reached through that descriptor (never the path again). */
function inside(dir: fs.promises.FileHandle, name: string): string {
  return `/proc/self/fd/${dir.fd}/${name}`;
}

/**
 * Copies the tree at `from` to `to` (made here): folders, regular files (each a new file with
 * its mode's permission bits and its times, so a hard link or a descriptor held on the original
 * reaches nothing of the copy) and symbolic links as they are; a FIFO, a socket or a device is
 * left out. Returns a note for each entry left out because it changed under the copy or is not
 * a regular file where one was expected. Past `maxBytes` (see above) it throws CopyOverBudget,
 * leaving what it copied so far to the caller.
 */
export async function copyTree(from: string, to: string, options: { maxBytes?: number | null } = {}): Promise<string[]> {
  const notes: string[] = [];
  const budget: Budget = { taken: 0, max: options.maxBytes ?? null };
  const root = await fs.promises.open(from, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  try {
    await fs.promises.mkdir(to);
    await copyFolder(root, to, "", notes, budget);
  } finally {
    await root.close();
  }
  return notes;
}

async function copyFolder(dir: fs.promises.FileHandle, to: string, shown: string, notes: string[], budget: Budget): Promise<void> {
  for (const name of await fs.promises.readdir(`/proc/self/fd/${dir.fd}`)) {
    const source = inside(dir, name);
    const target = path.join(to, name);
    const label = shown === "" ? name : `${shown}/${name}`;
    let st: fs.Stats;
    try {
      st = await fs.promises.lstat(source);
    } catch {
      notes.push(`${label}: gone during the copy`);
      continue;
    }
    if (st.isSymbolicLink()) {
      take(budget, 0);
      try {
        await fs.promises.symlink(await fs.promises.readlink(source), target);
      } catch {
        notes.push(`${label}: changed during the copy (was a link)`);
      }
    } else if (st.isDirectory()) {
      let sub: fs.promises.FileHandle;
      try {
        sub = await fs.promises.open(source, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      } catch {
        notes.push(`${label}: changed during the copy (was a folder)`);
        continue;
      }
      try {
        take(budget, 0);
        await fs.promises.mkdir(target);
        await copyFolder(sub, target, label, notes, budget);
      } finally {
        await sub.close();
      }
    } else if (st.isFile()) {
      await copyFile(source, target, label, notes, budget);
    }
    // A FIFO, a socket or a device: left out (seal would remove it; reading a FIFO would wait).
  }
}

async function copyFile(source: string, target: string, label: string, notes: string[], budget: Budget): Promise<void> {
  let file: fs.promises.FileHandle;
  try {
    file = await fs.promises.open(source, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch {
    // ELOOP: a link swapped in; ENOENT: renamed away.
    notes.push(`${label}: changed during the copy (was a file)`);
    return;
  }
  try {
    const st = await file.stat();
    if (!st.isFile()) {
      notes.push(`${label}: not a regular file when opened, left out`);
      return;
    }
    // Counted before it is written: a file past the budget is never copied at all.
    take(budget, st.size);
    const out = await fs.promises.open(target, "wx", st.mode & 0o755);
    try {
      const buffer = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(st.size, 1)));
      // Up to its size when opened: a file that grows under the copy (a leftover writing to it)
      // is not followed for ever.
      for (let left = st.size; left > 0;) {
        const { bytesRead } = await file.read(buffer, 0, Math.min(buffer.length, left), null);
        if (bytesRead === 0) break;
        left -= bytesRead;
        for (let written = 0; written < bytesRead;) written += (await out.write(buffer, written, bytesRead - written)).bytesWritten;
      }
      await out.utimes(st.atime, st.mtime);
    } finally {
      await out.close();
    }
  } finally {
    await file.close();
  }
}
