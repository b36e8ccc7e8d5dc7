/**
 * An app plus inbound RTE processes (RTE_MODE=inbound) for integration tests: the production
 * bundle, real RTE processes listening over https with the certificate they generate, real
 * ansible-playbook, and a TCP proxy (CuttableProxy) between the app and the RTE, which is where
 * the runner's address points, so a test can cut the link without touching either process.
 */
import Database from "better-sqlite3";
import { execa, type ResultPromise } from "execa";
import fs from "node:fs";
import https from "node:https";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { apiClient } from "./api";
import { adminToken, startPlayform, type RunningPlayform } from "./playform";
import { CuttableProxy, ROOT } from "./rte-harness";
import { waitFor } from "./wait";

export const INBOUND_FORMS = path.join(ROOT, "test/fixtures/forms-inbound");

export interface InboundRte {
  child: ResultPromise;
  /** Its spool folder (RTE_SPOOL_PATH). */
  spoolDir: string;
  output: () => string;
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export class InboundHarness {
  app!: RunningPlayform;
  token = "";
  scratch = "";
  proxy!: CuttableProxy;
  /** The runner's address the app connects to: the proxy, over https. */
  address = "";
  /** The port the first runner's RTE listens on (behind the proxy). */
  rtePort = 0;
  private readonly children: ResultPromise[] = [];
  private readonly rtes: { name: string; output: () => string }[] = [];

  constructor(readonly runnerName: string) {}

  async start(): Promise<void> {
    this.scratch = fs.mkdtempSync(path.join(os.tmpdir(), "playform-inbound-"));
    this.app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: INBOUND_FORMS } });
    this.token = await adminToken(this.app);
    this.rtePort = await freePort();
    this.proxy = new CuttableProxy(this.rtePort);
    this.address = (await this.proxy.listen()).replace("http:", "https:");
  }

  async stop(): Promise<void> {
    for (const child of this.children) if (child.exitCode === null) child.kill("SIGKILL");
    await Promise.all(this.children.map((child) => child.catch(() => undefined)));
    await this.proxy?.close();
    await this.app?.stop();
    if (this.scratch) fs.rmSync(this.scratch, { recursive: true, force: true });
  }

  /** The first runner's folders are the scratch folder itself; another runner's a subfolder named after it. */
  runnerDir(name = this.runnerName): string {
    return name === this.runnerName ? this.scratch : path.join(this.scratch, name);
  }

  startRte(extra: Record<string, string> = {}, name = this.runnerName): InboundRte {
    let output = "";
    const dir = this.runnerDir(name);
    const spoolDir = path.join(dir, "spool");
    const child = execa(process.execPath, ["dist/rte.js"], {
      cwd: ROOT,
      env: {
        APP_URL: this.app.url,
        RTE_MODE: "inbound",
        RTE_ADDRESS: this.address,
        RTE_RUNNER_NAME: name,
        RTE_INSTANCE_ID: `${name}-0`,
        PORT: String(this.rtePort),
        RTE_SPOOL_PATH: spoolDir,
        RTE_WORK_DIR: path.join(dir, "work"),
        RTE_STATE_PATH: path.join(dir, "state"),
        RTE_TOKEN: undefined,
        ...extra,
      },
      all: true,
      reject: false,
      buffer: false,
    });
    child.all?.setEncoding("utf8").on("data", (text: string) => {
      output += text;
      if (process.env.PLAYFORM_TEST_VERBOSE) process.stdout.write(`[rte] ${text}`);
    });
    this.children.push(child);
    this.rtes.push({ name, output: () => output });
    return { child, spoolDir, output: () => output };
  }

  until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 60_000): Promise<T> {
    return waitFor(what, probe, {
      timeoutMs,
      details: () =>
        `--- app ---\n${this.app.output().slice(-6000)}\n` +
        this.rtes.map((rte) => `--- RTE ${rte.name} ---\n${rte.output().slice(-4000)}`).join("\n"),
    });
  }

  /** Through the checked client: every answer is validated against the OpenAPI document. */
  async api(method: string, url: string, body?: unknown) {
    return apiClient(this.app, this.token).call(method, url, body ? { json: body } : {});
  }

  async runner(name = this.runnerName) {
    const { json } = await this.api("GET", "/api/runners");
    return (json.runners as any[]).find((r) => r.name === name);
  }

  /** Waits for the runner's join request, approves it (pinning its certificate) and waits until the app is connected. */
  async approve(name = this.runnerName) {
    const pending = await this.until("pending runner", async () => (await this.runner(name))?.status === "pending" && this.runner(name));
    expect((await this.api("POST", `/api/runners/${pending.id}/approve`)).status).toBe(200);
    return this.until("the app connected to the runner", async () => {
      const r = await this.runner(name);
      return r?.instances.some((i: any) => i.connected) && r;
    });
  }

  /** The job's stored output text, after checking its sequence numbers run 1..n without a gap. */
  storedOutput(jobId: number): string {
    const db = new Database(path.join(this.app.dataDir, "playform.db"), { readonly: true, fileMustExist: true });
    try {
      const rows = db.prepare('SELECT seq, kind, text FROM "JobChunk" WHERE "jobId" = ? ORDER BY seq').all(jobId) as {
        seq: number;
        kind: string;
        text: string | null;
      }[];
      // Sequence numbers 1..n without a gap: nothing lost between the first and the last.
      expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
      return rows
        .filter((r) => r.kind === "output")
        .map((r) => r.text ?? "")
        .join("");
    } finally {
      db.close();
    }
  }

  async launch(form: string): Promise<number> {
    const launched = await this.api("POST", "/api/jobs", { form, values: {} });
    expect(launched.status, JSON.stringify(launched.json)).toBe(201);
    return launched.json.id as number;
  }

  async job(id: number) {
    return (await this.api("GET", `/api/jobs/${id}`)).json.job;
  }

  async finished(id: number, timeoutMs = 120_000) {
    return this.until(
      `job ${id} to end`,
      async () => {
        const job = await this.job(id);
        return !["queued", "running", "approval"].includes(job.status) && job;
      },
      timeoutMs,
    );
  }

  /** The RTE's /metrics text, asked directly (not through the proxy); its certificate is self-signed. */
  rteMetrics(port = this.rtePort): Promise<string> {
    return new Promise((resolve, reject) => {
      https
        .get(`https://127.0.0.1:${port}/metrics`, { rejectUnauthorized: false }, (res) => {
          let text = "";
          res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
          res.on("end", () => resolve(text));
        })
        .on("error", reject);
    });
  }
}

/** How often each of `lines` occurs in `output`, and whether they occur in order. */
export function lineCounts(output: string, lines: string[]): { counts: number[]; inOrder: boolean } {
  const counts = lines.map((line) => output.split(line).length - 1);
  const positions = lines.map((line) => output.indexOf(line));
  return { counts, inOrder: positions.every((at, i) => at >= 0 && (i === 0 || at > positions[i - 1]!)) };
}
