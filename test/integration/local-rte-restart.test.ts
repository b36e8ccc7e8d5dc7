/**
 * `npm start` restarted while its local RTE runs a job: the job must end `success` with every
 * line stored exactly once, whether the app was stopped (SIGTERM: the local RTE drains while the
 * app keeps serving its link) or killed (kill -9: the local RTE survives, the next start adopts
 * it, and it reconnects with the token the app keeps in its state folder).
 *
 * The app listens on a fixed port, as it does in production, so the surviving RTE finds the next
 * start at the same address.
 */
import { execa, type ResultPromise } from "execa";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, storedSeqs, type RunningPlayform } from "../support/playform";
import { ROOT, childPids, processAlive } from "../support/rte-harness";

const LINES = 20_000;
const FORMS = path.join(ROOT, "test/fixtures/forms-local");

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitUntil<T>(what: string, probe: () => T | null | false | Promise<T | null | false>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** One app process after another on the same port, database and folders. */
class RestartableApp {
  readonly dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-local-restart-"));
  readonly adminPassword = `pw-${randomBytes(9).toString("base64url")}`;
  readonly databaseUrl = `file:${path.join(this.dataDir, "playform.db")}`;
  readonly spoolDir = path.join(this.dataDir, "rte/spool");
  url = "";
  child: ResultPromise | null = null;
  exited: Promise<{ code: number | null; signal: string | null }> = Promise.resolve({ code: null, signal: null });
  private text = "";
  /** Every RTE pid seen, to clean up after a test that failed half-way. */
  readonly rtePids = new Set<number>();

  /** `env`: settings added to every start of this app. */
  constructor(
    private readonly port: number,
    private readonly env: Record<string, string> = {},
  ) {}

  output(): string {
    return this.text;
  }

  running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  async start(): Promise<void> {
    const from = this.text.length;
    const child = execa(process.execPath, ["dist/server.js"], {
      cwd: ROOT,
      env: {
        PORT: String(this.port),
        HOST: "127.0.0.1",
        DATABASE_URL: this.databaseUrl,
        PLAYFORM_ADMIN_PASSWORD: this.adminPassword,
        PLAYFORM_FORMS_DIR: FORMS,
        RTE_SPOOL_PATH: this.spoolDir,
        RTE_WORK_DIR: path.join(this.dataDir, "rte/work"),
        ...this.env,
      },
      all: true,
      buffer: false,
      reject: false,
      // The test decides when to kill: execa's own SIGKILL 5 s after a SIGTERM would cut the drain.
      forceKillAfterDelay: false,
    });
    this.child = child;
    // The exit, not the end of the pipes: after kill -9 the surviving RTE still holds them.
    this.exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
    // Output of this app and of every local RTE it started (an adopted one writes to the pipe
    // of the app that started it, read here all the same).
    child.all?.setEncoding("utf8").on("data", (chunk: string) => {
      this.text += chunk;
      if (process.env.PLAYFORM_TEST_VERBOSE) process.stdout.write(chunk);
    });
    const running = await this.waitFor(/Playform is running at (http:\/\/\S+)/, from);
    this.url = running[1]!;
    await this.waitFor(/"source":"rte".*connected to /, from);
    const pid = this.rtePid();
    if (pid) this.rtePids.add(pid);
  }

  async waitFor(pattern: RegExp, from = 0, timeoutMs = 90_000): Promise<RegExpExecArray> {
    return waitUntil(`${pattern} in the output:\n${this.text.slice(from)}`, () => pattern.exec(this.text.slice(from)) ?? null, timeoutMs);
  }

  /** The local RTE's pid, from the lock it holds on its spool. */
  rtePid(): number | null {
    try {
      return (JSON.parse(fs.readFileSync(path.join(this.spoolDir, "rte.lock"), "utf8")) as { pid: number }).pid;
    } catch {
      return null;
    }
  }

  view(): RunningPlayform {
    return {
      url: this.url,
      pid: this.child!.pid!,
      databaseUrl: this.databaseUrl,
      adminPassword: this.adminPassword,
      dataDir: this.dataDir,
      output: () => this.text,
      waitForOutput: async (pattern, timeoutMs) => void (await this.waitFor(pattern, 0, timeoutMs)),
      restart: async () => {
        await this.stop();
        await this.start();
      },
      stop: () => this.stop(),
    };
  }

  async stop(): Promise<void> {
    if (this.running()) {
      this.child!.kill("SIGTERM");
      const timer = setTimeout(() => this.child?.kill("SIGKILL"), 60_000);
      await this.exited;
      clearTimeout(timer);
    }
    for (const pid of this.rtePids) {
      for (const group of childPids(pid)) {
        try {
          process.kill(-group, "SIGKILL");
        } catch {
          // Gone.
        }
      }
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone, as it should be.
      }
    }
  }
}

/** Every numbered line of the job's stored output, by number. */
function lineNumbers(output: string): number[] {
  return [...output.matchAll(/"line-(\d+)"/g)].map((m) => Number(m[1])).sort((a, b) => a - b);
}

const expected = Array.from({ length: LINES }, (_, i) => i + 1);

describe("the app restarted while its local RTE runs a job", () => {
  let app: RestartableApp;
  let api: ApiClient;

  beforeAll(async () => {
    app = new RestartableApp(await freePort());
    await app.start();
    api = apiClient(app.view(), await adminToken(app.view()));
  });
  afterAll(async () => {
    await app?.stop();
    if (app) fs.rmSync(app.dataDir, { recursive: true, force: true });
  });

  /** Launches the 20,000-line job and waits until part of its output is stored. */
  async function launchHalfWay(): Promise<number> {
    // Each case on a running app, even after the other one failed half-way.
    if (!app.running()) await app.start();
    const id = await api.launch("streamed-lines", { blocks: 10, per_block: LINES / 10 });
    await waitUntil("the first lines to be stored", async () => lineNumbers(await api.output(id)).length > 0, 60_000);
    return id;
  }

  async function expectEveryLineOnce(id: number): Promise<void> {
    const job = await api.waitForEnd(id, 90_000);
    const output = await api.output(id);
    expect(job.status, `${job.statusReason ?? ""}\n${app.output().slice(-3000)}`).toBe("success");
    const seqs = await storedSeqs(app.view(), id);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(job.lastSeq).toBe(seqs.length);
    expect(lineNumbers(output)).toEqual(expected);
  }

  it("SIGTERM: the local RTE drains while the app keeps its link; nothing is killed early", async () => {
    const id = await launchHalfWay();
    const rte = app.rtePid()!;
    const from = app.output().length;
    app.child!.kill("SIGTERM");
    // The app waits for its RTE, which waits for the job (about ten seconds of blocks left).
    expect(await app.exited).toEqual({ code: 0, signal: null });
    const shutdown = app.output().slice(from);
    expect(shutdown).toMatch(/"source":"rte".*draining: 1 job\(s\) running/);
    expect(shutdown).not.toMatch(/SIGKILL/);
    // Nothing outlives the app: not its RTE, not the playbook.
    expect(processAlive(rte)).toBe(false);
    expect(fs.existsSync(path.join(app.spoolDir, "rte.lock"))).toBe(false);

    await app.start();
    await expectEveryLineOnce(id);
  });

  it("kill -9 of the app: the next start adopts the surviving local RTE, which reconnects and finishes the job", async () => {
    const id = await launchHalfWay();
    const rte = app.rtePid()!;
    app.child!.kill("SIGKILL");
    await app.exited;
    expect(processAlive(rte)).toBe(true);

    const from = app.output().length;
    await app.start();
    const restart = app.output().slice(from);
    expect(restart).toContain(`local RTE pid ${rte} is still running from the previous start; it will reconnect`);
    // One RTE on the spool: the adopted one. No second one was started and refused.
    expect(restart).not.toMatch(/refusing to start|local RTE exited/);
    expect(app.rtePid()).toBe(rte);
    await expectEveryLineOnce(id);

    // Stopping the new app stops the RTE it adopted.
    await app.stop();
    await waitUntil("the adopted RTE to exit", () => !processAlive(rte), 30_000);
  });
});

describe("stopping the app during a job longer than the local RTE's drain time", () => {
  const DRAIN_SECONDS = 2;
  /** Blocks of the job, one a second: far longer than the drain time. */
  const BLOCKS = 40;
  let app: RestartableApp;
  let api: ApiClient;

  afterAll(async () => {
    await app?.stop();
    if (app) fs.rmSync(app.dataDir, { recursive: true, force: true });
  });

  async function launchRunning(): Promise<number> {
    const id = await api.launch("streamed-lines", { blocks: BLOCKS, per_block: 10 });
    await waitUntil("the first lines to be stored", async () => lineNumbers(await api.output(id)).length > 0, 60_000);
    return id;
  }

  it("SIGTERM: the job is cancelled saying the drain time ran out, in its status, its output and the audit trail", async () => {
    app = new RestartableApp(await freePort(), { RTE_DRAIN_SECONDS: String(DRAIN_SECONDS) });
    await app.start();
    api = apiClient(app.view(), await adminToken(app.view()));
    const id = await launchRunning();
    app.child!.kill("SIGTERM");
    expect(await app.exited).toEqual({ code: 0, signal: null });

    await app.start();
    const job = await api.waitForEnd(id, 60_000);
    const reason = `the runner stopped: drain time of ${DRAIN_SECONDS} s ran out`;
    expect(job.status).toBe("aborted");
    expect(job.statusReason).toBe(reason);
    // A runner line in the job's output says so, where the output stops.
    const lines = (await api.get(`/api/jobs/${id}/lines?tail=50`)) as { lines: { stream: string; text: string }[] };
    expect(lines.lines.filter((l) => l.stream === "rte").map((l) => l.text)).toContainEqual(expect.stringContaining(reason));
    // Nobody aborted it: the audit trail says who did (the local runner), not job.abort.
    const audit = await api.get(`/api/audit?action=job.`);
    const events = (audit.events as { action: string; target: string; actor: string; details: { reason?: string } | null }[]).filter(
      (e) => e.target === `job:${id}`,
    );
    expect(events.map((e) => e.action)).toContain("job.drain-cancel");
    expect(events.map((e) => e.action)).not.toContain("job.abort");
    const drained = events.find((e) => e.action === "job.drain-cancel")!;
    expect(drained.actor).toBe("runner:local");
    expect(drained.details?.reason).toBe(reason);
    await app.stop();
  });

  it("PLAYFORM_LOCAL_RTE_ON_STOP=keep: SIGTERM leaves the local RTE and its job running; the next start adopts it and the job completes", async () => {
    app = new RestartableApp(await freePort(), { RTE_DRAIN_SECONDS: String(DRAIN_SECONDS), PLAYFORM_LOCAL_RTE_ON_STOP: "keep" });
    await app.start();
    api = apiClient(app.view(), await adminToken(app.view()));
    const id = await api.launch("streamed-lines", { blocks: 12, per_block: 10 });
    await waitUntil("the first lines to be stored", async () => lineNumbers(await api.output(id)).length > 0, 60_000);
    const rte = app.rtePid()!;
    const from = app.output().length;
    app.child!.kill("SIGTERM");
    expect(await app.exited).toEqual({ code: 0, signal: null });
    expect(app.output().slice(from)).toContain(
      `leaving the local RTE (pid ${rte}) running with its jobs (PLAYFORM_LOCAL_RTE_ON_STOP=keep)`,
    );
    // Well past the drain time: the RTE and the playbook still run.
    await new Promise((resolve) => setTimeout(resolve, (DRAIN_SECONDS + 2) * 1000));
    expect(processAlive(rte)).toBe(true);
    expect(childPids(rte).length).toBeGreaterThan(0);

    const restartFrom = app.output().length;
    await app.start();
    expect(app.output().slice(restartFrom)).toContain(`local RTE pid ${rte} is still running from the previous start; it will reconnect`);
    const job = await api.waitForEnd(id, 90_000);
    expect(job.status, `${job.statusReason ?? ""}\n${app.output().slice(-3000)}`).toBe("success");
    expect(lineNumbers(await api.output(id))).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    const seqs = await storedSeqs(app.view(), id);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  });
});

it("an RTE whose output pipe is closed (the app that read it was killed) keeps running", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-local-epipe-"));
  const rte = spawn(process.execPath, ["dist/rte.js"], {
    cwd: ROOT,
    env: {
      NODE_ENV: "production",
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      // Nothing listens there: it keeps logging that it cannot connect, into the closed pipe.
      APP_URL: `http://127.0.0.1:${await freePort()}`,
      RTE_TOKEN: "pfr_unused",
      PORT: "0",
      RTE_SPOOL_PATH: path.join(dir, "spool"),
      RTE_WORK_DIR: path.join(dir, "work"),
      RTE_JOBS_DIR: path.join(dir, "jobs"),
      RTE_PLAYBOOK_USER: "",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => rte.once("exit", (code: number | null) => resolve(code)));
  try {
    await new Promise((resolve) => rte.stdout.once("data", resolve));
    rte.stdout.destroy();
    rte.stderr.destroy();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(rte.exitCode).toBeNull();
    rte.kill("SIGTERM");
    expect(await exited).toBe(0);
  } finally {
    rte.kill("SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
