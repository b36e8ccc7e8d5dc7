/**
 * Promises that must hold when things go wrong, on real processes (the production bundle, its
 * local RTE, ansible-playbook, one SQLite file that outlives an app killed with -9):
 * - a heartbeat timeout shorter than the RTE's old fixed 15 s heartbeat abandons nothing healthy;
 * - no password value is stored anywhere the app or its runner keeps files;
 * - a job whose dispatch was never answered (runner frozen, then app and runner killed) still
 *   reaches a final status: it runs after the restart, or its abort ends it;
 * - a job aborted while its dispatch is unanswered ends at once, and a runner that claims it
 *   late is told to cancel it.
 *
 * One SQLite database for the whole file; the app is restarted on it once, half-way.
 */
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, dbQuery, startPlayform, type RunningPlayform } from "../support/playform";

const FORMS_DIR = path.resolve(import.meta.dirname, "../fixtures/forms-faults");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let scratch: string;
let app: RunningPlayform;
let api: ApiClient;
const frozen = new Set<number>();

function appEnv(): Record<string, string> {
  return {
    // Outside the app's own data folder, so the database survives the app.
    DATABASE_URL: `file:${path.join(scratch, "playform.db")}`,
    PLAYFORM_FORMS_DIR: FORMS_DIR,
    PLAYFORM_ADMIN_PASSWORD: "fault-tolerance-admin",
    // Below the RTE's former fixed 15 s heartbeat: healthy jobs must survive it.
    RTE_HEARTBEAT_TIMEOUT_SECONDS: "6",
  };
}

async function start(): Promise<void> {
  app = await startPlayform({ env: appEnv() });
  api = apiClient(app, await adminToken(app));
}

/** The local RTE: a child process of the app. */
function localRtePid(): number {
  const pid = Number(
    execFileSync("pgrep", ["-P", String(app.pid), "-f", "dist/rte.js"], { encoding: "utf8" })
      .trim()
      .split("\n")[0],
  );
  expect(pid).toBeGreaterThan(0);
  return pid;
}

function freeze(pid: number): void {
  process.kill(pid, "SIGSTOP");
  frozen.add(pid);
}

function thaw(pid: number): void {
  process.kill(pid, "SIGCONT");
  frozen.delete(pid);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n${app.output()}`);
    await sleep(200);
  }
}

interface Placement {
  status: string;
  dispatchedAt: unknown;
  instanceId: string | null;
}

async function placement(id: number): Promise<Placement> {
  const [row] = await dbQuery<Placement>(app, 'SELECT status, "dispatchedAt", "instanceId" FROM "Job" WHERE id = $1', [id]);
  return row!;
}

/** Every file under a folder (the database, its WAL, the runner's spool and work folders…). */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true }).flatMap((entry) => {
    const file = path.join(entry.parentPath, entry.name);
    return entry.isFile() ? [file] : [];
  });
}

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "playform-faults-"));
  await start();
});
afterAll(async () => {
  for (const pid of frozen) if (alive(pid)) process.kill(pid, "SIGCONT");
  await app?.stop();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

it("keeps a 15 s job alive under a 6 s heartbeat timeout: runners beat faster when told to", async () => {
  const id = await api.launch("wait-and-check", { seconds: 15 });
  const job = await api.waitForEnd(id, 60_000);
  expect(job.status, job.statusReason).toBe("success");
  expect(job.exitCode).toBe(0);
});

it("stores no password value: not in the database, its WAL, or any file of the app or runner", async () => {
  const secret = `pw "${randomBytes(12).toString("hex")}" \\ end`;
  const sha = createHash("sha256").update(secret).digest("hex");
  const id = await api.launch("wait-and-check", { secret, secret_sha256: sha });
  const job = await api.waitForEnd(id);
  // The playbook compared the value with its SHA-256: it arrived intact.
  expect(job.status, await api.output(id)).toBe("success");
  expect(job.values.secret).toBe("********");

  const [row] = await dbQuery<{ extravars: string; secretExtravars: string | null }>(
    app,
    'SELECT extravars, "secretExtravars" FROM "Job" WHERE id = $1',
    [id],
  );
  expect(JSON.parse(row!.extravars)).toEqual({ seconds: 0, secret_sha256: sha });
  // Kept encrypted only while the job could still be dispatched.
  expect(row!.secretExtravars).toBeNull();

  const encodings = {
    raw: secret,
    "JSON-escaped": JSON.stringify(secret).slice(1, -1),
    base64: Buffer.from(secret).toString("base64"),
    "base64 unpadded": Buffer.from(secret).toString("base64").replace(/=+$/, ""),
    base64url: Buffer.from(secret).toString("base64url"),
    hex: Buffer.from(secret).toString("hex"),
    "URL-encoded": encodeURIComponent(secret),
  };
  const files = [...filesUnder(scratch), ...filesUnder(app.dataDir)];
  expect(files.some((file) => file.endsWith("playform.db-wal"))).toBe(true);
  for (const file of files) {
    const bytes = fs.readFileSync(file);
    for (const [encoding, text] of Object.entries(encodings)) {
      expect(bytes.includes(Buffer.from(text)), `${encoding} secret in ${file}`).toBe(false);
    }
  }
});

it("runs a job whose dispatch was never answered after the app and its frozen runner are killed", async () => {
  // The repro: the runner is frozen, so the dispatch is sent but never answered; then both die.
  const rte = localRtePid();
  freeze(rte);
  const runs = await api.launch("wait-and-check", { seconds: 1 });
  const aborts = await api.launch("wait-and-check", { seconds: 1 });
  await sleep(3_000);
  for (const id of [runs, aborts]) expect(await placement(id)).toMatchObject({ status: "queued", instanceId: "local-0" });
  expect((await placement(runs)).dispatchedAt).not.toBeNull();
  const [runner] = await dbQuery<{ tokenHash: string }>(app, `SELECT "tokenHash" FROM "Runner" WHERE name = 'local'`);
  const appPid = app.pid;
  process.kill(appPid, "SIGKILL");
  process.kill(rte, "SIGKILL");
  frozen.delete(rte);
  await waitFor("the app and its runner to be gone", async () => !alive(appPid) && !alive(rte), 10_000);
  await app.stop();

  // Same database, a fresh app and a fresh local runner (with a fresh token: one node alone).
  await start();
  const [restarted] = await dbQuery<{ tokenHash: string }>(app, `SELECT "tokenHash" FROM "Runner" WHERE name = 'local'`);
  expect(restarted!.tokenHash).not.toBe(runner!.tokenHash);
  expect((await api.call("POST", `/api/jobs/${aborts}/abort`)).status).toBe(202);
  const aborted = await api.waitForEnd(aborts, 10_000);
  expect(aborted.status).toBe("aborted");
  const ran = await api.waitForEnd(runs, 60_000);
  expect(ran.status, ran.statusReason).toBe("success");
});

it("ends a job aborted while its dispatch is unanswered, and cancels the run of a runner that claims it late", async () => {
  const rte = localRtePid();
  freeze(rte);
  const id = await api.launch("wait-and-check", { seconds: 30 });
  await waitFor("the dispatch", async () => (await placement(id)).dispatchedAt, 10_000);
  expect((await api.call("POST", `/api/jobs/${id}/abort`)).status).toBe(202);
  const aborted = await api.waitForEnd(id, 5_000);
  expect(aborted.status).toBe("aborted");

  // Past the claim timeout, the runner wakes up, reads the dispatch and claims the job: the app
  // tells it to cancel, long before the playbook's 30 s are over.
  await sleep(11_000);
  thaw(rte);
  await app.waitForOutput(new RegExp(`job ${id}: finished`), 20_000);
  const end = await waitFor(
    "the run's end item",
    async () => (await dbQuery<{ data: string }>(app, `SELECT data FROM "JobChunk" WHERE "jobId" = $1 AND kind = 'end'`, [id]))[0],
    10_000,
  );
  // "aborted on request": the runner's playbook was cancelled, not refused its files.
  expect(JSON.parse(end.data)).toMatchObject({ status: "aborted", reason: "aborted on request" });
  expect((await api.get(`/api/jobs/${id}`)).job.status).toBe("aborted");
});
