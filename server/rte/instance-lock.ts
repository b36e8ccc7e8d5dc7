/**
 * One RTE process per spool (and per work dir). Two processes on one spool would number the
 * same jobs' items twice, acknowledge each other's items and delete each other's files; a
 * restarted RTE would also end the playbooks of the one still running (see leftovers.ts). So
 * the RTE takes a lock file in both folders before it touches either, and refuses to start
 * while another living RTE holds one.
 *
 * The lock names its holder: pid, the process's start time and the boot id (so a pid reused
 * after a crash or a container restart is not mistaken for the holder), host name and instance
 * id. On the holder's host the pid decides at once. From another host (a volume shared by two
 * machines or containers, where the pid means nothing) the holder proves it lives by touching
 * the file every REFRESH_MS; a lock untouched for STALE_MS is taken over.
 */
import fs from "node:fs";
import { hostname } from "node:os";
import { PRIVATE_FILE_MODE } from "./private-fs";
import { bootId, processInfo } from "./process-group";

export const LOCK_FILE = "rte.lock";
/** The RTE's exit status when another living RTE holds its spool or work dir. */
export const EXIT_LOCKED = 4;
const REFRESH_MS = 10_000;
export const STALE_MS = 30_000;

export interface LockHolder {
  pid: number;
  startTime: string | null;
  bootId: string | null;
  hostname: string;
  instanceId: string;
  since: string;
}

export class LockHeldError extends Error {}

export interface HeldLock {
  file: string;
  /** The previous holder whose lock was stale and taken over, if any. */
  tookOver: LockHolder | null;
  release(): void;
}

function me(instanceId: string): LockHolder {
  return {
    pid: process.pid,
    startTime: processInfo(process.pid)?.startTime ?? null,
    bootId: bootId(),
    hostname: hostname(),
    instanceId,
    since: new Date().toISOString(),
  };
}

function readHolder(file: string): { text: string; holder: LockHolder | null } | null {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as LockHolder;
    return { text, holder: typeof parsed.pid === "number" ? parsed : null };
  } catch {
    return { text, holder: null };
  }
}

/** Why the holder is alive, or null when its lock is stale. */
export function holderAlive(holder: LockHolder, file: string, now = Date.now()): string | null {
  if (holder.hostname !== hostname()) {
    const age = now - fs.statSync(file).mtimeMs;
    return age < STALE_MS ? `on host ${holder.hostname}, lock refreshed ${Math.round(age / 1000)}s ago` : null;
  }
  const currentBoot = bootId();
  if (holder.bootId && currentBoot && holder.bootId !== currentBoot) return null; // the machine rebooted since
  if (holder.pid === process.pid) return null; // our own pid, so not the holder's any more (a container restart)
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: a process of another user has that pid; it may be the holder, so it counts as alive.
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return null;
  }
  const info = processInfo(holder.pid);
  // The pid lives but started at another time: a new process that reused the holder's pid.
  if (info && holder.startTime && info.startTime !== holder.startTime) return null;
  if (info?.zombie) return null;
  return `pid ${holder.pid} is alive`;
}

/**
 * The living process holding the lock file, or null (no lock, or a stale one). For the app that
 * starts a local RTE: an RTE that outlived the previous app still holds its folders.
 */
export function livingHolder(file: string): LockHolder | null {
  const found = readHolder(file);
  if (!found?.holder) return null;
  try {
    return holderAlive(found.holder, file) ? found.holder : null;
  } catch (error) {
    // Released between the read and the check.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/**
 * Takes the lock file, or throws LockHeldError naming the living holder. A stale lock (its
 * holder died) is taken over and reported in `tookOver`.
 */
export function acquireLock(file: string, instanceId: string): HeldLock {
  const mine = me(instanceId);
  const text = JSON.stringify(mine) + "\n";
  let tookOver: LockHolder | null = null;
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      // O_EXCL: of two processes starting at once, exactly one creates the file.
      const fd = fs.openSync(file, "wx", PRIVATE_FILE_MODE);
      try {
        fs.writeSync(fd, text);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      return hold(file, text, tookOver);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const found = readHolder(file);
    if (!found) continue; // released in between: try again
    if (!found.holder) {
      // Empty or torn: its writer crashed between create and write, or is writing right now.
      if (Date.now() - fs.statSync(file).mtimeMs < 2_000) {
        sleepSync(200);
        continue;
      }
    } else {
      const alive = holderAlive(found.holder, file);
      if (alive) {
        const h = found.holder;
        throw new LockHeldError(
          `another RTE (instance ${h.instanceId}, pid ${h.pid} on ${h.hostname}, since ${h.since}; ${alive}) is using ${file}: ` +
            `refusing to start. Two RTE processes must never share a spool or work dir; stop the other one, or give this ` +
            `instance its own RTE_SPOOL_PATH and RTE_WORK_DIR.`,
        );
      }
    }
    // Stale: move it aside (atomic) and check that what moved is what was judged stale; a
    // process that took the lock in between gets its file back.
    const aside = `${file}.stale-${process.pid}`;
    try {
      fs.renameSync(file, aside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw error;
    }
    const moved = readHolder(aside);
    if (moved?.text !== found.text) {
      try {
        fs.linkSync(aside, file);
      } catch {
        // Someone created a new lock meanwhile: theirs stays; the next attempt judges it.
      }
      fs.rmSync(aside, { force: true });
      continue;
    }
    fs.rmSync(aside, { force: true });
    tookOver = found.holder;
  }
  throw new LockHeldError(`could not take ${file}: other processes keep taking it; is another RTE starting on it?`);
}

function hold(file: string, text: string, tookOver: LockHolder | null): HeldLock {
  const ours = () => readHolder(file)?.text === text;
  // Proves to an RTE on another host that this one lives (see holderAlive).
  const refresh = setInterval(() => {
    try {
      if (ours()) {
        const now = new Date();
        fs.utimesSync(file, now, now);
      }
    } catch {
      // The folder went away: nothing to refresh.
    }
  }, REFRESH_MS);
  refresh.unref();
  let released = false;
  return {
    file,
    tookOver,
    release() {
      if (released) return;
      released = true;
      clearInterval(refresh);
      try {
        if (ours()) fs.rmSync(file, { force: true });
      } catch {
        // Leaving: a lock left behind is stale and taken over by the next start.
      }
    },
  };
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
