/**
 * The RTE's "when things break" contract on real parts: the production bundle, real RTE
 * processes (`node dist/rte.js`) started and killed by this test, real ansible-playbook, the
 * app's real SQLite file.
 *
 * The app keeps its local RTE (startPlayform waits for it); the fixture form `slow-counter`
 * names its own runner, `resilience`, which this test inserts into the database with a token it
 * knows, so every job of that form goes to an RTE process this test controls.
 */
import Database from "better-sqlite3";
import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

const ROOT = path.resolve(import.meta.dirname, "../..");
const FORMS_DIR = path.join(ROOT, "test/fixtures/forms");
const RUNNER_NAME = "resilience";
const LINES = 8;

let app: RunningPlayform;
let apiToken: string;
let runnerToken: string;
let scratch: string;
const rtes: RteProcess[] = [];
const proxies: CuttableProxy[] = [];

// ---------------------------------------------------------------------------------------------
// Helpers: time, the API, the database
// ---------------------------------------------------------------------------------------------

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil<T>(
  what: string,
  probe: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}\n--- app output ---\n${app.output()}\n${rtes.map((r) => `--- RTE ${r.instanceId} (pid ${r.pid}) ---\n${r.output()}`).join("\n")}`,
      );
    await sleep(200);
  }
}

interface JobView {
  id: number;
  status: string;
  statusReason: string | null;
  exitCode: number | null;
  lastSeq: number;
}

async function api(method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${app.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${apiToken}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

async function launchSlowCounter(): Promise<number> {
  const launch = await api("POST", "/api/jobs", { form: "slow-counter", values: {} });
  expect(launch.status, JSON.stringify(launch.body)).toBe(201);
  return launch.body.id as number;
}

async function getJob(id: number): Promise<JobView> {
  const { status, body } = await api("GET", `/api/jobs/${id}`);
  expect(status).toBe(200);
  return body.job as JobView;
}

const FINAL = ["success", "failed", "aborted", "abandoned"];

function waitForEnd(id: number, timeoutMs: number): Promise<JobView> {
  return waitUntil(
    `job ${id} to end`,
    async () => {
      const job = await getJob(id);
      return FINAL.includes(job.status) ? job : null;
    },
    timeoutMs,
  );
}

function withDb<T>(use: (db: Database.Database) => T, readonly = true): T {
  const db = new Database(path.join(app.dataDir, "playform.db"), { readonly, fileMustExist: true });
  db.pragma("busy_timeout = 5000");
  try {
    return use(db);
  } finally {
    db.close();
  }
}

interface StoredChunk {
  seq: number;
  kind: string;
  text: string | null;
}

function storedChunks(jobId: number): StoredChunk[] {
  return withDb((db) => db.prepare('SELECT seq, kind, text FROM "JobChunk" WHERE "jobId" = ? ORDER BY seq').all(jobId) as StoredChunk[]);
}

function storedOutput(jobId: number): string {
  return storedChunks(jobId)
    .filter((c) => c.kind === "output")
    .map((c) => c.text ?? "")
    .join("");
}

const counterLine = (n: number) => `slow-counter line ${n} of ${LINES}`;

function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

/** Every numbered line of the playbook, and how often the stored output holds it. */
function counterLineCounts(jobId: number): number[] {
  const output = storedOutput(jobId);
  return Array.from({ length: LINES }, (_, i) => occurrences(output, counterLine(i + 1)));
}

/** Waits until the playbook's n-th numbered line is stored; fails at once if the job ended before. */
function waitForCounterLine(id: number, n: number): Promise<true> {
  return waitUntil(
    `numbered line ${n} of job ${id} to be stored`,
    async () => {
      if (storedOutput(id).includes(counterLine(n))) return true;
      const job = await getJob(id);
      if (FINAL.includes(job.status)) {
        throw new Error(
          `job ${id} ended ${job.status} (${job.statusReason}) before line ${n}; stored items:\n${JSON.stringify(storedChunks(id), null, 1)}`,
        );
      }
      return null;
    },
    45_000,
  );
}

const oneToN = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

// ---------------------------------------------------------------------------------------------
// Helpers: RTE processes and their playbooks
// ---------------------------------------------------------------------------------------------

interface RteProcess {
  instanceId: string;
  pid: number;
  child: ChildProcess;
  output(): string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startRte(opts: { instanceId: string; appUrl: string; token: string; spoolDir: string; workDir: string }): RteProcess {
  let output = "";
  const child = spawn(process.execPath, ["dist/rte.js"], {
    cwd: ROOT,
    // A clean environment: only what ansible-playbook needs plus the RTE's own settings.
    env: {
      NODE_ENV: "production",
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? os.tmpdir(),
      LANG: "C.UTF-8",
      APP_URL: opts.appUrl,
      RTE_TOKEN: opts.token,
      RTE_INSTANCE_ID: opts.instanceId,
      PORT: "0",
      RTE_SPOOL_PATH: opts.spoolDir,
      RTE_WORK_DIR: opts.workDir,
      RTE_STATE_PATH: path.join(opts.workDir, "..", "state"),
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
  const rte: RteProcess = { instanceId: opts.instanceId, pid: child.pid!, child, output: () => output, exit };
  rtes.push(rte);
  return rte;
}

function isRunning(rte: RteProcess): boolean {
  return rte.child.exitCode === null && rte.child.signalCode === null;
}

/** Direct children of a process (the RTE's ansible-playbook runs, each leading its own group). */
function childPids(parent: number): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the command name, which is in parentheses and may contain spaces.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) === parent) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGKILL an RTE and the process groups of the playbooks it started (detached, own group). */
async function killRte(rte: RteProcess): Promise<number[]> {
  const groups = childPids(rte.pid);
  if (isRunning(rte)) rte.child.kill("SIGKILL");
  for (const group of groups) {
    try {
      process.kill(-group, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  await rte.exit;
  return groups;
}

function healthPort(rte: RteProcess): Promise<number> {
  return waitUntil(
    `RTE ${rte.instanceId} health port`,
    () => {
      const match = /health endpoints on port (\d+)/.exec(rte.output());
      return match ? Number(match[1]) : null;
    },
    15_000,
  );
}

function waitForRteOutput(rte: RteProcess, pattern: RegExp, timeoutMs = 20_000, count = 1): Promise<true> {
  const global = new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`);
  return waitUntil(
    `RTE ${rte.instanceId} to print ${pattern} (${count}x)`,
    () => (rte.output().match(global)?.length ?? 0) >= count || null,
    timeoutMs,
  );
}

// ---------------------------------------------------------------------------------------------
// A TCP proxy between an RTE and the app that can cut and refuse connections
// ---------------------------------------------------------------------------------------------

class CuttableProxy {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private refusing = false;
  port = 0;

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
    proxies.push(this);
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return `http://127.0.0.1:${this.port}`;
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

function appPort(): number {
  return Number(new URL(app.url).port);
}

function freshDirs(name: string): { spoolDir: string; workDir: string } {
  const spoolDir = path.join(scratch, name, "spool");
  const workDir = path.join(scratch, name, "work");
  fs.mkdirSync(spoolDir, { recursive: true });
  fs.mkdirSync(workDir, { recursive: true });
  return { spoolDir, workDir };
}

/** Seqs in the RTE's on-disk spool for a job, and its acknowledged watermark. */
function spoolOnDisk(spoolDir: string, jobId: number): { seqs: number[]; acked: number } {
  const dir = path.join(spoolDir, String(jobId));
  const seqs = fs
    .readFileSync(path.join(dir, "items.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .flatMap((line) => {
      try {
        return [(JSON.parse(line) as { seq: number }).seq];
      } catch {
        return [];
      }
    });
  const ackedFile = path.join(dir, "acked");
  return { seqs, acked: fs.existsSync(ackedFile) ? Number(fs.readFileSync(ackedFile, "utf8")) : 0 };
}

// ---------------------------------------------------------------------------------------------
// Set-up and clean-up
// ---------------------------------------------------------------------------------------------

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "playform-resilience-"));
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: FORMS_DIR } });
  await app.waitForOutput(/imported \d+ form\(s\)/);
  apiToken = await adminToken(app);
  // An approved runner whose token only this test knows (the app stores its SHA-256 only).
  runnerToken = `pfr_${randomBytes(32).toString("base64url")}`;
  const now = new Date().toISOString().replace("Z", "+00:00");
  withDb((db) => {
    db.prepare(
      'INSERT INTO "Runner" ("id", "name", "status", "tokenHash", "isDefault", "mode", "capacity", "createdAt", "decidedAt") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(randomUUID(), RUNNER_NAME, "approved", createHash("sha256").update(runnerToken).digest("hex"), 0, "outbound", 4, now, now);
  }, false);
});

afterEach(async () => {
  // Every RTE and playbook this test started goes, even when the test failed half-way.
  await Promise.all(rtes.splice(0).map((rte) => killRte(rte)));
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
});

afterAll(async () => {
  await Promise.all(rtes.splice(0).map((rte) => killRte(rte)));
  await app?.stop();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------------

describe("RTE resilience", () => {
  it("loses nothing and stores nothing twice when the socket drops while a playbook runs", async () => {
    const proxy = new CuttableProxy(appPort());
    const rte = startRte({ instanceId: "res-a", appUrl: await proxy.listen(), token: runnerToken, ...freshDirs("a") });
    await waitForRteOutput(rte, /connected to http/);

    const id = await launchSlowCounter();
    await waitForCounterLine(id, 2);

    proxy.cut();
    await waitForRteOutput(rte, /disconnected \(/);
    await sleep(3_000);
    // The playbook kept running while the app could not hear from it, and its output waits
    // in the spool.
    expect((await getJob(id)).status).toBe("running");
    const metrics = await (await fetch(`http://127.0.0.1:${await healthPort(rte)}/metrics`)).text();
    expect(metrics).toContain("playform_rte_connected 0\n");
    expect(metrics).toContain("playform_rte_jobs_running 1\n");
    expect(Number(/^playform_rte_spool_items (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
    const storedDuringCut = storedOutput(id);
    proxy.restore();

    const job = await waitForEnd(id, 60_000);
    expect(job.status).toBe("success");
    expect(job.exitCode).toBe(0);
    // The RTE came back on the same process (no restart) and resent what the app had not stored.
    expect(rte.output().match(/connected to http/g)).toHaveLength(2);
    expect(isRunning(rte)).toBe(true);
    expect(storedDuringCut).not.toContain(counterLine(LINES));

    expect(counterLineCounts(id)).toEqual(Array(LINES).fill(1));
    const chunks = storedChunks(id);
    expect(chunks.map((c) => c.seq)).toEqual(oneToN(chunks.length));
    expect(chunks[0]!.kind).toBe("start");
    expect(chunks.at(-1)!.kind).toBe("end");
    expect(chunks.filter((c) => c.kind === "end")).toHaveLength(1);
    expect(job.lastSeq).toBe(chunks.length);
    expect(storedOutput(id)).toContain("PLAY RECAP");
  });

  it("after an RTE restart: resends what was spooled but unacknowledged, and the app abandons the lost job", async () => {
    const dirs = freshDirs("b");
    const proxy = new CuttableProxy(appPort());
    const appUrl = await proxy.listen();
    const first = startRte({ instanceId: "res-b", appUrl, token: runnerToken, ...dirs });
    await waitForRteOutput(first, /connected to http/);

    const id = await launchSlowCounter();
    await waitForCounterLine(id, 2);

    // Cut the link first, so the playbook's next lines are spooled and never acknowledged...
    proxy.cut();
    await waitUntil(
      "items spooled while the link is cut, not stored by the app",
      () => {
        const { seqs, acked } = spoolOnDisk(dirs.spoolDir, id);
        return Math.max(...seqs) > acked && Math.max(...seqs) > Math.max(0, ...storedChunks(id).map((c) => c.seq));
      },
      15_000,
    );
    // ...then kill the RTE hard, and the playbook's process group with it.
    const groups = await killRte(first);
    expect(groups).toHaveLength(1);
    await waitUntil("the playbook's process group to be gone", () => groups.every((pid) => !processAlive(pid)), 10_000);

    const onDisk = spoolOnDisk(dirs.spoolDir, id);
    const maxSpooled = Math.max(...onDisk.seqs);
    expect(onDisk.seqs).toEqual(oneToN(maxSpooled));
    const storedBefore = storedChunks(id).map((c) => c.seq);
    expect(storedBefore.length).toBeLessThan(maxSpooled);
    expect((await getJob(id)).status).toBe("running");

    proxy.restore();
    const second = startRte({ instanceId: "res-b", appUrl, token: runnerToken, ...dirs });
    await waitForRteOutput(second, new RegExp(`spool holds unacknowledged items of job\\(s\\) ${id}: they will be resent`), 15_000);
    await waitForRteOutput(second, /connected to http/);

    // Everything the first process spooled reaches the app, once, with no gap.
    await waitUntil("the spooled items to be resent and stored", () => storedChunks(id).length >= maxSpooled, 20_000);
    expect(storedChunks(id).map((c) => c.seq)).toEqual(oneToN(maxSpooled));

    // The playbook died with the first process: the app ends the job as abandoned (30 s grace
    // from dispatch, then the RTE's next state report, sent every 15 s).
    const job = await waitForEnd(id, 60_000);
    expect(job.status).toBe("abandoned");
    expect(job.statusReason).toMatch(/restarted/);
    expect(storedChunks(id).map((c) => c.seq)).toEqual(oneToN(maxSpooled));
    expect(counterLineCounts(id).every((n) => n <= 1)).toBe(true);
  });

  it("drains on SIGTERM: /ready turns 503 at once, the running job finishes, the RTE exits 0", async () => {
    const rte = startRte({ instanceId: "res-c", appUrl: app.url, token: runnerToken, ...freshDirs("c") });
    const port = await healthPort(rte);
    await waitForRteOutput(rte, /connected to http/);
    const ready = async () => {
      const response = await fetch(`http://127.0.0.1:${port}/ready`);
      return { status: response.status, body: await response.text() };
    };
    expect(await ready()).toEqual({ status: 200, body: "ready\n" });

    const id = await launchSlowCounter();
    await waitForCounterLine(id, 1);

    rte.child.kill("SIGTERM");
    const draining = await waitUntil(
      "/ready to answer 503",
      async () => {
        const answer = await ready();
        return answer.status === 503 ? answer : null;
      },
      3_000,
    );
    expect(draining).toEqual({ status: 503, body: "draining\n" });
    // Still draining: the job has not ended, the process is alive, /live still answers.
    expect((await getJob(id)).status).toBe("running");
    expect((await fetch(`http://127.0.0.1:${port}/live`)).status).toBe(200);

    const exit = await Promise.race([rte.exit, sleep(65_000).then(() => null)]);
    expect(exit).toEqual({ code: 0, signal: null });
    const job = await getJob(id);
    expect(job.status).toBe("success");
    expect(job.exitCode).toBe(0);
    expect(counterLineCounts(id)).toEqual(Array(LINES).fill(1));
    expect(storedChunks(id).map((c) => c.seq)).toEqual(oneToN(job.lastSeq));
    expect(rte.output()).toMatch(/draining: 1 job\(s\) running/);
    expect(rte.output()).toMatch(/stopped/);
    expect(app.output()).toMatch(/runner resilience instance res-c is leaving/);
  });

  it("refuses an RTE with a wrong token: it logs `unknown runner token` and never gets a job", async () => {
    const rte = startRte({
      instanceId: "res-d",
      appUrl: app.url,
      token: `pfr_${randomBytes(32).toString("base64url")}`,
      ...freshDirs("d"),
    });
    await waitForRteOutput(rte, /cannot connect to http:\/\/127\.0\.0\.1:\d+: unknown runner token/, 15_000);

    // A job for its runner finds no connected instance: it waits, queued, and is never claimed.
    const id = await launchSlowCounter();
    await sleep(4_000);
    const job = await getJob(id);
    expect(job.status).toBe("queued");
    // Visibly queued: the job says what it waits for.
    expect(job.statusReason).toBe(`waiting for runner ${RUNNER_NAME}: no instance is connected`);
    expect(rte.output()).not.toMatch(/connected to http|claimed/);
    expect(app.output()).not.toMatch(/instance res-d connected/);
    expect(isRunning(rte)).toBe(true);

    expect((await api("POST", `/api/jobs/${id}/abort`)).status).toBe(202);
    const aborted = await waitForEnd(id, 15_000);
    expect(aborted.status).toBe("aborted");
    expect(aborted.statusReason).toBe("aborted while queued");
    expect(storedChunks(id)).toEqual([]);
  });
});
