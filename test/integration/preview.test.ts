/**
 * Preview (docs/api.md, "Preview"): the real app, its local RTE and the real ansible-playbook
 * list a fixture form's plays, tasks and tags for the given values and options, and run
 * nothing: the marker file the playbook's first task would write is never written (until the
 * same values are launched). The preview stays out of the job list. The forms:
 * test/fixtures/forms-preview.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { waitFor } from "../support/wait";

let app: RunningPlayform;
let api: ApiClient;
const markers: string[] = [];

/** A path in /tmp (open to the playbook user) that nothing has written yet. */
function freshMarker(): string {
  const marker = path.join(os.tmpdir(), `playform-preview-${randomBytes(6).toString("hex")}`);
  markers.push(marker);
  return marker;
}

async function preview(form: string, body: unknown): Promise<any> {
  const started = await api.call("POST", `/api/forms/${form}/preview`, { json: body });
  expect(started.status, JSON.stringify(started.json)).toBe(201);
  const id = started.json.id as number;
  return waitFor(
    `preview ${id} to end`,
    async () => {
      const plan = await api.get(`/api/forms/${form}/preview/${id}`);
      return plan.done ? plan : null;
    },
    { details: () => app.output() },
  );
}

beforeAll(async () => {
  // The playbook reads or writes the test's marker files in /tmp, which its private /tmp would hide.
  app = await startPlayform({
    env: { RTE_PLAYBOOK_PRIVATE_TMP: "off", PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms-preview") },
  });
  api = apiClient(app, await adminToken(app));
}, 120_000);
afterAll(async () => {
  await app?.stop();
  for (const marker of markers) fs.rmSync(marker, { force: true });
});

it("lists the plays with their host patterns, the tasks and the tags, and runs nothing", async () => {
  const marker = freshMarker();
  const plan = await preview("plan-probe", { values: { marker } });
  expect(plan).toMatchObject({ form: "plan-probe", status: "success", done: true, error: null });
  expect(plan.plays).toEqual([
    {
      number: 1,
      name: "Write the marker",
      hosts: "local",
      tags: ["setup"],
      tasks: [
        { name: "Write the marker file", tags: ["files", "setup", "write"] },
        { name: "Say the greeting", tags: ["check-block", "setup"] },
      ],
    },
    { number: 2, name: "Second play on all hosts", hosts: "all:!nothing", tags: [], tasks: [{ name: "Greet again", tags: [] }] },
  ]);
  expect(plan.tags).toEqual(["check-block", "files", "setup", "write"]);
  expect(fs.existsSync(marker), "the preview wrote the marker: the playbook ran").toBe(false);

  // A job like any other for its reader, but not in the job list.
  const { job } = await api.get(`/api/jobs/${plan.id}`);
  expect(job.form).toBe("plan-probe");
  const list = await api.get("/api/jobs?limit=100");
  expect(list.jobs.map((j: { id: number }) => j.id)).not.toContain(plan.id);
  const filtered = await api.get("/api/jobs?form=plan-probe&limit=100");
  expect(filtered.jobs).toEqual([]);
  // The runner was told to list, not to run.
  expect(await api.output(plan.id)).toMatch(/play #1 \(local\): Write the marker/);

  const audit = await api.get("/api/audit?action=job.preview");
  expect(audit.events[0]).toMatchObject({ action: "job.preview", target: `job:${plan.id}`, outcome: "success" });

  // The same values launched do write it: the fixture would have shown a run.
  const run = await api.launch("plan-probe", { marker });
  expect((await api.waitForEnd(run)).status).toBe("success");
  expect(fs.existsSync(marker)).toBe(true);
  const after = await api.get("/api/jobs?form=plan-probe&limit=100");
  expect(after.jobs.map((j: { id: number }) => j.id)).toEqual([run]);
});

it("lists only what the chosen tags select, with the other run options", async () => {
  const marker = freshMarker();
  const plan = await preview("plan-probe", { values: { marker }, options: { tags: ["write"], check: true, limit: "localhost" } });
  expect(plan.error).toBeNull();
  expect(plan.plays.map((p: { tasks: { name: string }[] }) => p.tasks.map((t) => t.name))).toEqual([["Write the marker file"], []]);
  expect(plan.tags).toEqual(["files", "setup", "write"]);
  expect(fs.existsSync(marker)).toBe(false);
});

it("never waits for approval, where a launch of the same form does", async () => {
  const marker = freshMarker();
  const plan = await preview("needs-approval", { values: { marker } });
  expect(plan).toMatchObject({ status: "success", error: null });
  expect(plan.plays.map((p: { name: string }) => p.name)).toEqual(["Write the marker", "Second play on all hosts"]);
  const run = await api.launch("needs-approval", { marker });
  expect((await api.get(`/api/jobs/${run}`)).job.status).toBe("approval");
  expect(fs.existsSync(marker)).toBe(false);
});

it("refuses values and options as a launch does, storing nothing", async () => {
  const bad = await api.call("POST", "/api/forms/plan-probe/preview", { json: { values: { marker: "" }, options: { verbosity: 2 } } });
  expect(bad.status).toBe(422);
  expect(Object.keys(bad.json.error.fields).sort()).toEqual(["marker", "options.verbosity"]);
  const unknown = await api.call("POST", "/api/forms/no-such-form/preview", { json: {} });
  expect(unknown.status).toBe(404);
  const extra = await api.call("POST", "/api/forms/plan-probe/preview", { json: { form: "plan-probe", values: {} } });
  expect([400, 422]).toContain(extra.status);
});

it("shows Ansible's error for a playbook that does not parse", async () => {
  const plan = await preview("broken", {});
  expect(plan.status).toBe("failed");
  expect(plan.plays).toEqual([]);
  expect(plan.error).toMatch(/Syntax Error while loading YAML/);
});

it("answers 404 for a run asked as a preview, and for a preview of another form", async () => {
  const run = await api.launch("plan-probe", { marker: freshMarker() });
  expect((await api.call("GET", `/api/forms/plan-probe/preview/${run}`)).status).toBe(404);
  const started = await api.call("POST", "/api/forms/broken/preview", { json: {} });
  expect((await api.call("GET", `/api/forms/plan-probe/preview/${started.json.id}`)).status).toBe(404);
  await api.waitForEnd(run);
  await api.waitForEnd(started.json.id);
});
