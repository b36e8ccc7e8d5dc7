/**
 * Everything the RTE keeps on disk may hold a secret: extravars and keys do, the spool holds
 * output and events (masked, but the masker is a safety net, not a guarantee), cached files
 * are the playbooks themselves. So every folder it creates is 0700 and every file 0600,
 * whatever the umask, and what an older version created with the default modes is tightened
 * when it is found.
 */
import fs from "node:fs";
import path from "node:path";

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates the folder (and its missing parents) 0700, or tightens it if it exists. */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  // mkdir leaves an existing folder's mode alone (and the umask can only remove bits).
  if ((fs.statSync(dir).mode & 0o777) !== PRIVATE_DIR_MODE) fs.chmodSync(dir, PRIVATE_DIR_MODE);
}

/** Tightens an existing file to 0600 (a no-op when it already is). */
export function makePrivate(file: string): void {
  try {
    if ((fs.statSync(file).mode & 0o777) !== PRIVATE_FILE_MODE) fs.chmodSync(file, PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

/**
 * A folder this process must own, with exactly `mode`. For folders at a predictable path in a
 * shared place (the jobs folder in /tmp): another user could have created it first, or put a
 * symbolic link there, to read what the RTE lays out in it; both are refused, never used.
 */
export function ensureOwnedDir(dir: string, mode: number): void {
  fs.mkdirSync(path.dirname(dir), { recursive: true, mode: PRIVATE_DIR_MODE });
  try {
    fs.mkdirSync(dir, { mode: PRIVATE_DIR_MODE });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const st = fs.lstatSync(dir);
  const uid = process.getuid?.();
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) {
    throw new Error(
      `${dir} exists but is ${st.isSymbolicLink() ? "a symbolic link" : st.isDirectory() ? `owned by uid ${st.uid}` : "not a folder"}: ` +
        `refusing to lay out jobs in it (remove it, or set RTE_JOBS_DIR)`,
    );
  }
  if ((st.mode & 0o7777) !== mode) fs.chmodSync(dir, mode);
}
