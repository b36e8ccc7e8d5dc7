/**
 * Run again (POST /api/jobs/ID/relaunch): the new job takes the old one's values and run options,
 * given keys win, password fields must be given again, it links back (`relaunchOf`), and only
 * someone who may read the job and launch its form gets through.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, dbExecute, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let api: ApiClient;
let formsDir: string;

beforeAll(async () => {
  // hello-world (run options: check, diff, verbosity) and secret-echo (a required password field).
  formsDir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-relaunch-forms-"));
  const root = path.resolve(import.meta.dirname, "../..");
  fs.cpSync(path.join(root, "server/forms/examples/hello-world"), path.join(formsDir, "hello-world"), { recursive: true });
  fs.cpSync(path.join(root, "test/fixtures/forms/secret-echo"), path.join(formsDir, "secret-echo"), { recursive: true });
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: formsDir } });
  api = apiClient(app, await adminToken(app));
});
afterAll(async () => {
  await app?.stop();
  if (formsDir) fs.rmSync(formsDir, { recursive: true, force: true });
});

it("copies the values and run options, lets given ones win, and links back", async () => {
  const first = await api.call("POST", "/api/jobs", {
    json: { form: "hello-world", values: { message: "first run" }, options: { check: true, verbosity: 1 } },
  });
  expect(first.status, JSON.stringify(first.json)).toBe(201);
  const old = await api.waitForEnd(first.json.id);
  expect(old.relaunchOf).toBeNull();

  const again = await api.call("POST", `/api/jobs/${old.id}/relaunch`, { json: {} });
  expect(again.status, JSON.stringify(again.json)).toBe(201);
  const copy = (await api.call("GET", `/api/jobs/${again.json.id}`)).json;
  expect(copy.job.relaunchOf).toBe(old.id);
  expect(copy.job.values).toEqual(old.values);
  expect(copy.job.runOptions).toEqual({ check: true, verbosity: 1 });
  expect(copy.permissions.relaunch).toBe(true);

  const changed = await api.call("POST", `/api/jobs/${old.id}/relaunch`, {
    json: { values: { message: "second run" }, options: { check: false } },
  });
  expect(changed.status, JSON.stringify(changed.json)).toBe(201);
  const job = (await api.call("GET", `/api/jobs/${changed.json.id}`)).json.job;
  expect(job.values.message).toBe("second run");
  expect(job.runOptions).toEqual({ check: false, verbosity: 1 });
  expect(job.relaunchOf).toBe(old.id);
  await api.waitForEnd(again.json.id);
  await api.waitForEnd(changed.json.id);

  // Bad run options are the launch's 422, named.
  const bad = await api.call("POST", `/api/jobs/${old.id}/relaunch`, { json: { options: { limit: "web" } } });
  expect(bad.status).toBe(422);
  expect(bad.json.error.fields).toEqual({ "options.limit": "this form does not let you choose it at launch" });
});

it("needs the password again: the stored one is redacted and never reused", async () => {
  const id = await api.launch("secret-echo", { api_key: "s3cret-first", note: "kept" });
  const old = await api.waitForEnd(id);
  expect(old.values.api_key).toBe("********");

  const missing = await api.call("POST", `/api/jobs/${id}/relaunch`);
  expect(missing.status).toBe(422);
  expect(missing.json.error.fields).toEqual({ api_key: "is required" });

  const again = await api.call("POST", `/api/jobs/${id}/relaunch`, { json: { values: { api_key: "s3cret-second" } } });
  expect(again.status, JSON.stringify(again.json)).toBe(201);
  const job = await api.waitForEnd(again.json.id);
  expect(job.status).toBe("success");
  expect(job.values).toEqual({ api_key: "********", note: "kept" });
  expect(job.relaunchOf).toBe(id);

  // The audit trail says what was repeated.
  const audit = await api.call("GET", "/api/audit?action=job.launch");
  expect(audit.status).toBe(200);
  const event = audit.json.events.find((e: { target: string }) => e.target === `job:${again.json.id}`);
  expect(event?.details).toMatchObject({ form: "secret-echo", relaunchOf: id });
});

it("answers 404 to someone who cannot read the job, and for no such job", async () => {
  const id = await api.launch("hello-world", { message: "mine" });
  await api.waitForEnd(id);
  const created = await api.call("POST", "/api/users", { json: { username: "stranger", password: "stranger-password-1" } });
  expect(created.status).toBe(201);
  const response = await fetch(`${app.url}/api/auth/token`, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from("stranger:stranger-password-1").toString("base64")}` },
  });
  const stranger = apiClient(app, ((await response.json()) as { token: string }).token);
  const refused = await stranger.call("POST", `/api/jobs/${id}/relaunch`, { json: {} });
  expect(refused.status).toBe(404);
  expect(refused.json.error.message).toBe(`no job ${id}`);
  expect((await api.call("POST", "/api/jobs/999999/relaunch", { json: {} })).status).toBe(404);
});

it("refuses to run a preview again (409)", async () => {
  const id = await api.launch("secret-echo", { api_key: "s3cret-preview" });
  await api.waitForEnd(id);
  // Previews are made by the form page's Preview; marked here by hand.
  await dbExecute(app, `UPDATE "Job" SET "kind" = 'preview' WHERE "id" = $1`, [id]);
  const refused = await api.call("POST", `/api/jobs/${id}/relaunch`, { json: { values: { api_key: "x" } } });
  expect(refused.status).toBe(409);
  expect(refused.json.error.message).toMatch(/preview/);
});
