/**
 * Hosts (issue 22 section 4) through the real app, its local RTE and ansible-playbook: every
 * host of a finished run is in `GET /api/hosts` with its newest result, and `GET /api/hosts/NAME`
 * gives its runs newest first with the tasks that changed it; a user who reads none of those
 * runs sees neither. The store's rules on both databases: hosts-store.test.ts.
 */
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { waitFor } from "../support/wait";

let app: RunningPlayform;
let admin: ApiClient;
let other: ApiClient;
const runs: number[] = [];

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms-hosts") } });
  admin = apiClient(app, await adminToken(app));
  expect((await admin.call("POST", "/api/users", { json: { username: "other", password: "other-password-0123" } })).status).toBe(201);
  const response = await fetch(`${app.url}/api/auth/token`, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from("other:other-password-0123").toString("base64")}` },
  });
  expect(response.status).toBe(201);
  other = apiClient(app, ((await response.json()) as { token: string }).token);
  for (let i = 0; i < 2; i++) {
    const job = await admin.waitForEnd(await admin.launch("two-hosts"));
    expect(job.status).toBe("success");
    runs.push(job.id);
  }
  // A run's hosts are written just after it ends.
  await waitFor("both runs among web1's", async () => ((await admin.get("/api/hosts/web1")).runs.length === 2 ? true : null));
}, 240_000);

afterAll(async () => {
  await app?.stop();
});

it("lists each host of the runs by name, with its newest run and result", async () => {
  const { hosts, nextCursor } = await admin.get("/api/hosts");
  expect(nextCursor).toBeNull();
  expect(hosts).toEqual([
    {
      name: "db1",
      lastJob: expect.objectContaining({ id: runs[1], form: "two-hosts", status: "success" }),
      lastResult: { ok: 2, changed: 0, failed: 0, unreachable: 0 },
      drift: null,
    },
    {
      name: "web1",
      lastJob: expect.objectContaining({ id: runs[1], form: "two-hosts", status: "success" }),
      lastResult: { ok: 2, changed: 1, failed: 0, unreachable: 0 },
      drift: null,
    },
  ]);
  expect((await admin.get("/api/hosts?q=WEB")).hosts.map((host: { name: string }) => host.name)).toEqual(["web1"]);
  const first = await admin.get("/api/hosts?limit=1");
  expect(first.hosts.map((host: { name: string }) => host.name)).toEqual(["db1"]);
  const second = await admin.get(`/api/hosts?limit=1&cursor=${first.nextCursor}`);
  expect([second.hosts[0].name, second.nextCursor]).toEqual(["web1", null]);
});

it("gives a host's runs newest first, with how each ran and the tasks that changed that host", async () => {
  const web1 = await admin.get("/api/hosts/web1");
  expect(web1.host.name).toBe("web1");
  expect(web1.runs.map((run: { jobId: number }) => run.jobId)).toEqual([runs[1], runs[0]]);
  expect(web1.runs[0]).toMatchObject({
    form: "two-hosts",
    status: "success",
    options: { playbook: "playbook.yml", tags: [], check: false },
    result: { ok: 2, changed: 1, failed: 0, unreachable: 0, skipped: 0, rescued: 0, ignored: 0 },
    changedTasks: ["Touch web only"],
  });
  // Each changed task links to its banner in the job's output.
  const [line] = web1.runs[0].changedTaskLines;
  expect(line).toBeGreaterThan(0);
  const { lines } = await admin.get(`/api/jobs/${runs[1]}/lines?from=${line}&count=1`);
  expect(lines[0].text).toContain("TASK [Touch web only]");
  expect((await admin.get("/api/hosts/db1")).runs[0]).toMatchObject({ changedTasks: [], changedTaskLines: [] });
  const page = await admin.get("/api/hosts/web1?limit=1");
  expect(page.runs.map((run: { jobId: number }) => run.jobId)).toEqual([runs[1]]);
  const next = await admin.get(`/api/hosts/web1?limit=1&cursor=${page.nextCursor}`);
  expect([next.runs.map((run: { jobId: number }) => run.jobId), next.nextCursor]).toEqual([[runs[0]], null]);
});

it("shows a user who reads none of the runs no host, and refuses what is malformed, saying what", async () => {
  expect(await other.get("/api/hosts")).toEqual({ hosts: [], nextCursor: null });
  const hidden = await other.call("GET", "/api/hosts/web1");
  expect(hidden.status).toBe(404);
  expect((await admin.call("GET", "/api/hosts/nowhere")).status).toBe(404);
  const cursor = await admin.call("GET", "/api/hosts?cursor=abc");
  expect(cursor.status).toBe(400);
  expect(cursor.json.error.message).toContain("cursor: not a cursor this list gave");
  expect((await admin.call("GET", "/api/hosts/web1?cursor=W10")).status).toBe(400);
  const limit = await admin.call("GET", "/api/hosts?limit=0");
  expect(limit.status).toBe(400);
  expect(limit.json.error.message).toMatch(/^limit: /);
});
