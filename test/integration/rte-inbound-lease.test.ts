/**
 * An inbound runner with two app nodes on one PostgreSQL database, on real parts: both nodes'
 * production bundles, a real RTE process listening over https with its generated certificate,
 * real ansible-playbook.
 *
 * Exactly one node holds the link (the lease in the database): the other never connects while
 * the holder lives. The holder is killed (SIGKILL, no goodbye) while a ~30 s job runs; the other
 * node takes the link over within the lease time, the RTE resends what the dead node never
 * acknowledged, and the job ends with every line stored once, in order.
 */
import { execa, type ResultPromise } from "execa";
import { X509Certificate } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { adminToken, dbQuery, startPlayform, storedSeqs, type RunningPlayform } from "../support/playform";
import { startPostgres, type TestPostgres } from "../support/postgres";
import { waitFor } from "../support/wait";

const ROOT = path.resolve(import.meta.dirname, "../..");
const NAME = "inbound-lease";
const LINES = 30;
const LEASE_SECONDS = 15;

let postgres: TestPostgres;
const nodes: Record<string, RunningPlayform> = {};
let token: string;
let scratch: string;
let rte: ResultPromise | undefined;
let rteOutput = "";

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function api(node: RunningPlayform, method: string, url: string, body?: unknown) {
  const response = await fetch(`${node.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, json: (await response.json()) as any };
}

async function runnerOn(node: RunningPlayform) {
  const { json } = await api(node, "GET", "/api/runners");
  return (json.runners as any[]).find((r) => r.name === NAME);
}

const details = () =>
  Object.entries(nodes)
    .map(([id, node]) => `--- ${id} ---\n${node.output().slice(-4000)}`)
    .join("\n") + `\n--- rte ---\n${rteOutput.slice(-3000)}`;

const counterLine = (n: number) => `lease-counter line ${n} of ${LINES}`;

async function storedOutput(node: RunningPlayform, jobId: number): Promise<string> {
  const rows = await dbQuery<{ text: string | null }>(node, 'SELECT text FROM "JobChunk" WHERE "jobId" = $1 AND kind = $2 ORDER BY seq', [
    jobId,
    "output",
  ]);
  return rows.map((row) => row.text ?? "").join("");
}

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "playform-inbound-lease-"));
  postgres = await startPostgres();
  const env = {
    DATABASE_URL: postgres.url,
    PLAYFORM_LOCAL_RTE: "false",
    PLAYFORM_FORMS_DIR: path.join(ROOT, "test/fixtures/forms-inbound-lease"),
    PLAYFORM_INBOUND_LEASE_SECONDS: String(LEASE_SECONDS),
  };
  nodes["node-a"] = await startPlayform({ env: { ...env, PLAYFORM_NODE_ID: "node-a" } });
  nodes["node-b"] = await startPlayform({
    env: { ...env, PLAYFORM_NODE_ID: "node-b", PLAYFORM_ADMIN_PASSWORD: nodes["node-a"].adminPassword },
  });
  token = await adminToken(nodes["node-a"]);

  const port = await freePort();
  rte = execa(process.execPath, ["dist/rte.js"], {
    cwd: ROOT,
    env: {
      APP_URL: nodes["node-a"].url,
      RTE_MODE: "inbound",
      RTE_ADDRESS: `https://127.0.0.1:${port}`,
      RTE_RUNNER_NAME: NAME,
      RTE_INSTANCE_ID: `${NAME}-0`,
      PORT: String(port),
      RTE_SPOOL_PATH: path.join(scratch, "spool"),
      RTE_WORK_DIR: path.join(scratch, "work"),
      RTE_STATE_PATH: path.join(scratch, "state"),
      RTE_TOKEN: undefined,
    },
    all: true,
    reject: false,
    buffer: false,
  });
  rte.all?.setEncoding("utf8").on("data", (text: string) => {
    rteOutput += text;
    if (process.env.PLAYFORM_TEST_VERBOSE) process.stdout.write(`[rte] ${text}`);
  });
});

afterAll(async () => {
  if (rte?.exitCode === null) rte.kill("SIGKILL");
  await rte?.catch(() => undefined);
  for (const node of Object.values(nodes)) await node.stop();
  await postgres?.stop();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

it("one node holds the link; when it dies mid-job the other takes it over within the lease time, output complete", async () => {
  const a = nodes["node-a"]!;
  const pending = await waitFor("the runner's join request", async () => (await runnerOn(a))?.status === "pending" && runnerOn(a), {
    details,
  });
  const fingerprint = new X509Certificate(fs.readFileSync(path.join(scratch, "state", "tls-cert.pem"))).fingerprint256;
  expect(pending.certFingerprint).toBe(fingerprint);
  expect((await api(a, "POST", `/api/runners/${pending.id}/approve`)).status).toBe(200);

  const linked = await waitFor(
    "one node linked to the runner",
    async () => {
      const r = await runnerOn(a);
      return r?.linkHolder && r.instances.some((i: any) => i.connected) && r;
    },
    { details },
  );
  const holderId: string = linked.linkHolder;
  const otherId = holderId === "node-a" ? "node-b" : "node-a";
  const holder = nodes[holderId]!;
  const other = nodes[otherId]!;
  expect(holder.output()).toMatch(new RegExp(`connected to runner ${NAME}`));
  expect((await runnerOn(other)).linkHolder).toBe(holderId);

  // Launched and followed through the node that does not hold the link.
  const launched = await api(other, "POST", "/api/jobs", { form: "lease-counter", values: {} });
  expect(launched.status, JSON.stringify(launched.json)).toBe(201);
  const id = launched.json.id as number;
  await waitFor("line 3 stored", async () => (await storedOutput(other, id)).includes(counterLine(3)), { timeoutMs: 60_000, details });
  // Several lease ticks went by with the job running: the other node never connected.
  expect(other.output()).not.toMatch(new RegExp(`connected to runner ${NAME}`));

  process.kill(holder.pid, "SIGKILL");
  const killedAt = Date.now();
  const takenOver = await waitFor(
    `${otherId} to take the link over`,
    async () => {
      const r = await runnerOn(other);
      return r?.linkHolder === otherId && r.instances.some((i: any) => i.connected) && r;
    },
    { timeoutMs: 60_000, intervalMs: 100, details },
  );
  const tookMs = Date.now() - killedAt;
  expect(takenOver.linkHolder).toBe(otherId);
  expect(other.output()).toMatch(new RegExp(`took over the link to runner \\S+ from node ${holderId}`));
  // Within the lease time (its holder renewed at most a tick before dying), plus the connection.
  expect(tookMs).toBeLessThan((LEASE_SECONDS + 5) * 1000);

  const job = await waitFor(
    `job ${id} to end`,
    async () => {
      const { json } = await api(other, "GET", `/api/jobs/${id}`);
      return !["queued", "running", "approval"].includes(json.job.status) && json.job;
    },
    { timeoutMs: 120_000, details },
  );
  expect(job.status).toBe("success");
  expect(job.runner).toBe(NAME);
  const output = await storedOutput(other, id);
  // The playbook still ran when the link moved: lines after the take-over came over the new link.
  for (let n = 1; n <= LINES; n++) expect(output.split(counterLine(n)).length - 1, `line ${n}`).toBe(1);
  expect(output).toContain("PLAY RECAP");
  const seqs = await storedSeqs(other, id);
  expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  console.log(
    `inbound link taken over by ${otherId} ${(tookMs / 1000).toFixed(1)} s after ${holderId} was killed (lease ${LEASE_SECONDS} s)`,
  );
}, 240_000);
