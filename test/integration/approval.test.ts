/**
 * The queue in front of the runners. Forms with `requiresApproval`: their jobs wait in status
 * `approval`, reach no runner until an admin approves them, and end rejected (saying who and
 * why) when an admin rejects them. A queued job no runner takes within RTE_QUEUE_MINUTES fails,
 * saying why.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, dbExecute, dbQuery, startPlayform, type RunningPlayform } from "../support/playform";
import { waitFor } from "../support/wait";

// 6 s: long enough for a job to reach the connected local runner (a dispatch pass runs every
// second), short enough to wait for.
const QUEUE_MINUTES = "0.1";

let app: RunningPlayform;
let api: ApiClient;

beforeAll(async () => {
  app = await startPlayform({
    env: {
      PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms"),
      RTE_QUEUE_MINUTES: QUEUE_MINUTES,
      // Meant for runners elsewhere: the local RTE, the app's own runner, must not present it
      // (the app would refuse its token as another runner's, and startPlayform would time out).
      RTE_RUNNER_NAME: "elsewhere",
    },
  });
  api = apiClient(app, await adminToken(app));
  // The fixture form `gate` runs on the runner `resilience`: approved, and no instance of it
  // ever connects here.
  const now = new Date().toISOString().replace("Z", "+00:00");
  await dbExecute(
    app,
    'INSERT INTO "Runner" ("id", "name", "status", "isDefault", "mode", "capacity", "createdAt", "decidedAt") VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
    [randomUUID(), "resilience", "approved", 0, "outbound", 4, now, now],
  );
});
afterAll(async () => {
  await app?.stop();
});

it("holds the job until an admin approves it, then runs it", async () => {
  const id = await api.launch("needs-approval", { reason: "patch window" });
  // A plain job launched after it reaches the runner: a dispatch pass has run since the first
  // job was stored, and left it waiting, with nothing sent to the runner.
  const plain = await api.launch("secret-echo", { api_key: "not-needed-here" });
  await waitFor(
    `job ${plain} to be dispatched`,
    async () => (await dbQuery<{ dispatchedAt: unknown }>(app, 'SELECT "dispatchedAt" FROM "Job" WHERE id = $1', [plain]))[0]?.dispatchedAt,
  );
  let { job } = await api.get(`/api/jobs/${id}`);
  expect(job.status).toBe("approval");
  expect(job.statusReason).toBe("waiting for an admin to approve it");
  expect((await api.get(`/api/jobs/${id}/output?after=0`)).chunks).toEqual([]);
  const [row] = await dbQuery<{ dispatchedAt: unknown; queuedAt: unknown }>(
    app,
    'SELECT "dispatchedAt", "queuedAt" FROM "Job" WHERE id = $1',
    [id],
  );
  expect(row).toEqual({ dispatchedAt: null, queuedAt: null });

  const approve = await api.call("POST", `/api/jobs/${id}/approve`, { json: { comment: "go ahead" } });
  expect(approve.status, JSON.stringify(approve.json)).toBe(200);
  expect(approve.json.job.decidedBy).toBe("admin");
  job = await api.waitForEnd(id);
  expect(job.status).toBe("success");
  expect(await api.output(id)).toContain("approved change: patch window");
  expect((await api.call("POST", `/api/jobs/${id}/approve`)).status).toBe(409);
});

it("ends a rejected job rejected, with who and why", async () => {
  const id = await api.launch("needs-approval", { reason: "friday deploy" });
  const reject = await api.call("POST", `/api/jobs/${id}/reject`, { json: { comment: "not on a Friday" } });
  expect(reject.status).toBe(200);
  expect(reject.json.job.status).toBe("rejected");
  expect(reject.json.job.statusReason).toBe("rejected by admin: not on a Friday");
  expect((await api.call("POST", `/api/jobs/${id}/approve`)).json.error.message).toMatch(/not waiting for approval \(it is rejected\)/);
});

it("lets the launcher abort a job still waiting, and refuses decisions on other jobs", async () => {
  const id = await api.launch("needs-approval", { reason: "changed my mind" });
  expect((await api.call("POST", `/api/jobs/${id}/abort`)).status).toBe(202);
  const { job } = await api.get(`/api/jobs/${id}`);
  expect(job.status).toBe("aborted");
  expect(job.statusReason).toBe("aborted by admin while waiting for approval");

  const plain = await api.launch("secret-echo", { api_key: "not-needed-here" });
  const answer = await api.call("POST", `/api/jobs/${plain}/approve`);
  expect(answer.status).toBe(409);
  expect((await api.call("POST", "/api/jobs/999999/approve")).status).toBe(404);
  expect((await api.call("POST", `/api/jobs/${id}/approve`, { json: { comment: 7 } })).status).toBe(400);
});

it("fails a job no runner takes within RTE_QUEUE_MINUTES, saying why", async () => {
  const id = await api.launch("gate", { gate: "/nonexistent/never-opened" });
  // Visibly queued while it waits.
  const waiting = await waitFor(`job ${id} to say what it waits for`, async () => {
    const { job } = await api.get(`/api/jobs/${id}`);
    return job.statusReason !== null && job;
  });
  expect(waiting).toMatchObject({ status: "queued", statusReason: "waiting for runner resilience: no instance is connected" });

  const job = await api.waitForEnd(id, 60_000);
  expect(job.status).toBe("failed");
  expect(job.statusReason).toBe(
    `no runner took the job within ${QUEUE_MINUTES} minute(s) (RTE_QUEUE_MINUTES): its runner was full or disconnected`,
  );
  expect(job.exitCode).toBeNull();
  // Not before its time.
  const [row] = await dbQuery<{ queuedAt: string | number }>(app, 'SELECT "queuedAt" FROM "Job" WHERE id = $1', [id]);
  expect(Date.parse(job.finishedAt) - new Date(row!.queuedAt).getTime()).toBeGreaterThanOrEqual(Number(QUEUE_MINUTES) * 60_000);
  expect((await api.get(`/api/jobs/${id}/output?after=0`)).chunks).toEqual([]);
});
