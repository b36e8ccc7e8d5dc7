/**
 * Installed requirements, one folder per key (requirements.ts): `<dir>/<key>/{collections,roles}`,
 * reused by every job with the same key.
 *
 * - A half-written or failed install is never used: the install writes into a folder of its job
 *   (as the playbook user), which is copied here under a staging name (copy-tree.ts: new files,
 *   made by the RTE, after the processes the install left are ended without the sandbox: a
 *   descriptor one of them kept on an installed file cannot change the entry;
 *   install-leftovers.ts), made the RTE's and read-only for everyone else (no set-id bit
 *   survives), and only then renamed to its key: an entry exists whole or not at all. Staging
 *   folders of dead processes are removed at start.
 * - Installed once: jobs of this process with the same key wait for the one install (a promise per
 *   key) and share its outcome: its entry, or its failure (they do not each try again; a job that
 *   comes after the failure does; so does a waiter whose installer's job was cancelled). Processes
 *   sharing the folder (RTE_REQUIREMENTS_DIR named by several RTEs) take `<key>.lock`, created
 *   exclusively, and wait while another living one holds it. A lock whose holder is gone (same
 *   machine, its pid dead) or older than the install timeout is stale. Each lock names its
 *   attempt, and a failed install leaves `<key>.failed-<attempt>` (its message) before it frees
 *   the lock: a process that waited on that attempt fails with that message, as this process's
 *   waiters do, instead of installing again (N runners, one broken file: one install). A job that
 *   did not wait on it tries again. A cancelled install leaves none: it says nothing of the
 *   requirements. Records are removed by the key's next successful install, and once older than
 *   FAILURE_RECORD_MS by its next failure and by the sweep.
 * - Not the playbook user's: the folder is the RTE's (0711: entered, not listed) and every entry is
 *   the RTE's, 0755/0644. Under bubblewrap a job also sees its entry through a read-only mount.
 * - In use, never removed: each use touches the entry (its mtime: its last use), and while a job
 *   uses it its process holds it: counted in the process, and a lease file `<key>.use-<host>-<pid>`
 *   for the other processes, made before the entry is looked up. A lease of another machine
 *   cannot be checked by its pid: its holder renews the file's mtime every LEASE_RENEW_MS while it
 *   holds it, and one not renewed for LEASE_EXPIRY_MS counts as dead (that machine is gone, or its
 *   RTE died) and is swept like a dead pid's. An eviction (requirements-evict.ts)
 *   removes an entry only under its `<key>.lock` (so never one being installed), by renaming it to
 *   a trash name first and then looking for holders: found one, it renames the entry back. Either
 *   the holder's look came after the rename (it found nothing and installs anew) or its lease was
 *   there to be seen. Trash folders of dead processes are removed at start, as staging ones.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { copyTree, CopyOverBudget } from "./copy-tree";
import { formatBytes, removeTree } from "./disk-usage";
import { ensureOwnedDir } from "./private-fs";

const LOCK_POLL_MS = 500;
/** How often a holder renews the mtime of its lease files: what tells other machines it is alive. */
const LEASE_RENEW_MS = 10 * 60_000;
/**
 * A lease of another machine not renewed for this long is a dead holder's: five renewals missed,
 * room for a stalled NFS server and for the clocks of the machines sharing the folder (they set
 * and read the mtime) to differ by minutes.
 */
export const LEASE_EXPIRY_MS = 60 * 60_000;
/** A failure record is read by the waiters of its attempt within a poll (LOCK_POLL_MS): then it is litter. */
const FAILURE_RECORD_MS = 10 * 60_000;
const INSTALLED_FILE = "installed.json";
const KEY_NAME = /^[0-9a-f]{64}$/;

export class InstallCancelled extends Error {}

/** The install of another runner process that this job waited for failed: its message. */
export class InstallFailedElsewhere extends Error {}

export interface CacheEntry {
  folder: string;
  collections: string;
  roles: string;
  /** A requirements.txt's virtual environment (`<entry>/venv`; there only in such an entry). */
  venv: string;
  /** What the install recorded with the entry (ObtainOptions.install's `details`). */
  details: Record<string, unknown>;
  /** When it was installed. */
  since: Date;
  /** Whether this job installed it (false: it was there, or another job or process installed it). */
  installed: boolean;
}

export interface ObtainOptions {
  /**
   * Installs into a folder and returns it (a folder of the job's, on any file system), with
   * details kept in the entry's record (how to use it). Throws to fail the job; the folder is
   * then left to the job's cleanup.
   */
  install: () => Promise<string | { folder: string; details: Record<string, unknown> }>;
  /** A runner line of the job's output. */
  say: (line: string) => void;
  /** Checked while waiting for another's install: true ends the wait (InstallCancelled). */
  cancelled: () => boolean;
  /**
   * RTE_REQUIREMENTS_INSTALL_MAX_BYTES (null: none): also the most the copy into the cache may
   * take, which can be far more than the install measured (sparse files, hard links: copy-tree.ts).
   */
  maxBytes?: number | null;
}

/** How an install of this process ended, as the jobs that waited for it see it. */
type Attempt = { ok: true } | { ok: false; error: unknown; cancelled: boolean };

interface LockHolder {
  pid: number;
  host: string;
  since: number;
  /** Names this holding of the lock (its failure record's name); absent in locks of older RTEs. */
  attempt?: string;
}

/** What `<key>.failed-<attempt>` holds. */
interface FailureRecord {
  attempt: string;
  host: string;
  pid: number;
  at: string;
  message: string;
}

/** A lock this process holds: its attempt, and its release. */
interface HeldLock {
  attempt: string;
  release: () => void;
}

export class RequirementsCache {
  private readonly inFlight = new Map<string, Promise<Attempt>>();
  /** Jobs of this process using each key (hold, release). */
  private readonly uses = new Map<string, number>();
  /** Renews the leases of `uses` (LEASE_RENEW_MS) while there are any. */
  private renewal: NodeJS.Timeout | null = null;

  constructor(
    readonly dir: string,
    /** How long a lock may be held before it counts as stale (the install timeout and a margin). */
    private readonly staleLockMs: number,
  ) {
    ensureOwnedDir(dir, 0o711);
    for (const name of fs.readdirSync(dir)) {
      const leftover = /^\.(?:staging|trash)-(.+)-(\d+)-[0-9a-f]+$/.exec(name);
      if (leftover && leftover[1] === os.hostname() && !alive(Number(leftover[2]))) {
        fs.rmSync(path.join(dir, name), { recursive: true, force: true });
      }
    }
    this.sweep(true);
  }

  /** The installed entries: key and last use (the folder's mtime). */
  entries(): { key: string; lastUse: Date }[] {
    const found: { key: string; lastUse: Date }[] = [];
    for (const entry of fs.readdirSync(this.dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || !KEY_NAME.test(entry.name)) continue;
      try {
        found.push({ key: entry.name, lastUse: fs.statSync(this.folder(entry.name)).mtime });
      } catch {
        // Removed meanwhile.
      }
    }
    return found;
  }

  /**
   * Marks `key` in use by a job of this process until release(key): no eviction removes it
   * meanwhile. obtain() holds it (before it looks the entry up); the job releases it when its
   * playbook has ended, or obtain() does when it throws.
   */
  private hold(key: string): void {
    const count = this.uses.get(key) ?? 0;
    if (count === 0) fs.writeFileSync(this.leaseFile(key), "", { mode: 0o600 });
    this.uses.set(key, count + 1);
    if (this.renewal === null) {
      this.renewal = setInterval(() => this.renewLeases(), LEASE_RENEW_MS);
      this.renewal.unref();
    }
  }

  /**
   * Renews the mtime of every lease this process holds (LEASE_EXPIRY_MS). A lease that is gone was
   * swept by a machine that took this one for dead (renewals stalled past the expiry): made again,
   * so the entry is held from now on. Never throws: a renewal that fails (the file system is away)
   * is tried again on the next tick, well within the expiry.
   */
  private renewLeases(): void {
    const now = new Date();
    for (const key of this.uses.keys()) {
      const file = this.leaseFile(key);
      try {
        try {
          fs.utimesSync(file, now, now);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
          fs.writeFileSync(file, "", { mode: 0o600 });
        }
      } catch {
        // The next tick tries again.
      }
    }
  }

  /**
   * The entry of `key` if it is installed, held for the caller (release(key) once done), else
   * null (and not held): for what uses requirements without installing them (an inventory listing).
   */
  use(key: string): CacheEntry | null {
    this.hold(key);
    const entry = this.lookUp(key);
    if (!entry) this.release(key);
    return entry;
  }

  /** Ends a use of `key` that obtain() or use() began (see hold). */
  release(key: string): void {
    const count = this.uses.get(key) ?? 0;
    if (count <= 1) {
      this.uses.delete(key);
      fs.rmSync(this.leaseFile(key), { force: true });
      if (this.uses.size === 0 && this.renewal !== null) {
        clearInterval(this.renewal);
        this.renewal = null;
      }
    } else this.uses.set(key, count - 1);
  }

  private leaseFile(key: string): string {
    return path.join(this.dir, `${key}.use-${os.hostname()}-${process.pid}`);
  }

  /** Whether a job of any process uses `key`: this process's count, or a living holder's lease (leaseAlive). */
  private inUse(key: string): boolean {
    if (this.uses.has(key)) return true;
    const prefix = `${key}.use-`;
    return fs.readdirSync(this.dir).some((name) => name.startsWith(prefix) && leaseAlive(this.dir, name, name.slice(prefix.length)));
  }

  /**
   * Removes the leases of dead holders (leaseAlive) and the failure records older than
   * FAILURE_RECORD_MS: at start and at each eviction pass. At start also the leases naming this
   * very process: a restarted container's RTE often has the pid of the one before it, whose
   * leases would otherwise look alive for good.
   */
  sweep(atStart = false): void {
    const own = `${os.hostname()}-${process.pid}`;
    for (const name of fs.readdirSync(this.dir)) {
      const lease = /^[0-9a-f]{64}\.use-(.+)$/.exec(name);
      if (lease && ((atStart && lease[1] === own) || !leaseAlive(this.dir, name, lease[1]!))) {
        fs.rmSync(path.join(this.dir, name), { force: true });
      }
      if (/^[0-9a-f]{64}\.failed-[0-9a-f]+$/.test(name)) removeIfOlder(path.join(this.dir, name), FAILURE_RECORD_MS);
    }
  }

  /**
   * Takes the entry of `key` out of the cache, unless a job uses it or it is being installed: its
   * folder, renamed to a trash name for the caller to remove (off the event loop), or why not.
   * See the header for why the rename comes before the look for holders.
   */
  takeOut(key: string): { trash: string } | { busy: "in use" | "being installed" | "gone" } {
    if (this.uses.has(key) || this.inFlight.has(key)) return { busy: "in use" };
    const lock = this.tryLock(key);
    if (!lock) return { busy: "being installed" };
    try {
      const trash = path.join(this.dir, `.trash-${os.hostname()}-${process.pid}-${randomBytes(4).toString("hex")}`);
      try {
        fs.renameSync(this.folder(key), trash);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return { busy: "gone" };
        throw error;
      }
      if (this.inUse(key)) {
        // No install can have put a new entry there meanwhile: that takes the lock held here.
        fs.renameSync(trash, this.folder(key));
        return { busy: "in use" };
      }
      return { trash };
    } finally {
      lock.release();
    }
  }

  private folder(key: string): string {
    return path.join(this.dir, key);
  }

  /** The entry of `key`, if it is installed: touched (its last use). */
  lookUp(key: string): CacheEntry | null {
    const folder = this.folder(key);
    let since: Date;
    let details: Record<string, unknown>;
    try {
      const recorded = JSON.parse(fs.readFileSync(path.join(folder, INSTALLED_FILE), "utf8")) as {
        installedAt?: string;
        details?: Record<string, unknown>;
      };
      since = new Date(recorded.installedAt ?? "");
      if (Number.isNaN(since.getTime())) return null;
      details = recorded.details ?? {};
    } catch {
      return null;
    }
    const now = new Date();
    try {
      fs.utimesSync(folder, now, now);
    } catch {
      // Last use is for a later eviction only.
    }
    return {
      folder,
      collections: path.join(folder, "collections"),
      roles: path.join(folder, "roles"),
      venv: path.join(folder, "venv"),
      details,
      since,
      installed: false,
    };
  }

  /**
   * The entry of `key`: the cached one, or installed once (whoever of this process asks at the same
   * time waits for it). Held for the caller, who calls release(key) once done with it.
   */
  async obtain(key: string, options: ObtainOptions): Promise<CacheEntry> {
    this.hold(key);
    try {
      return await this.obtainHeld(key, options);
    } catch (error) {
      this.release(key);
      throw error;
    }
  }

  private async obtainHeld(key: string, options: ObtainOptions): Promise<CacheEntry> {
    for (;;) {
      const cached = this.lookUp(key);
      if (cached) return cached;
      const pending = this.inFlight.get(key);
      if (!pending) break;
      options.say(`requirements: another job is installing them (key ${key.slice(0, 12)}): waiting`);
      // A cancel of this job ends its wait at once, not when the other install ends.
      const cancel = whenCancelled(options.cancelled);
      let outcome: Attempt | undefined;
      try {
        outcome = await Promise.race([pending, cancel.promise.then(() => undefined)]);
      } finally {
        cancel.stop();
      }
      if (options.cancelled()) throw new InstallCancelled("cancelled while waiting for another job's install");
      // The install it waited for failed: that is this job's failure too (the same files, the same
      // sources: trying again at once would fail again, N jobs N times). Unless that install's own
      // job was cancelled: then it says nothing of the requirements, and this job tries itself.
      if (outcome && !outcome.ok && !outcome.cancelled) {
        options.say(`requirements: the install this job waited for failed (key ${key.slice(0, 12)})`);
        throw outcome.error;
      }
    }
    const install = this.installOnce(key, options);
    // Whether the installer's job was cancelled is read when the install ends, for its waiters.
    const attempt: Promise<Attempt> = install.then(
      (): Attempt => ({ ok: true }),
      (error: unknown): Attempt => ({ ok: false, error, cancelled: error instanceof InstallCancelled || options.cancelled() }),
    );
    this.inFlight.set(key, attempt);
    try {
      return await install;
    } finally {
      this.inFlight.delete(key);
    }
  }

  private async installOnce(key: string, options: ObtainOptions): Promise<CacheEntry> {
    const lock = await this.lock(key, options);
    if (lock === "installed") return this.lookUp(key)!;
    try {
      // Installed by another process between our look and our lock.
      const cached = this.lookUp(key);
      if (cached) return cached;
      try {
        const produced = await options.install();
        const entry =
          typeof produced === "string"
            ? await this.store(key, produced, {}, options)
            : await this.store(key, produced.folder, produced.details, options);
        // Earlier attempts' records say nothing any more: their waiters that look again find the entry.
        this.removeFailures(key, 0);
        return entry;
      } catch (error) {
        // Before the lock frees: whoever sees it free and waited on this attempt finds the record.
        if (!(error instanceof InstallCancelled || options.cancelled())) this.recordFailure(key, lock.attempt, error);
        throw error;
      }
    } finally {
      lock.release();
    }
  }

  /**
   * Copies an install's folder in as the entry of `key`: staged, made the RTE's and read-only,
   * then renamed. What the copy left out (it changed under the copy: copy-tree.ts) is said in the
   * job's output.
   *
   * Copied, never renamed, with or without the sandbox (attack 9 on issue 34): the install ran a
   * form's code as the playbook user, and a renamed tree is the tree it made. Its hard links
   * (seal copied such a file by path, onto a link the install left beside it: the form's bytes
   * in a file of root's, then chowned and chmodded through the link) and its links at the names
   * the RTE writes (`installed.json`: written through as root) came with it. Without the sandbox,
   * a process left by the install may also hold a descriptor on an installed file and write
   * through it after the seal: a rename keeps the inode. The copy is made by the RTE, every file
   * anew (no hard link survives), links as links, through descriptors that never follow one
   * (copy-tree.ts); in the cache folder, the RTE's, nothing of the install can reach it. What
   * follows (the entry's own files, seal, relocateVenv) acts on that tree only. The cost is the
   * copy, at the first install of a key only (a cached launch copies nothing), asynchronous (no
   * other job waits on it): on a busy 2-core runner about 1 s for community.general (1,700
   * files, 23 MB) or pip (1,100 files, 17 MB), 38 s for every collection of the `ansible`
   * package (32,000 files, 500 MB), where the rename took under a millisecond.
   */
  private async store(
    key: string,
    produced: string,
    details: Record<string, unknown>,
    options: Pick<ObtainOptions, "say" | "maxBytes">,
  ): Promise<CacheEntry> {
    const staging = path.join(this.dir, `.staging-${os.hostname()}-${process.pid}-${randomBytes(4).toString("hex")}`);
    try {
      for (const note of await copyTree(produced, staging, { maxBytes: options.maxBytes ?? null }))
        options.say(`requirements: left out of the cache entry: ${note}`);
    } catch (error) {
      fs.rmSync(staging, { recursive: true, force: true });
      if (error instanceof CopyOverBudget) {
        throw new Error(
          `requirements: the install's files would take more than RTE_REQUIREMENTS_INSTALL_MAX_BYTES (${formatBytes(error.budget)}) of the runner's disk once copied into the cache (sparse files and hard links count in full): not taken into the cache`,
          { cause: error },
        );
      }
      // The job's folder is the job's group's to change: the install may have put a link (or
      // anything else) in place of its own folder. copyTree opens it O_NOFOLLOW: refused.
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ELOOP" || code === "ENOTDIR") {
        throw new Error(
          `the requirements install left ${path.basename(produced)} as something other than a folder (a link?): not taken into the cache`,
          { cause: error },
        );
      }
      throw error;
    }
    // Through descriptors as well: without the sandbox a process of the install's user the
    // leftover search missed may still rename in the job's folder.
    await removeTree(produced).catch(() => undefined);
    try {
      writeEntryFiles(staging, { key, installedAt: new Date().toISOString(), details });
      seal(staging);
      // After seal: the files are the RTE's now, nothing of the install can swap them meanwhile.
      relocateVenv(path.join(staging, "venv"), path.join(produced, "venv"), path.join(this.folder(key), "venv"));
      fs.renameSync(staging, this.folder(key));
    } catch (error) {
      fs.rmSync(staging, { recursive: true, force: true });
      throw error;
    }
    const entry = this.lookUp(key);
    if (!entry) throw new Error(`the requirements cache entry ${this.folder(key)} cannot be read back`);
    return { ...entry, installed: true };
  }

  private failureFile(key: string, attempt: string): string {
    return path.join(this.dir, `${key}.failed-${attempt}`);
  }

  /**
   * Leaves the failure of `attempt` for the processes waiting on its lock (see the header):
   * written whole under a staging name (0600: the message may name the form's files) and renamed.
   * Never throws: without the record its waiters install again, as before.
   */
  private recordFailure(key: string, attempt: string, error: unknown): void {
    const record: FailureRecord = {
      attempt,
      host: os.hostname(),
      pid: process.pid,
      at: new Date().toISOString(),
      message: error instanceof Error ? error.message : String(error),
    };
    const staging = path.join(this.dir, `.staging-${os.hostname()}-${process.pid}-${randomBytes(4).toString("hex")}`);
    try {
      fs.writeFileSync(staging, JSON.stringify(record), { mode: 0o600, flag: "wx" });
      fs.renameSync(staging, this.failureFile(key, attempt));
    } catch {
      fs.rmSync(staging, { force: true });
    }
    this.removeFailures(key, FAILURE_RECORD_MS);
  }

  /** Removes the failure records of `key` older than `ms`. Never throws: they are litter only. */
  private removeFailures(key: string, ms: number): void {
    const prefix = `${key}.failed-`;
    try {
      for (const name of fs.readdirSync(this.dir)) {
        if (name.startsWith(prefix)) removeIfOlder(path.join(this.dir, name), ms);
      }
    } catch {
      // The sweep removes them.
    }
  }

  /** The failure record of one of `attempts` of `key`, if one failed. */
  private failureOf(key: string, attempts: ReadonlySet<string>): FailureRecord | null {
    for (const attempt of attempts) {
      try {
        const record = JSON.parse(fs.readFileSync(this.failureFile(key, attempt), "utf8")) as Partial<FailureRecord>;
        if (record.attempt === attempt && typeof record.message === "string") return record as FailureRecord;
      } catch {
        // No failure of this attempt (it succeeded, was cancelled, or its holder died).
      }
    }
    return null;
  }

  private sharedFailure(key: string, failure: FailureRecord, options: ObtainOptions): InstallFailedElsewhere {
    options.say(
      `requirements: the install this job waited for (another runner process, pid ${failure.pid} on ${failure.host}) failed (key ${key.slice(0, 12)})`,
    );
    return new InstallFailedElsewhere(failure.message);
  }

  /** Takes `<key>.lock` for this process if no one holds it, as a new attempt; else null. */
  private tryLock(key: string): HeldLock | null {
    const file = path.join(this.dir, `${key}.lock`);
    const attempt = randomBytes(8).toString("hex");
    try {
      const fd = fs.openSync(file, "wx", 0o600);
      fs.writeSync(fd, JSON.stringify({ pid: process.pid, host: os.hostname(), since: Date.now(), attempt } satisfies LockHolder));
      fs.closeSync(fd);
      return { attempt, release: () => fs.rmSync(file, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      return null;
    }
  }

  /**
   * Takes `<key>.lock` for this process; "installed" when the entry appeared while waiting for
   * another process's lock. Throws InstallFailedElsewhere when an attempt it waited on failed.
   */
  private async lock(key: string, options: ObtainOptions): Promise<HeldLock | "installed"> {
    const file = path.join(this.dir, `${key}.lock`);
    let said = false;
    // Every attempt seen holding the lock: the next may have taken it before this process looked.
    const waitedOn = new Set<string>();
    for (;;) {
      const lock = this.tryLock(key);
      if (lock) {
        const failure = this.failureOf(key, waitedOn);
        if (failure === null) return lock;
        lock.release();
        throw this.sharedFailure(key, failure, options);
      }
      const failure = this.failureOf(key, waitedOn);
      if (failure !== null) throw this.sharedFailure(key, failure, options);
      const holder = readHolder(file);
      if (holder?.attempt !== undefined) waitedOn.add(holder.attempt);
      const stale =
        holder === null
          ? lockAge(file) > 5_000 // written but never filled in: its writer died at once
          : (holder.host === os.hostname() && !alive(holder.pid)) || Date.now() - holder.since > this.staleLockMs;
      if (stale) {
        fs.rmSync(file, { force: true });
        continue;
      }
      if (!said && holder !== null) {
        options.say(`requirements: another runner process (pid ${holder.pid}) is installing them (key ${key.slice(0, 12)}): waiting`);
        said = true;
      }
      await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
      if (this.lookUp(key)) return "installed";
      if (options.cancelled()) throw new InstallCancelled("cancelled while waiting for another runner process's install");
    }
  }
}

/** Removes `file` if its mtime is older than `ms` (or it is gone meanwhile). */
function removeIfOlder(file: string, ms: number): void {
  try {
    if (Date.now() - fs.statSync(file).mtimeMs >= ms) fs.rmSync(file, { force: true });
  } catch {
    // Gone meanwhile.
  }
}

/** Resolves once `cancelled()` says so (polled every LOCK_POLL_MS) until stopped; never keeps the process alive. */
function whenCancelled(cancelled: () => boolean): { promise: Promise<void>; stop: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<void>((resolve) => {
    timer = setInterval(() => {
      if (cancelled()) resolve();
    }, LOCK_POLL_MS);
    timer.unref();
  });
  return { promise, stop: () => clearInterval(timer) };
}

function readHolder(file: string): LockHolder | null {
  try {
    const holder = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<LockHolder>;
    if (typeof holder.pid === "number" && typeof holder.host === "string" && typeof holder.since === "number") return holder as LockHolder;
  } catch {
    // Being written, or gone.
  }
  return null;
}

function lockAge(file: string): number {
  try {
    return Date.now() - fs.statSync(file).mtimeMs;
  } catch {
    return Infinity;
  }
}

/**
 * Whether the process a lease `name` of `dir` names (`<host>-<pid>`) may still use its entry: a
 * living pid of this machine; of another machine, which this one cannot ask, a lease renewed
 * within LEASE_EXPIRY_MS (see LEASE_RENEW_MS).
 */
function leaseAlive(dir: string, name: string, holder: string): boolean {
  const match = /^(.+)-(\d+)$/.exec(holder);
  if (!match) return false;
  if (match[1] === os.hostname()) return alive(Number(match[2]));
  try {
    return Date.now() - fs.statSync(path.join(dir, name)).mtimeMs < LEASE_EXPIRY_MS;
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Writes what the RTE adds to a staged entry: `collections/` and `roles/` (the playbook's paths
 * name them, even when the install made neither) and `installed.json` (its record). Whatever the
 * install left at those names (copied in as it was: a link, a file where a folder goes) is
 * removed first, and the record is created with O_EXCL|O_NOFOLLOW: the RTE never writes through
 * anything of the install's (attack 9 on issue 34: a link left at `installed.json` had root
 * write the record into any file of the runner). The staging folder itself is checked to be a
 * folder (lstat): it is the RTE's own copy, made in the cache folder, which only the RTE writes.
 */
function writeEntryFiles(staging: string, record: { key: string; installedAt: string; details: Record<string, unknown> }): void {
  if (!fs.lstatSync(staging).isDirectory()) throw new Error(`${staging} is not a folder`);
  for (const sub of ["collections", "roles"]) {
    const target = path.join(staging, sub);
    const st = fs.lstatSync(target, { throwIfNoEntry: false });
    if (st?.isDirectory()) continue;
    if (st) fs.rmSync(target, { recursive: true, force: true });
    fs.mkdirSync(target);
  }
  const file = path.join(staging, INSTALLED_FILE);
  fs.rmSync(file, { recursive: true, force: true });
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
  const fd = fs.openSync(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644);
  try {
    fs.writeFileSync(fd, JSON.stringify(record));
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Makes an installed tree the RTE's and read-only for every other user: folders 0755, files 0644
 * (0755 when executable), no set-id or sticky bit (a set-uid file of root's would be a way up for
 * any playbook). A file with other hard links is replaced by a copy: the install ran as the
 * playbook user, and a link to a file elsewhere must not hand that file to the RTE's user too.
 * What is neither file, folder nor symbolic link (a FIFO, a socket) is removed.
 */
export function seal(root: string): void {
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  const walk = (target: string) => {
    const st = fs.lstatSync(target);
    if (st.isSymbolicLink()) {
      fs.lchownSync(target, uid, gid);
    } else if (st.isDirectory()) {
      fs.chownSync(target, uid, gid);
      fs.chmodSync(target, 0o755);
      for (const name of fs.readdirSync(target)) walk(path.join(target, name));
    } else if (st.isFile()) {
      if (st.nlink > 1) {
        // Never met in an entry (store copies every file anew), kept for any other tree sealed: a
        // name of its own, created exclusively (COPYFILE_EXCL: O_EXCL, so no link at that name is
        // followed).
        const copy = `${target}.playform-copy-${randomBytes(4).toString("hex")}`;
        fs.copyFileSync(target, copy, fs.constants.COPYFILE_EXCL);
        fs.renameSync(copy, target);
      }
      fs.chownSync(target, uid, gid);
      fs.chmodSync(target, st.mode & 0o111 ? 0o755 : 0o644);
    } else {
      fs.rmSync(target, { force: true });
    }
  };
  walk(root);
}

/**
 * A virtual environment names its own absolute path: in the shebang of every script of its bin/
 * (pip, and the console scripts of what pip installed) and in its activate scripts. It is built in
 * the job's folder (by the playbook user, who cannot write to the cache) and so moved here: these
 * files get the entry's path instead, before the rename makes the entry visible, so a moved venv
 * is never used with a path that is gone. Its python is a link to the environment's own (an
 * absolute path that does not move), and pyvenv.cfg names only that. Regular files of bin/ only:
 * links stay as they are. Bytecode keeps the old path in tracebacks only.
 */
export function relocateVenv(venv: string, from: string, to: string): void {
  const bin = path.join(venv, "bin");
  if (from === to || !fs.existsSync(path.join(venv, "pyvenv.cfg"))) return;
  // Real folders only: a `venv` or `bin` the install left as a link would lead the rewrite below
  // (as root) to files elsewhere.
  if (!fs.lstatSync(venv).isDirectory() || !fs.lstatSync(bin, { throwIfNoEntry: false })?.isDirectory()) return;
  const old = Buffer.from(from);
  for (const name of fs.readdirSync(bin)) {
    const file = path.join(bin, name);
    const st = fs.lstatSync(file);
    if (!st.isFile() || st.size > 1024 * 1024) continue;
    const bytes = fs.readFileSync(file);
    if (bytes.indexOf(old) === -1) continue;
    fs.writeFileSync(file, bytes.toString("latin1").split(from).join(to), { encoding: "latin1" });
  }
}
