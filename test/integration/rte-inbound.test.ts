/**
 * Inbound runners (RTE_MODE=inbound) on real parts: the production bundle, a real RTE process
 * listening over https with the certificate it generated, real ansible-playbook, and a TCP proxy
 * (CuttableProxy) between the app and the RTE, which is where the runner's address points.
 *
 * In order: the runner joins with its certificate's fingerprint, an admin approves it (the app
 * pins the fingerprint) and the app connects; a job runs through it with complete output; the
 * link is cut mid-job and nothing is lost or stored twice; the RTE restarted with another key
 * pair is refused with the reason visible through the runners API, until an admin re-pins.
 */
import Database from "better-sqlite3";
import { execa, type ResultPromise } from "execa";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { generate } from "selfsigned";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CuttableProxy } from "../support/rte-harness";
import { apiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

const ROOT = path.resolve(import.meta.dirname, "../..");
const NAME = "inbound-1";
const LINES = 8;

let app: RunningPlayform;
let token: string;
let scratch: string;
let proxy: CuttableProxy;
let address: string;
let rtePort: number;
const children: ResultPromise[] = [];

interface Rte {
  child: ResultPromise;
  output: () => string;
}

function startRte(extra: Record<string, string> = {}, name = NAME): Rte {
  let output = "";
  const dir = name === NAME ? scratch : path.join(scratch, name);
  const child = execa(process.execPath, ["dist/rte.js"], {
    cwd: ROOT,
    env: {
      APP_URL: app.url,
      RTE_MODE: "inbound",
      RTE_ADDRESS: address,
      RTE_RUNNER_NAME: name,
      RTE_INSTANCE_ID: `${name}-0`,
      PORT: String(rtePort),
      RTE_SPOOL_PATH: path.join(dir, "spool"),
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
  children.push(child);
  return { child, output: () => output };
}

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n--- app ---\n${app.output().slice(-6000)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function api(method: string, url: string, body?: unknown) {
  return apiClient(app, token).call(method, url, body ? { json: body } : {});
}

async function runner(name = NAME) {
  const { json } = await api("GET", "/api/runners");
  return (json.runners as any[]).find((r) => r.name === name);
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function storedOutput(jobId: number): string {
  const db = new Database(path.join(app.dataDir, "playform.db"), { readonly: true, fileMustExist: true });
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

const counterLine = (n: number) => `slow-counter line ${n} of ${LINES}`;
const counts = (output: string) => Array.from({ length: LINES }, (_, i) => output.split(counterLine(i + 1)).length - 1);

async function launch(): Promise<number> {
  const launched = await api("POST", "/api/jobs", { form: "inbound-counter", values: {} });
  expect(launched.status, JSON.stringify(launched.json)).toBe(201);
  return launched.json.id as number;
}

async function finished(id: number) {
  return until(
    `job ${id} to end`,
    async () => {
      const { json } = await api("GET", `/api/jobs/${id}`);
      return !["queued", "running", "approval"].includes(json.job.status) && json.job;
    },
    120_000,
  );
}

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "playform-inbound-"));
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: path.join(ROOT, "test/fixtures/forms-inbound") } });
  token = await adminToken(app);
  rtePort = await freePort();
  proxy = new CuttableProxy(rtePort);
  address = (await proxy.listen()).replace("http:", "https:");
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  await Promise.all(children.map((child) => child.catch(() => undefined)));
  await proxy?.close();
  await app?.stop();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

describe("an inbound runner", () => {
  let rte: Rte;
  let fingerprint: string;

  it("joins with its generated certificate's fingerprint, is pinned on approval, and runs a job over https", async () => {
    rte = startRte();
    const pending = await until("pending runner", async () => (await runner())?.status === "pending" && runner());
    const certFile = path.join(scratch, "state", "tls-cert.pem");
    expect((fs.statSync(certFile).mode & 0o777).toString(8)).toBe("600");
    expect((fs.statSync(path.join(scratch, "state", "tls-key.pem")).mode & 0o777).toString(8)).toBe("600");
    fingerprint = new (await import("node:crypto")).X509Certificate(fs.readFileSync(certFile)).fingerprint256;
    expect(pending.mode).toBe("inbound");
    expect(pending.address).toBe(address);
    expect(pending.certFingerprint).toBe(fingerprint);
    expect(rte.output()).toContain(fingerprint);

    expect((await api("POST", `/api/runners/${pending.id}/approve`)).status).toBe(200);
    const live = await until("the app connected to the runner", async () => {
      const r = await runner();
      return r?.instances.some((i: any) => i.connected) && r;
    });
    expect(live.certFingerprint).toBe(fingerprint);
    expect(live.certPinnedAt).toBeTruthy();
    expect(live.linkError).toBeNull();
    // The app lists the instance before the RTE hears its answer to rte:hello.
    await until("the RTE to see the app's link", async () => /the app connected from .* \(inbound\)/.test(rte.output()));
    // The RTE never connects to the app's socket itself.
    expect(rte.output()).not.toMatch(/connected to http/);

    const id = await launch();
    const job = await finished(id);
    expect(job.status).toBe("success");
    expect(job.runner).toBe(NAME);
    expect(counts(storedOutput(id))).toEqual(Array(LINES).fill(1));
  }, 180_000);

  it("loses nothing and stores nothing twice when the link is cut mid-job", async () => {
    const id = await launch();
    await until("line 2 stored", async () => storedOutput(id).includes(counterLine(2)), 60_000);
    proxy.cut();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const duringCut = storedOutput(id);
    expect(duringCut).not.toContain(counterLine(LINES));
    proxy.restore();
    const job = await finished(id);
    expect(job.status).toBe("success");
    expect(counts(storedOutput(id))).toEqual(Array(LINES).fill(1));
    expect(app.output()).toMatch(/link to runner inbound-1 closed/);
  }, 180_000);

  it("refuses another certificate, with the reason in the runners API, until an admin re-pins it", async () => {
    rte.child.kill("SIGTERM");
    await rte.child;
    const other = await generate([{ name: "commonName", value: "127.0.0.1" }], { keyType: "ec", algorithm: "sha256" });
    fs.writeFileSync(path.join(scratch, "other-cert.pem"), other.cert);
    fs.writeFileSync(path.join(scratch, "other-key.pem"), other.private, { mode: 0o600 });
    const otherFingerprint = new (await import("node:crypto")).X509Certificate(other.cert).fingerprint256;
    rte = startRte({ RTE_TLS_CERT: path.join(scratch, "other-cert.pem"), RTE_TLS_KEY: path.join(scratch, "other-key.pem") });

    const refused = await until("the certificate refused", async () => {
      const r = await runner();
      return r?.linkError?.includes("not the pinned") && r;
    });
    expect(refused.linkError).toContain(otherFingerprint);
    expect(refused.linkError).toContain(fingerprint);
    expect(refused.presentedFingerprint).toBe(otherFingerprint);
    expect(refused.certFingerprint).toBe(fingerprint);
    expect(refused.instances.some((i: any) => i.connected)).toBe(false);
    // Nothing reached the RTE's socket: it never saw the app.
    expect(rte.output()).not.toMatch(/the app connected from/);

    const repin = await api("POST", `/api/runners/${refused.id}/repin`);
    expect(repin.status).toBe(200);
    expect(repin.json.certFingerprint).toBe(otherFingerprint);
    const live = await until("connected with the re-pinned certificate", async () => {
      const r = await runner();
      return r?.instances.some((i: any) => i.connected) && r.linkError === null && r;
    });
    expect(live.certFingerprint).toBe(otherFingerprint);
    const job = await finished(await launch());
    expect(job.status).toBe("success");
  }, 180_000);

  it("over plain http is connected to only once an admin allows it without TLS", async () => {
    const port = await freePort();
    const plain = startRte({ RTE_ADDRESS: `http://127.0.0.1:${port}`, PORT: String(port) }, "inbound-plain");
    const pending = await until(
      "pending runner",
      async () => (await runner("inbound-plain"))?.status === "pending" && runner("inbound-plain"),
    );
    expect(pending.certFingerprint).toBeNull();
    expect((await api("POST", `/api/runners/${pending.id}/approve`)).status).toBe(200);
    await until("the RTE approved and listening", async () => /inbound: listening for the app .* over plain http/.test(plain.output()));
    const refused = await until("the reason shown", async () => {
      const r = await runner("inbound-plain");
      return r?.linkError?.includes("plain http") && r;
    });
    expect(refused.inboundNoTls).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await runner("inbound-plain")).instances.some((i: any) => i.connected)).toBe(false);
    expect(plain.output()).not.toMatch(/the app connected from/);

    expect((await api("POST", `/api/runners/${pending.id}/no-tls`)).status).toBe(200);
    const live = await until("connected without TLS", async () => {
      const r = await runner("inbound-plain");
      return r?.instances.some((i: any) => i.connected) && r.linkError === null && r;
    });
    expect(live.inboundNoTls).toBe(true);
    expect(app.output()).toMatch(/connected to runner inbound-plain at http:\/\/127\.0\.0\.1:\d+ \(no TLS, allowed by an admin\)/);
  }, 120_000);
});
