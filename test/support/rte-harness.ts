/**
 * A real Playform app plus RTE processes a test starts, disturbs and kills itself: the
 * production bundle (`node dist/rte.js`), real ansible-playbook, the app's SQLite file.
 *
 * The app keeps its local RTE; the test inserts a runner of its own (name and token only the
 * test knows) that the fixture forms name with `runner:`, so their jobs go to RTE processes
 * the test controls.
 */
import Database from "better-sqlite3";
import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { defaultJobsDir } from "../../server/rte/env";
import { apiClient, type ApiClient } from "./api";
import { adminToken, startPlayform, type RunningPlayform } from "./playform";

export const ROOT = path.resolve(import.meta.dirname, "../..");

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface RteProcess {
  instanceId: string;
  pid: number;
  child: ChildProcess;
  spoolDir: string;
  workDir: string;
  output(): string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface StoredChunk {
  seq: number;
  kind: string;
  text: string | null;
  data: string | null;
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie has ended; it only waits for its parent to collect its status.
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Every process (not a zombie) whose process group is `pgid`. */
export function groupMembers(pgid: number): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid && fields[0] !== "Z") pids.push(Number(entry));
    } catch {
      // Ended while we looked.
    }
  }
  return pids;
}

/**
 * The pid, as this test sees it, of a process a playbook knows as `pid` (what `$!` printed).
 * Under bubblewrap (server/rte/sandbox.ts) a playbook runs in a pid namespace of its own, where
 * pids are not the host's: the process descending from the RTE whose innermost pid
 * (/proc/PID/status NSpid) is `pid`; null while there is none (callers wait). Ancestry is read
 * upwards (ppid), which stays true while the playbook's processes exit and are re-parented.
 */
export function hostPid(rtePid: number, pid: number): number | null {
  const field = (target: number, name: string): number[] => {
    try {
      const line = new RegExp(`^${name}:\\s+(.*)$`, "m").exec(fs.readFileSync(`/proc/${target}/status`, "utf8"))?.[1];
      return line ? line.trim().split(/\s+/).map(Number) : [];
    } catch {
      return []; // Ended while we looked.
    }
  };
  const descends = (target: number): boolean => {
    for (let current = target, hops = 0; current > 1 && hops < 100; hops++) {
      if (current === rtePid) return true;
      current = field(current, "PPid")[0] ?? 0;
    }
    return false;
  };
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const nspid = field(Number(entry), "NSpid");
    if (nspid.length > 1 && nspid.at(-1) === pid && descends(Number(entry))) return Number(entry);
  }
  return null;
}

/** Direct children of a process (an RTE's ansible-playbook runs, each leading its own group). */
export function childPids(parent: number): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) === parent && fields[0] !== "Z") pids.push(Number(entry));
    } catch {
      // Ended while we looked.
    }
  }
  return pids;
}

export class RteHarness {
  app!: RunningPlayform;
  api!: ApiClient;
  runnerToken = `pfr_${randomBytes(32).toString("base64url")}`;
  scratch = "";
  readonly rtes: RteProcess[] = [];
  readonly proxies: CuttableProxy[] = [];
  /** Process groups to kill at the end whatever happened (a test that failed half-way). */
  readonly strayGroups = new Set<number>();

  constructor(
    private readonly formsDir: string,
    private readonly runnerName: string,
  ) {}

  async start(): Promise<void> {
    this.scratch = fs.mkdtempSync(path.join(os.tmpdir(), `playform-${this.runnerName}-`));
    // Playbooks write their pid files and read their gates here, as the playbook user (the RTE
    // runs them as playform-run when it is root): open to every user, like /tmp.
    fs.chmodSync(this.scratch, 0o1777);
    this.app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: this.formsDir } });
    await this.app.waitForOutput(/imported \d+ form\(s\)/);
    this.api = apiClient(this.app, await adminToken(this.app));
    const now = new Date().toISOString().replace("Z", "+00:00");
    this.withDb((db) => {
      db.prepare(
        'INSERT INTO "Runner" ("id", "name", "status", "tokenHash", "isDefault", "mode", "capacity", "createdAt", "decidedAt") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ).run(
        randomUUID(),
        this.runnerName,
        "approved",
        createHash("sha256").update(this.runnerToken).digest("hex"),
        0,
        "outbound",
        4,
        now,
        now,
      );
    }, false);
  }

  /** Kills every RTE and playbook this test started. */
  async cleanUp(): Promise<void> {
    const rtes = this.rtes.splice(0);
    await Promise.all(rtes.map((rte) => this.kill(rte, { groups: true })));
    // A killed RTE leaves its jobs folder (in the temp folder, not in scratch) with its lock.
    for (const rte of rtes) fs.rmSync(defaultJobsDir(rte.workDir), { recursive: true, force: true });
    await Promise.all(this.proxies.splice(0).map((proxy) => proxy.close()));
    for (const group of this.strayGroups) {
      // kill(-0) and kill(-1) would be this process's own group and every process: never.
      if (!(group > 1)) continue;
      try {
        process.kill(-group, "SIGKILL");
      } catch {
        // Gone.
      }
    }
    this.strayGroups.clear();
  }

  async stop(): Promise<void> {
    await this.cleanUp();
    await this.app?.stop();
    if (this.scratch) fs.rmSync(this.scratch, { recursive: true, force: true });
  }

  dirs(name: string): { spoolDir: string; workDir: string } {
    return { spoolDir: path.join(this.scratch, name, "spool"), workDir: path.join(this.scratch, name, "work") };
  }

  startRte(opts: { instanceId: string; spoolDir: string; workDir: string; appUrl?: string; env?: Record<string, string> }): RteProcess {
    let output = "";
    const child = spawn(process.execPath, ["dist/rte.js"], {
      cwd: ROOT,
      // A clean environment: only what ansible-playbook needs plus the RTE's own settings.
      env: {
        NODE_ENV: "production",
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: process.env.HOME ?? os.tmpdir(),
        LANG: "C.UTF-8",
        APP_URL: opts.appUrl ?? this.app.url,
        RTE_TOKEN: this.runnerToken,
        RTE_INSTANCE_ID: opts.instanceId,
        PORT: "0",
        RTE_SPOOL_PATH: opts.spoolDir,
        RTE_WORK_DIR: opts.workDir,
        RTE_STATE_PATH: path.join(opts.workDir, "..", "state"),
        // The tests hand gates and pid files to their playbooks through a scratch folder in
        // /tmp, which a playbook's private /tmp would hide (job-disk.test.ts proves that one).
        RTE_PLAYBOOK_PRIVATE_TMP: "off",
        ...opts.env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const append = (data: Buffer) => {
      output += data.toString("utf8");
      if (process.env.PLAYFORM_TEST_VERBOSE) process.stdout.write(`[${opts.instanceId}] ${data.toString("utf8")}`);
    };
    child.stdout!.on("data", append);
    child.stderr!.on("data", append);
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.once("exit", (code, signal) => resolve({ code, signal }));
    });
    const rte: RteProcess = {
      instanceId: opts.instanceId,
      pid: child.pid!,
      child,
      spoolDir: opts.spoolDir,
      workDir: opts.workDir,
      output: () => output,
      exit,
    };
    this.rtes.push(rte);
    return rte;
  }

  /** SIGKILL an RTE; with groups, also the process groups of the playbooks it started. */
  async kill(rte: RteProcess, opts: { groups: boolean }): Promise<number[]> {
    const groups = childPids(rte.pid);
    if (rte.child.exitCode === null && rte.child.signalCode === null) rte.child.kill("SIGKILL");
    if (opts.groups) {
      for (const group of groups) {
        try {
          process.kill(-group, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
    } else {
      for (const group of groups) this.strayGroups.add(group);
    }
    await rte.exit;
    return groups;
  }

  async waitUntil<T>(
    what: string,
    probe: () => T | null | undefined | false | Promise<T | null | undefined | false>,
    timeoutMs: number,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value) return value;
      if (Date.now() > deadline) {
        throw new Error(
          `timed out after ${timeoutMs} ms waiting for ${what}\n--- app output ---\n${this.app.output()}\n` +
            this.rtes.map((r) => `--- RTE ${r.instanceId} (pid ${r.pid}) ---\n${r.output()}`).join("\n"),
        );
      }
      await sleep(100);
    }
  }

  waitForRteOutput(rte: RteProcess, pattern: RegExp, timeoutMs = 20_000): Promise<true> {
    return this.waitUntil(`RTE ${rte.instanceId} to print ${pattern}`, () => pattern.test(rte.output()) || null, timeoutMs);
  }

  withDb<T>(use: (db: Database.Database) => T, readonly = true): T {
    // better-sqlite3 reads the -wal file too: what the app wrote is visible before a checkpoint.
    const db = new Database(path.join(this.app.dataDir, "playform.db"), { readonly, fileMustExist: true });
    db.pragma("busy_timeout = 5000");
    try {
      return use(db);
    } finally {
      db.close();
    }
  }

  storedChunks(jobId: number): StoredChunk[] {
    return this.withDb(
      (db) => db.prepare('SELECT seq, kind, text, data FROM "JobChunk" WHERE "jobId" = ? ORDER BY seq').all(jobId) as StoredChunk[],
    );
  }

  appPort(): number {
    return Number(new URL(this.app.url).port);
  }

  proxy(): CuttableProxy {
    const proxy = new CuttableProxy(this.appPort());
    this.proxies.push(proxy);
    return proxy;
  }
}

/** A TCP proxy between an RTE and the app that can cut and refuse connections. */
export class CuttableProxy {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private refusing = false;

  constructor(private readonly targetPort: number) {
    this.server = net.createServer((client) => {
      if (this.refusing) {
        client.destroy();
        return;
      }
      const upstream = net.connect(this.targetPort, "127.0.0.1");
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on("close", () => this.sockets.delete(socket));
        socket.on("error", () => undefined);
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  /** Drops every open connection and refuses new ones until restore(). */
  cut(): void {
    this.refusing = true;
    for (const socket of this.sockets) socket.destroy();
  }

  restore(): void {
    this.refusing = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
