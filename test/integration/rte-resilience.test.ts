/**
 * The RTE's "when things break" contract on real parts: the production bundle, real RTE
 * processes (`node dist/rte.js`) started and killed by this test, real ansible-playbook, the
 * app's real SQLite file, and a proxy on the wire between an RTE and the app where a test
 * needs to cut the link, lose acknowledgements or speak differently (test/support/rte-proxy.ts).
 *
 * The app keeps its local RTE (startPlayform waits for it); the fixture forms `slow-counter`
 * and `gate` name their own runner, `resilience`, which this test inserts into the database
 * with a token it knows, so every job of those forms goes to RTE processes this test controls.
 */
import Database from "better-sqlite3";
import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { childPids, isRunningProcess, killGroup, processGroupMembers } from "../support/processes";
import { decodePacket, encodePacket, RteProxy } from "../support/rte-proxy";

const ROOT = path.resolve(import.meta.dirname, "../..");
const FORMS_DIR = path.join(ROOT, "test/fixtures/forms");
const RUNNER_NAME = "resilience";
const LINES = 14;

let app: RunningPlayform;
let apiToken: string;
let runnerToken: string;
let scratch: string;
const rtes: RteProcess[] = [];
const proxies: RteProxy[] = [];

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
  const answer = await apiClient(app, apiToken).call(method, url, body !== undefined ? { json: body } : {});
  return { status: answer.status, body: answer.json };
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

function startRte(opts: {
  instanceId: string;
  appUrl: string;
  token: string;
  spoolDir: string;
  workDir: string;
  env?: Record<string, string>;
}): RteProcess {
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
      RTE_RUNNER_NAME: RUNNER_NAME,
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
  const rte: RteProcess = { instanceId: opts.instanceId, pid: child.pid!, child, output: () => output, exit };
  rtes.push(rte);
  return rte;
}

function isRunning(rte: RteProcess): boolean {
  return rte.child.exitCode === null && rte.child.signalCode === null;
}

/** SIGKILL an RTE and the process groups of the playbooks it started (detached, own group). */
async function killRte(rte: RteProcess): Promise<number[]> {
  const groups = childPids(rte.pid);
  if (isRunning(rte)) rte.child.kill("SIGKILL");
  for (const group of groups) killGroup(group);
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
// Helpers: the wire, gates, instances
// ---------------------------------------------------------------------------------------------

function newProxy(): RteProxy {
  const created = new RteProxy(appPort());
  proxies.push(created);
  return created;
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

/** Where a gate job (fixture form `gate`) waits: it runs until openGate() creates the file. */
function gatePath(name: string): string {
  return path.join(scratch, "gates", name);
}

async function launchGate(name: string): Promise<number> {
  const launch = await api("POST", "/api/jobs", { form: "gate", values: { gate: gatePath(name) } });
  expect(launch.status, JSON.stringify(launch.body)).toBe(201);
  return launch.body.id as number;
}

function openGate(name: string): void {
  fs.writeFileSync(gatePath(name), "open\n");
}

interface DispatchRow {
  status: string;
  instanceId: string | null;
  // Dates as the SQLite file holds them.
  dispatchedAt: string | number | null;
  startedAt: string | number | null;
  finishedAt: string | number | null;
}

/** How the app dispatched a job, straight from the database. */
function dispatchOf(jobId: number): DispatchRow {
  return withDb(
    (db) =>
      db
        .prepare('SELECT status, "instanceId", "dispatchedAt", "startedAt", "finishedAt" FROM "Job" WHERE id = ?')
        .get(jobId) as DispatchRow,
  );
}

/** Waits until a job runs (claimed and started) and returns the instance it runs on. */
function waitForInstance(jobId: number): Promise<string> {
  return waitUntil(
    `job ${jobId} to run on an instance`,
    () => {
      const row = dispatchOf(jobId);
      if (FINAL.includes(row.status)) throw new Error(`job ${jobId} ended ${row.status} before it was seen running`);
      return row.status === "running" && row.instanceId;
    },
    45_000,
  );
}

async function metrics(rte: RteProcess): Promise<string> {
  // The RTE's own health port, not the app's API.
  return (await fetch(`http://127.0.0.1:${await healthPort(rte)}/metrics`)).text();
}

function metric(text: string, name: string): number {
  const escaped = name.replace(/[{}"]/g, (c) => `\\${c}`);
  const match = new RegExp(`^${escaped} (\\d+)$`, "m").exec(text);
  if (!match) throw new Error(`no metric ${name} in:\n${text}`);
  return Number(match[1]);
}

/** The sequence numbers of every job:items batch an RTE sent through a proxy for a job, in order. */
function itemBatchesSent(proxy: RteProxy, jobId: number): number[][] {
  return proxy
    .events("up", "job:items")
    .map((data) => data[1] as { jobId: number; items: { seq: number }[] })
    .filter((batch) => batch.jobId === jobId)
    .map((batch) => batch.items.map((i) => i.seq));
}

// ---------------------------------------------------------------------------------------------
// Set-up and clean-up
// ---------------------------------------------------------------------------------------------

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "playform-resilience-"));
  fs.mkdirSync(path.join(scratch, "gates"));
  // Playbooks run as the unprivileged playbook user when the RTE is root (as in CI): the gate
  // playbook must be able to see the gate files the test creates. The spools and work dirs
  // below stay the RTEs' own (0700, created by them).
  fs.chmodSync(scratch, 0o755);
  fs.chmodSync(path.join(scratch, "gates"), 0o755);
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
    const proxy = newProxy();
    const dirs = freshDirs("a");
    const rte = startRte({ instanceId: "res-a", appUrl: await proxy.listen(), token: runnerToken, ...dirs });
    await waitForRteOutput(rte, /connected to http/);

    const id = await launchSlowCounter();
    await waitForCounterLine(id, 2);

    // First the app's answers are lost on the way back while the RTE's batches still arrive:
    // the app stores the next batch, but its acknowledgement never reaches the RTE... A batch
    // stored after the drop, not merely one the spool has not marked yet: an acknowledgement
    // already past the proxy may still be on its way into the RTE's spool (a busy machine).
    proxy.dropDownstream();
    const storedAtDrop = Math.max(0, ...storedChunks(id).map((c) => c.seq));
    await waitUntil(
      "a batch the app stored after its answers stopped reaching the RTE",
      () => Math.max(0, ...storedChunks(id).map((c) => c.seq)) > storedAtDrop,
      15_000,
    );
    // ...then the link drops. From here on nothing reaches the RTE: what it holds as acknowledged
    // is final until it reconnects.
    proxy.cut();
    await waitForRteOutput(rte, /disconnected \(/);
    const ackedAtCut = spoolOnDisk(dirs.spoolDir, id).acked;
    const storedAtCut = storedChunks(id).map((c) => c.seq);
    const storedUnacked = storedAtCut.filter((seq) => seq > ackedAtCut);
    expect(storedUnacked.length).toBeGreaterThan(0);

    // The playbook keeps running while the app cannot hear from it; its output waits in the spool.
    await waitUntil(
      "the playbook's output to be spooled while the link is cut",
      () => Math.max(...spoolOnDisk(dirs.spoolDir, id).seqs) > Math.max(...storedAtCut),
      15_000,
    );
    expect((await getJob(id)).status).toBe("running");
    const during = await metrics(rte);
    expect(metric(during, "playform_rte_connected")).toBe(0);
    expect(metric(during, "playform_rte_jobs_running")).toBe(1);
    expect(metric(during, "playform_rte_spool_items")).toBeGreaterThan(0);
    const storedDuringCut = storedOutput(id);
    proxy.restore();

    const job = await waitForEnd(id, 60_000);
    expect(job.status).toBe("success");
    expect(job.exitCode).toBe(0);
    // The RTE came back on the same process (no restart) and resent everything unacknowledged,
    // including the items the app had already stored: the duplicate path really ran...
    expect(rte.output().match(/connected to http/g)).toHaveLength(2);
    expect(isRunning(rte)).toBe(true);
    expect(storedDuringCut).not.toContain(counterLine(LINES));
    const timesSent = new Map<number, number>();
    for (const seq of itemBatchesSent(proxy, id).flat()) timesSent.set(seq, (timesSent.get(seq) ?? 0) + 1);
    for (const seq of storedUnacked) expect(timesSent.get(seq), `times item ${seq} was sent`).toBeGreaterThanOrEqual(2);

    // ...and every item is stored exactly once, in order, with no gap.
    expect(counterLineCounts(id)).toEqual(Array(LINES).fill(1));
    const chunks = storedChunks(id);
    expect(chunks.map((c) => c.seq)).toEqual(oneToN(chunks.length));
    expect(chunks[0]!.kind).toBe("start");
    expect(chunks.at(-1)!.kind).toBe("end");
    expect(chunks.filter((c) => c.kind === "end")).toHaveLength(1);
    expect(job.lastSeq).toBe(chunks.length);
    expect(storedOutput(id)).toContain("PLAY RECAP");
    // The end was acknowledged: the RTE dropped the job's spool.
    await waitUntil("the job's spool to be deleted", () => !fs.existsSync(path.join(dirs.spoolDir, String(id))), 15_000);
  });

  it("after an RTE restart: resends what was spooled but unacknowledged, and the app abandons the lost job", async () => {
    const dirs = freshDirs("b");
    const proxy = newProxy();
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
    await waitUntil("the playbook's process group to be gone", () => groups.every((pid) => !isRunningProcess(pid)), 10_000);

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

  it("drain overrun: a job still running when RTE_DRAIN_SECONDS is up is cancelled, its end is delivered, the RTE exits 0", async () => {
    const dirs = freshDirs("overrun");
    const rte = startRte({ instanceId: "res-o", appUrl: app.url, token: runnerToken, ...dirs, env: { RTE_DRAIN_SECONDS: "1" } });
    await waitForRteOutput(rte, /connected to http/);
    const id = await launchGate("overrun"); // never opened: it would wait five minutes
    await waitForInstance(id);
    const [group] = await waitUntil("the playbook's process group", () => childPids(rte.pid).length > 0 && childPids(rte.pid), 30_000);
    await waitUntil("the playbook to wait at its gate", () => storedOutput(id).includes("TASK [Wait for the gate]"), 30_000);

    const signalled = Date.now();
    rte.child.kill("SIGTERM");
    const exit = await Promise.race([rte.exit, sleep(60_000).then(() => null)]);
    const took = Date.now() - signalled;
    expect(exit).toEqual({ code: 0, signal: null });
    // It waited for the drain limit before it cancelled (and then not RTE_KILL_GRACE_SECONDS
    // more: the playbook's group ends on SIGTERM).
    expect(took).toBeGreaterThanOrEqual(1_000);
    expect(rte.output()).toMatch(/draining: 1 job\(s\) running, waiting up to 1s/);
    expect(processGroupMembers(group!)).toEqual([]);

    // The cancelled job's end was flushed before the RTE left: stored once, after everything else.
    const job = await getJob(id);
    expect(job.status).toBe("aborted");
    expect(job.exitCode).not.toBe(0);
    const chunks = storedChunks(id);
    expect(chunks.map((c) => c.seq)).toEqual(oneToN(chunks.length));
    expect(chunks.at(-1)!.kind).toBe("end");
    expect(storedOutput(id)).not.toContain("gate overrun opened");
    expect(app.output()).toMatch(/runner resilience instance res-o is leaving/);
    expect(fs.existsSync(path.join(dirs.spoolDir, String(id)))).toBe(false);
  });

  it("refuses a wrong token, and a token presented under another runner's name: neither RTE gets a job", async () => {
    const stranger = startRte({
      instanceId: "res-d",
      appUrl: app.url,
      token: `pfr_${randomBytes(32).toString("base64url")}`,
      ...freshDirs("d"),
    });
    // The right token of runner `resilience`, in an RTE configured as runner `local` (say, the
    // wrong Secret mounted): the token is bound to its runner, so the app refuses it.
    const misnamed = startRte({
      instanceId: "res-m",
      appUrl: app.url,
      token: runnerToken,
      ...freshDirs("m"),
      env: { RTE_RUNNER_NAME: "local" },
    });
    await waitForRteOutput(stranger, /cannot connect to http:\/\/127\.0\.0\.1:\d+: unknown runner token/, 15_000);
    await waitForRteOutput(
      misnamed,
      /cannot connect to http:\/\/127\.0\.0\.1:\d+: this token belongs to runner \\?"resilience\\?", not \\?"local\\?"/,
      15_000,
    );

    // A job for the runner finds no connected instance: it waits, queued, and is never claimed.
    const id = await launchSlowCounter();
    // Visibly queued: once a dispatch pass has seen it, the job says what it waits for.
    const job = await waitUntil(
      `job ${id} to say what it waits for`,
      async () => {
        const current = await getJob(id);
        return current.statusReason !== null && current;
      },
      15_000,
    );
    expect(job.status).toBe("queued");
    expect(job.statusReason).toBe(`waiting for runner ${RUNNER_NAME}: no instance is connected`);
    for (const rte of [stranger, misnamed]) {
      expect(rte.output()).not.toMatch(/connected to http|claimed/);
      expect(isRunning(rte)).toBe(true);
    }
    expect(app.output()).not.toMatch(/instance res-[dm] connected/);

    expect((await api("POST", `/api/jobs/${id}/abort`)).status).toBe(202);
    const aborted = await waitForEnd(id, 15_000);
    expect(aborted.status).toBe("aborted");
    expect(aborted.statusReason).toBe("aborted while queued");
    expect(storedChunks(id)).toEqual([]);
  });

  it("dispatches to the least-loaded instance, never beyond RTE_MAX_JOBS: further jobs wait, visibly queued", async () => {
    const x = startRte({ instanceId: "res-x", appUrl: app.url, token: runnerToken, ...freshDirs("x"), env: { RTE_MAX_JOBS: "2" } });
    await waitForRteOutput(x, /connected to http/);
    // While X is the only instance, the first job goes there.
    const first = await launchGate("lb-1");
    expect(await waitForInstance(first)).toBe("res-x");

    const y = startRte({ instanceId: "res-y", appUrl: app.url, token: runnerToken, ...freshDirs("y"), env: { RTE_MAX_JOBS: "1" } });
    await waitForRteOutput(y, /connected to http/);
    await app.waitForOutput(/runner resilience instance res-y connected \(capacity 1\)/);
    // Y takes jobs once it has reported its environments (a few seconds after it connects).
    await app.waitForOutput(/runner resilience instance res-y reported its environments/);
    // X runs 1 of 2, Y 0 of 1: the next job goes to Y although X has room.
    const second = await launchGate("lb-2");
    expect(await waitForInstance(second)).toBe("res-y");
    // Y is full: the third goes to X, which is then full as well.
    const third = await launchGate("lb-3");
    expect(await waitForInstance(third)).toBe("res-x");

    // Every instance is at its RTE_MAX_JOBS: the fourth job waits, saying so, and is sent nowhere.
    const fourth = await launchGate("lb-4");
    const waiting = await waitUntil(
      `job ${fourth} to say what it waits for`,
      async () => {
        const current = await getJob(fourth);
        return current.statusReason !== null && current;
      },
      15_000,
    );
    expect(waiting.status).toBe("queued");
    expect(waiting.statusReason).toMatch(/^waiting for runner resilience/);
    expect(dispatchOf(fourth)).toMatchObject({ status: "queued", instanceId: null, dispatchedAt: null });

    // A slot frees on Y: the waiting job goes there.
    openGate("lb-2");
    expect((await waitForEnd(second, 60_000)).status).toBe("success");
    expect(await waitForInstance(fourth)).toBe("res-y");

    for (const gate of ["lb-1", "lb-3", "lb-4"]) openGate(gate);
    for (const id of [first, third, fourth]) expect((await waitForEnd(id, 60_000)).status).toBe("success");
    // Never more at once than each instance's RTE_MAX_JOBS, and never a refusal: the app knew.
    const peak = (rte: RteProcess) => Math.max(...[...rte.output().matchAll(/claimed \((\d+)\/\d+ running\)/g)].map((m) => Number(m[1])));
    expect([peak(x), peak(y)]).toEqual([2, 1]);
    expect(app.output()).not.toMatch(/not claimed by resilience/);
  });

  it("an RTE at RTE_MAX_JOBS refuses a job as full: the app puts it back and sends it again once there is room", async () => {
    // The app's view is off (here: the proxy turns the capacity the RTE announces from 1 into
    // 2), so it sends the RTE a job beyond its RTE_MAX_JOBS. The RTE itself says no.
    const proxy = newProxy();
    proxy.rewrite = (text, direction) =>
      direction === "up" && text.startsWith("40/rte,") ? text.replace(/"capacity":1([,}])/, '"capacity":2$1') : text;
    const rte = startRte({
      instanceId: "res-f",
      appUrl: await proxy.listen(),
      token: runnerToken,
      ...freshDirs("f"),
      env: { RTE_MAX_JOBS: "1" },
    });
    await waitForRteOutput(rte, /connected to http/);
    await app.waitForOutput(/runner resilience instance res-f connected \(capacity 2\)/);

    const running = await launchGate("full-1");
    await waitForInstance(running);
    const refused = await launchGate("full-2");
    await app.waitForOutput(new RegExp(`job ${refused} not claimed by resilience/res-f: runner is full \\(1/1 jobs\\)`), 30_000);
    expect(metric(await metrics(rte), 'playform_rte_jobs_total{outcome="refused"}')).toBeGreaterThanOrEqual(1);
    expect(metric(await metrics(rte), "playform_rte_jobs_running")).toBe(1);
    expect((await getJob(refused)).status).toBe("queued");

    openGate("full-1");
    expect((await waitForEnd(running, 60_000)).status).toBe("success");
    await waitForInstance(refused);
    openGate("full-2");
    expect((await waitForEnd(refused, 60_000)).status).toBe("success");
    // It started only after the first one ended.
    const at = (value: string | number | null) => new Date(value!).getTime();
    expect(at(dispatchOf(refused).startedAt)).toBeGreaterThanOrEqual(at(dispatchOf(running).finishedAt));
    expect(storedChunks(refused).map((c) => c.seq)).toEqual(oneToN(storedChunks(refused).length));
  });

  it("a claim refused for secrets that cannot be opened, or a contract mismatch, fails the job with the runner's reason", async () => {
    // The proxy changes the app's job message on its way: one byte of the sealed secrets, or
    // the contract version (an app speaking a version this RTE does not).
    const proxy = newProxy();
    let change: ((dispatch: { v: number; sealed: string }) => void) | null = null;
    proxy.rewrite = (text, direction) => {
      const packet = direction === "down" ? decodePacket(text) : null;
      if (!change || packet?.type !== "event" || packet.data[0] !== "job:dispatch") return text;
      change(packet.data[1] as { v: number; sealed: string });
      return encodePacket(packet);
    };
    const rte = startRte({ instanceId: "res-s", appUrl: await proxy.listen(), token: runnerToken, ...freshDirs("s") });
    await waitForRteOutput(rte, /connected to http/);

    change = (dispatch) => {
      const at = Math.floor(dispatch.sealed.length / 2);
      const flipped = dispatch.sealed[at] === "A" ? "B" : "A";
      dispatch.sealed = dispatch.sealed.slice(0, at) + flipped + dispatch.sealed.slice(at + 1);
    };
    const tampered = await waitForEnd(await launchGate("refused-secrets"), 30_000);
    expect(tampered.status).toBe("failed");
    expect(tampered.statusReason).toBe(
      "runner resilience refused the job: secrets cannot be opened: sealed bundle cannot be opened with this runner's token for this job",
    );

    change = (dispatch) => {
      dispatch.v = 3;
    };
    const mismatch = await waitForEnd(await launchGate("refused-version"), 30_000);
    expect(mismatch.status).toBe("failed");
    // The refusal names the job's version and every version the runner speaks.
    expect(mismatch.statusReason).toBe("runner resilience refused the job: the job is of contract v3; this runner speaks contract v1, v2");

    // Nothing ran: no claim, no item stored, two refusals counted.
    expect(rte.output()).not.toMatch(/claimed/);
    for (const job of [tampered, mismatch]) expect(storedChunks(job.id)).toEqual([]);
    expect(metric(await metrics(rte), 'playform_rte_jobs_total{outcome="refused"}')).toBe(2);
    expect(proxy.events("down", "job:dispatch")).toHaveLength(2);
  });

  // Last: it restarts the app every other test uses.
  it("an app restart: the RTE reconnects by itself, its running job finishes and is stored once", async () => {
    const dirs = freshDirs("restart");
    const rte = startRte({ instanceId: "res-r", appUrl: app.url, token: runnerToken, ...dirs });
    await waitForRteOutput(rte, /connected to http/);
    const id = await launchGate("restart");
    await waitForInstance(id);
    await waitUntil("the playbook to wait at its gate", () => storedOutput(id).includes("TASK [Wait for the gate]"), 30_000);

    await app.restart();
    await waitForRteOutput(rte, /disconnected \(io server disconnect\)/);
    // Back on its own: the same process, a second connection, no restart of the RTE.
    await waitForRteOutput(rte, /connected to http/, 60_000, 2);
    expect(isRunning(rte)).toBe(true);
    expect(rte.output()).not.toMatch(/spool holds unacknowledged items/);
    await app.waitForOutput(/runner resilience instance res-r connected/);

    openGate("restart");
    const job = await waitForEnd(id, 60_000);
    expect(job.status).toBe("success");
    const chunks = storedChunks(id);
    expect(chunks.map((c) => c.seq)).toEqual(oneToN(chunks.length));
    expect(chunks.filter((c) => c.kind === "end")).toHaveLength(1);
    expect(job.lastSeq).toBe(chunks.length);
    expect(occurrences(storedOutput(id), "gate restart opened")).toBe(1);
  });
});
