/**
 * The start command's local runtime environment: a separate RTE process (never in-process:
 * the app must not run playbooks), restarted if it dies, stopped with the app.
 *
 * Stopping drains: the RTE gets SIGTERM, lets its running jobs finish for up to
 * RTE_DRAIN_SECONDS, cancels the rest, flushes its spool through the app (which keeps serving
 * its link until it has exited) and exits. SIGKILL only follows after the RTE's own time limits
 * have all passed.
 *
 * With PLAYFORM_LOCAL_RTE_ON_STOP=keep, stopping does not touch the RTE: it runs on with its
 * jobs, in a process group of its own (so a terminal's Ctrl-C, sent to the app's group, does not
 * reach it), and the next start adopts it as below. An app restart then cancels nothing.
 *
 * The RTE outlives an app that dies (kill -9, a crash): its playbooks go on and their output
 * waits in its spool. The next start finds it by the lock on its spool and work dir, adopts it
 * instead of starting a second RTE on the same folders, and the adopted RTE reconnects by itself
 * with the token the app keeps in its state folder (the same token at every start while it still
 * matches the stored runner). Only once that RTE has exited does the app start its own.
 */
import fs from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { execa, type Result, type ResultPromise } from "execa";
import { databaseFilesDir, providerFromUrl, sqliteFilePath } from "./data/database-url";
import { RTE_OWN_VARIABLES, playbookEnvPassProblems } from "./rte/env";
import { EXIT_LOCKED, LOCK_FILE, livingHolder, type LockHolder } from "./rte/instance-lock";
import { PLAYBOOK_ENV_NAMES } from "./rte/playbook-command";
import { processInfo } from "./rte/process-group";

/** The local RTE's instance id: how a later start recognises it in a lock file. */
export const LOCAL_INSTANCE_ID = "local-0";
/** In the state folder: where a joined RTE keeps its token (server/rte/join.ts reads it there). */
const TOKEN_FILE = "token";
/**
 * After RTE_DRAIN_SECONDS and RTE_KILL_GRACE_SECONDS, what a stopping RTE may still need: the
 * wait after its SIGKILL to a stuck group (5 s), for the playbook's pipes (5 s), flushing its
 * spool (10 s), saying goodbye (2 s), and some slack for a loaded machine.
 */
const STOP_MARGIN_SECONDS = 30;
const WATCH_MS = 500;

export interface LocalRteDirs {
  spoolDir: string;
  workDir: string;
  stateDir: string;
}

/**
 * The local RTE's folders: RTE_SPOOL_PATH, RTE_WORK_DIR and RTE_STATE_PATH when set, else under
 * data/rte. The state folder defaults to the work dir's sibling, so two apps with their own work
 * dirs never share (and overwrite) one token file.
 */
export function localRteDirs(env: Readonly<Record<string, string | undefined>>): LocalRteDirs {
  const workDir = path.resolve(env.RTE_WORK_DIR || "data/rte/work");
  return {
    spoolDir: path.resolve(env.RTE_SPOOL_PATH || "data/rte/spool"),
    workDir,
    stateDir: path.resolve(env.RTE_STATE_PATH || path.join(path.dirname(workDir), "state")),
  };
}

/** The token kept from the previous start, or null. */
export function readLocalToken(stateDir: string): string | null {
  try {
    return fs.readFileSync(path.join(stateDir, TOKEN_FILE), "utf8").trim() || null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/**
 * Keeps the local runner's token where the RTE reads it: a 0600 file in a 0700 folder, written
 * by rename so a crash never leaves half a token. Never the RTE's environment: a file has an
 * owner and a mode, an environment is one more copy in /proc.
 */
export function writeLocalToken(stateDir: string, token: string): void {
  fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  if ((fs.statSync(stateDir).mode & 0o777) !== 0o700) fs.chmodSync(stateDir, 0o700);
  const file = path.join(stateDir, TOKEN_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, token + "\n", { mode: 0o600 });
  fs.renameSync(temp, file);
}

/** RTE_DRAIN_SECONDS and RTE_KILL_GRACE_SECONDS as the RTE will read them (same defaults). */
export function rteStopTimes(env: Readonly<Record<string, string | undefined>>): { drainSeconds: number; deadlineMs: number } {
  const positive = (value: string | undefined, fallback: number) => {
    const n = Number(value);
    return value !== undefined && value !== "" && Number.isInteger(n) && n > 0 ? n : fallback;
  };
  const drainSeconds = positive(env.RTE_DRAIN_SECONDS, 60);
  const graceSeconds = positive(env.RTE_KILL_GRACE_SECONDS, 10);
  return { drainSeconds, deadlineMs: (drainSeconds + graceSeconds + STOP_MARGIN_SECONDS) * 1000 };
}

/**
 * The app's files are the app's alone. Playbooks of the local RTE run on this machine (as
 * another user when the RTE is root): the SQLite database (with its -wal and -shm files) and
 * the generated encryption key are made 0600 whatever the umask created them with, and the
 * default data folder, which holds them and the local RTE's folders, 0700. A folder named in
 * DATABASE_URL is left as it is: it may be shared (/var/lib), only the files are ours.
 */
export function keepAppDataPrivate(databaseUrl: string): void {
  const tighten = (target: string, mode: number) => {
    try {
      if ((fs.statSync(target).mode & 0o777) !== mode) fs.chmodSync(target, mode);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  };
  const dir = databaseFilesDir(databaseUrl);
  if (dir === path.resolve("data")) tighten(dir, 0o700);
  tighten(path.join(dir, "encryption.key"), 0o600);
  if (providerFromUrl(databaseUrl) !== "sqlite") return;
  const file = sqliteFilePath(databaseUrl);
  if (file === ":memory:") return;
  for (const suffix of ["", "-wal", "-shm", "-journal"]) tighten(file + suffix, 0o600);
}

export interface LocalRteOptions {
  appUrl: string;
  /** False when this start issued a new token: an RTE left from before cannot reconnect with its old one. */
  tokenReused: boolean;
  /** `local-0`, or the next free `local-N` when several app nodes share a PostgreSQL database. */
  instanceId: string;
  capacity: number;
  port: number;
  /** PLAYFORM_LOCAL_RTE_ON_STOP: drain the RTE when the app stops (default), or keep it running for the next start. */
  onStop?: "drain" | "keep";
  dirs: LocalRteDirs;
  entry: string[];
  log: (line: string) => void;
}

export class LocalRte {
  private child: ResultPromise | null = null;
  /** The local RTE of a previous start that is still running: stopped with this app. */
  private adopted: LockHolder | null = null;
  private stopping = false;
  private restarts = 0;
  private wake: (() => void) | null = null;
  private supervising: Promise<void> = Promise.resolve();
  private readonly times = rteStopTimes(process.env);

  constructor(private readonly options: LocalRteOptions) {}

  start(): void {
    this.supervising = this.supervise().catch((error: unknown) => {
      this.options.log(`local RTE: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    });
  }

  private async supervise(): Promise<void> {
    while (!this.stopping) {
      const holder = this.holder();
      if (holder) {
        await this.waitForHolder(holder);
        continue;
      }
      const started = Date.now();
      const result = await this.runChild();
      if (this.stopping) return;
      // Another RTE took the folders between the check above and this child's start: wait for it.
      if (result.exitCode === EXIT_LOCKED) {
        await this.sleep(1_000);
        continue;
      }
      // One that ran for a while before it died is restarted quickly again.
      if (Date.now() - started > 60_000) this.restarts = 0;
      this.restarts++;
      const delay = Math.min(30_000, 1_000 * 2 ** Math.min(this.restarts, 5));
      this.options.log(`local RTE exited (${result.exitCode ?? result.signal}); restarting in ${delay / 1000}s`);
      await this.sleep(delay);
    }
  }

  /** A living RTE holding the local RTE's spool or work dir, if any. */
  private holder(): LockHolder | null {
    for (const dir of [this.options.dirs.spoolDir, this.options.dirs.workDir]) {
      const holder = livingHolder(path.join(dir, LOCK_FILE));
      if (holder) return holder;
    }
    return null;
  }

  private isLocalRte(holder: LockHolder): boolean {
    return holder.instanceId === LOCAL_INSTANCE_ID && holder.hostname === hostname();
  }

  /** Adopts the local RTE of a previous start (or waits for a stranger on our folders) until it exits. */
  private async waitForHolder(holder: LockHolder): Promise<void> {
    const { log } = this.options;
    if (this.isLocalRte(holder)) {
      this.adopted = holder;
      const problem = this.whyItCannotReconnect(holder);
      if (problem) {
        log(
          `local RTE pid ${holder.pid} is still running from the previous start, but ${problem}: stopping it (SIGTERM, it drains); a new one starts once it has exited`,
        );
        this.signalAdopted(holder, "SIGTERM");
      } else {
        log(`local RTE pid ${holder.pid} is still running from the previous start; it will reconnect`);
      }
    } else {
      log(
        `another RTE (instance ${holder.instanceId}, pid ${holder.pid} on ${holder.hostname}) holds the local RTE's folders ` +
          `(${this.options.dirs.spoolDir}, ${this.options.dirs.workDir}); the local RTE starts once it is gone`,
      );
    }
    while (!this.stopping && this.holder()) await this.sleep(WATCH_MS);
    if (this.stopping) return;
    this.adopted = null;
    log(`the RTE pid ${holder.pid} has exited; starting the local RTE`);
  }

  /** Why an RTE left by the previous start would never reconnect to this one, or null. */
  private whyItCannotReconnect(holder: LockHolder): string | null {
    if (!this.options.tokenReused) return "its token is no longer valid (this start issued a new one)";
    let environ: string;
    try {
      environ = fs.readFileSync(`/proc/${holder.pid}/environ`, "utf8");
    } catch {
      return null; // No /proc: trust it to find its way.
    }
    const appUrl = /(?:^|\0)APP_URL=([^\0]*)/.exec(environ)?.[1];
    return appUrl && appUrl !== this.options.appUrl ? `it connects to ${appUrl} and this app listens at ${this.options.appUrl}` : null;
  }

  /** Signals the adopted RTE, if its pid still belongs to it (not to a process that reused it). */
  private signalAdopted(holder: LockHolder, signal: NodeJS.Signals): void {
    const info = processInfo(holder.pid);
    if (info && holder.startTime && info.startTime !== holder.startTime) return;
    try {
      process.kill(holder.pid, signal);
    } catch {
      // Gone already.
    }
  }

  private adoptedAlive(holder: LockHolder): boolean {
    const info = processInfo(holder.pid);
    if (info) return !info.zombie && (!holder.startTime || info.startTime === holder.startTime);
    try {
      process.kill(holder.pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  private runChild(): Promise<Result> {
    const [command, ...args] = this.options.entry;
    const { dirs } = this.options;
    const child = execa(command!, args, {
      // Only what a runner may know (runnerEnvironment): the app's own secrets (database,
      // encryption key, admin password, PGPASSWORD...) stay with the app, as for a runner on
      // another machine.
      extendEnv: false,
      env: {
        ...runnerEnvironment(process.env),
        APP_URL: this.options.appUrl,
        RTE_INSTANCE_ID: this.options.instanceId,
        RTE_MAX_JOBS: String(this.options.capacity),
        PORT: String(this.options.port),
        RTE_SPOOL_PATH: dirs.spoolDir,
        RTE_WORK_DIR: dirs.workDir,
        // The token is read from <state>/token (writeLocalToken), never from the environment.
        RTE_STATE_PATH: dirs.stateDir,
      },
      stdin: "ignore",
      stdout: "inherit",
      stderr: "inherit",
      reject: false,
      // execa's default sends SIGKILL 5 s after a SIGTERM: that would cut the drain short.
      // stop() keeps its own, longer deadline.
      forceKillAfterDelay: false,
      // An app that dies must not take its RTE along: the next start adopts it (see above).
      cleanup: false,
      // Kept across a stop: not in the app's process group, which a terminal's Ctrl-C signals.
      detached: this.options.onStop === "keep",
    });
    this.child = child;
    return child;
  }

  /**
   * SIGTERM: the RTE drains (finishes or cancels its jobs, flushes its spool) and exits. The
   * caller keeps the app's link open until this resolves. SIGKILL only after the RTE's own limits.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    const { log } = this.options;
    const { drainSeconds, deadlineMs } = this.times;
    const child = this.child;
    if (this.options.onStop === "keep") {
      const pid = child && child.exitCode === null && child.signalCode === null ? child.pid : this.adopted?.pid;
      if (pid !== undefined) {
        log(
          `leaving the local RTE (pid ${pid}) running with its jobs (PLAYFORM_LOCAL_RTE_ON_STOP=keep): the next start adopts it; ` +
            `to stop it, send it SIGTERM (it drains for up to ${drainSeconds}s)`,
        );
      }
      // Not waiting for the supervisor: it waits for this child, which keeps running. The RTE
      // writes to the app's stdout and stderr; once the app has exited it runs on without
      // them, as after a kill -9 of the app.
      child?.unref();
      return;
    }
    if (child && child.exitCode === null && child.signalCode === null) {
      log(`stopping the local RTE (pid ${child.pid}): running jobs may finish for up to ${drainSeconds}s (RTE_DRAIN_SECONDS)`);
      child.kill("SIGTERM");
      const timer = setTimeout(() => {
        log(`the local RTE is still running ${deadlineMs / 1000}s after SIGTERM: SIGKILL`);
        child.kill("SIGKILL");
      }, deadlineMs);
      await child;
      clearTimeout(timer);
    }
    const adopted = this.adopted;
    if (adopted && this.adoptedAlive(adopted)) {
      log(
        `stopping the local RTE adopted from the previous start (pid ${adopted.pid}): running jobs may finish for up to ${drainSeconds}s`,
      );
      this.signalAdopted(adopted, "SIGTERM");
      const deadline = Date.now() + deadlineMs;
      while (this.adoptedAlive(adopted) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, WATCH_MS));
      if (this.adoptedAlive(adopted)) {
        log(`the adopted local RTE is still running ${deadlineMs / 1000}s after SIGTERM: SIGKILL`);
        this.signalAdopted(adopted, "SIGKILL");
      }
    }
    await this.supervising;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}

const LOCAL_RTE_IGNORES = new Set(["RTE_RUNNER_NAME", "RTE_MODE", "RTE_ADDRESS", "RTE_TLS_CERT", "RTE_TLS_KEY", "RTE_TOKEN"]);
/**
 * What the RTE process itself reads besides its settings (RTE_OWN_VARIABLES): its log settings,
 * the callback plugin override, Node's options and CA certificates (NODE_*), and what the
 * system gives every process (its user, shell, temp folder: os.tmpdir() places RTE_JOBS_DIR).
 */
const LOCAL_RTE_NAMES = new Set(["LOG_LEVEL", "LOG_FORMAT", "PLAYFORM_CALLBACK_DIR", "USER", "LOGNAME", "SHELL", "TMPDIR"]);

/**
 * The local RTE's environment, from the app's: an allow list, as for a runner on another
 * machine. The RTE gets its own settings (RTE_* and RTE_OWN_VARIABLES, minus the inbound
 * runner's: see below), what its playbooks may get (PLAYBOOK_ENV_NAMES, LC_*, ANSIBLE_*, and
 * the names RTE_PLAYBOOK_ENV_PASS lists) and LOCAL_RTE_NAMES; never the app's secrets
 * (DATABASE_URL, ENCRYPTION_SECRET, PLAYFORM_ADMIN_PASSWORD), nor whatever else the app was
 * started with (PGPASSWORD, a cloud's keys): the playbooks would not get them (playbookEnv),
 * and the RTE has no use for them either.
 */
export function runnerEnvironment(parent: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const passed = (parent.RTE_PLAYBOOK_ENV_PASS ?? "").split(/[\s,]+/).filter((name) => name !== "");
  // A name the RTE refuses is not handed over: the RTE stops with a message naming it.
  const allowed = new Set([
    ...PLAYBOOK_ENV_NAMES,
    ...RTE_OWN_VARIABLES,
    ...LOCAL_RTE_NAMES,
    ...passed.filter((name) => playbookEnvPassProblems([name]).length === 0),
  ]);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    // The local RTE is the app's own runner, whatever runner name the app's environment holds,
    // and connects to the app (outbound), whatever mode an inbound runner's settings there say.
    // Its token is read from its state folder, never from the environment.
    if (LOCAL_RTE_IGNORES.has(key)) continue;
    const prefixed = ["RTE_", "LC_", "ANSIBLE_", "NODE_"].some((prefix) => key.startsWith(prefix));
    if (allowed.has(key) || prefixed) env[key] = value;
  }
  return env;
}
