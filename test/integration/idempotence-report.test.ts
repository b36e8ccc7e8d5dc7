/**
 * The idempotence report of a form through the real app and the local RTE: a playbook with a
 * task that always changes, one that changes only the first time and one that never does, run
 * three times; then the JSON report, its CSV and JSON exports, and the refusals.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { ROOT } from "../support/rte-harness";

const FORM = "idempotence-mix";
const ALWAYS = 'Always changes, "every time"';
const ONCE = "Changes only the first time";

let app: RunningPlayform;
let api: ApiClient;
let token: string;
let stateDir: string;
const jobIds: number[] = [];

beforeAll(async () => {
  // The playbook reads or writes the test's state folder in /tmp, which its private /tmp would hide.
  app = await startPlayform({
    env: { RTE_PLAYBOOK_PRIVATE_TMP: "off", PLAYFORM_FORMS_DIR: path.join(ROOT, "test/fixtures/forms-idempotence") },
  });
  token = await adminToken(app);
  api = apiClient(app, token);
  // Outlives the jobs (each job's own folder is removed after it), writable by the playbook's
  // user (the RTE started as root runs playbooks as an unprivileged one).
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-idempotence-"));
  fs.chmodSync(stateDir, 0o777);
  for (let i = 0; i < 3; i++) {
    const job = await api.waitForEnd(await api.launch(FORM, { state_dir: stateDir }));
    expect(job.status, await api.output(job.id)).toBe("success");
    jobIds.push(job.id as number);
  }
});
afterAll(async () => {
  await app?.stop();
  if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true });
});

describe("GET /api/forms/NAME/idempotence", () => {
  it("says per task how often it changed, on which host, first and last run, worst first", async () => {
    const report = await api.get(`/api/forms/${FORM}/idempotence?last=10`);
    expect(report.form).toBe(FORM);
    expect(report.complete_runs).toBe(3);
    expect(report.skipped_incomplete).toBe(0);
    expect(report.runs.map((r: { id: string; source: string }) => [Number(r.id), r.source])).toEqual(jobIds.map((id) => [id, "events"]));
    expect(report.tasks_never_changed).toBe(1);
    expect(report.tasks.map((t: { task: string }) => t.task)).toEqual([ALWAYS, ONCE]);

    const [always, once] = report.tasks;
    expect(always).toMatchObject({
      play: "Idempotence mix",
      play_occurrence: 1,
      runs_changed: 3,
      runs_ran: 3,
      change_rate: 1,
      hosts: [{ host: "localhost", runs_changed: 3 }],
      hosts_unknown_runs: 0,
      changed_in_latest: true,
    });
    expect(Number(always.first_changed_run.id)).toBe(jobIds[0]);
    expect(Number(always.last_changed_run.id)).toBe(jobIds[2]);
    expect(always.first_changed_run.finished_at).toMatch(/^\d{4}-\d\d-\d\dT/);

    expect(once).toMatchObject({ runs_changed: 1, runs_ran: 3, hosts: [{ host: "localhost", runs_changed: 1 }], changed_in_latest: false });
    expect(Number(once.first_changed_run.id)).toBe(jobIds[0]);
    expect(Number(once.last_changed_run.id)).toBe(jobIds[0]);

    // Served again from the per-job cache: the same answer.
    expect(await api.get(`/api/forms/${FORM}/idempotence?last=10`)).toEqual(report);
    // The last 2 runs only: the first one, where "only the first time" changed, is out.
    const lastTwo = await api.get(`/api/forms/${FORM}/idempotence?last=2`);
    expect(lastTwo.tasks.map((t: { task: string; runs_changed: number }) => [t.task, t.runs_changed])).toEqual([[ALWAYS, 2]]);
  });

  it("exports CSV with a header and one quoted row per task, as a download", async () => {
    // Raw: a CSV download, read as bytes with its headers (the client reads JSON).
    const response = await fetch(`${app.url}/api/forms/${FORM}/idempotence?format=csv`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="${FORM}-idempotence.csv"`);
    const lines = (await response.text()).split("\r\n");
    expect(lines[0]).toBe(
      "play,play_occurrence,task,runs_changed,runs_ran,change_rate,hosts,first_changed_job,first_changed_at,last_changed_job,last_changed_at,changed_in_latest",
    );
    expect(lines[1]).toMatch(
      new RegExp(`^Idempotence mix,1,"Always changes, ""every time""",3,3,1,localhost:3,${jobIds[0]},[^,]+,${jobIds[2]},[^,]+,true$`),
    );
    expect(lines[2]).toMatch(new RegExp(`^Idempotence mix,1,${ONCE},1,3,0.3333,localhost:1,${jobIds[0]},[^,]+,${jobIds[0]},[^,]+,false$`));
    expect(lines.slice(3)).toEqual([""]);

    const json = await api.call("GET", `/api/forms/${FORM}/idempotence?format=json&last=10`);
    expect(json.status).toBe(200);
    expect(json.headers.get("content-disposition")).toBe(`attachment; filename="${FORM}-idempotence.json"`);
    expect(json.json.tasks).toHaveLength(2);
  });

  it("refuses bad parameters naming them, an unknown form, and no credentials", async () => {
    for (const [query, name] of [
      ["last=0", "last"],
      ["last=201", "last"],
      ["last=abc", "last"],
      ["format=xml", "format"],
    ]) {
      const answer = await api.call("GET", `/api/forms/${FORM}/idempotence?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.json.error.message, query).toMatch(new RegExp(`^${name}: `));
    }
    expect((await api.call("GET", "/api/forms/nope/idempotence")).status).toBe(404);
    expect((await api.call("GET", "/api/forms/nope/idempotence?format=csv")).status).toBe(404);
    expect((await api.call("GET", `/api/forms/${FORM}/idempotence`, { auth: false })).status).toBe(401);
  });
});
