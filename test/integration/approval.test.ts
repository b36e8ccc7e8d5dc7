/**
 * Forms with `requiresApproval`: their jobs wait in status `approval`, reach no runner until
 * an admin approves them, and end rejected (saying who and why) when an admin rejects them.
 */
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, dbQuery, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let api: ApiClient;

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms") } });
  api = apiClient(app, await adminToken(app));
});
afterAll(async () => {
  await app?.stop();
});

it("holds the job until an admin approves it, then runs it", async () => {
  const id = await api.launch("needs-approval", { reason: "patch window" });
  // Well past a dispatch pass: still waiting, nothing sent to the runner.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
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
