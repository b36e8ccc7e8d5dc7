/**
 * What a launch and a schedule may ask of Playform, on a real app and its local RTE: an
 * Idempotency-Key makes a launch sent twice (a double click, a retry, even at once) start one
 * job; a non-admin's schedules have a shortest interval and a number limit; a form's choice of
 * runners lets the launcher pick one of those that are approved.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTRACT_VERSION } from "../../server/protocol/rte-messages";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, dbExecute, dbQuery, startPlayform, type RunningPlayform } from "../support/playform";

const INVENTORY = 'localhost ansible_connection=local ansible_python_interpreter="{{ ansible_playbook_python }}"\n';
const PLAYBOOK = `- name: Guarded
  hosts: localhost
  gather_facts: false
  tasks:
    - ansible.builtin.debug:
        msg: "{{ note | default('') }}"
`;
const FORMS: Record<string, string> = {
  plain: "name: plain\ntitle: Plain\nplaybook: playbook.yml\ninventories: [inventory.ini]\nfields:\n  - { name: note, type: text }\n",
  // dc9 approved but never connected, dc8 waits for approval, local is the app's own.
  choose: "name: choose\ntitle: Choose a runner\nplaybook: playbook.yml\ninventories: [inventory.ini]\nrunners: [dc9, local, dc8]\n",
};

let app: RunningPlayform;
let admin: ApiClient;
let alice: ApiClient;
let formsDir: string;

async function tokenOf(username: string, password: string): Promise<string> {
  const response = await fetch(`${app.url}/api/auth/token`, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}` },
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { token: string }).token;
}

beforeAll(async () => {
  formsDir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-guard-forms-"));
  for (const [name, yaml] of Object.entries(FORMS)) {
    fs.mkdirSync(path.join(formsDir, name));
    fs.writeFileSync(path.join(formsDir, name, "form.yaml"), yaml);
    fs.writeFileSync(path.join(formsDir, name, "playbook.yml"), PLAYBOOK);
    fs.writeFileSync(path.join(formsDir, name, "inventory.ini"), INVENTORY);
  }
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: formsDir, PLAYFORM_SCHEDULES_PER_USER: "3" } });
  admin = apiClient(app, await adminToken(app));
  expect((await admin.call("POST", "/api/users", { json: { username: "alice", password: "alice-password-1" } })).status).toBe(201);
  alice = apiClient(app, await tokenOf("alice", "alice-password-1"));
});
afterAll(async () => {
  await app?.stop();
  if (formsDir) fs.rmSync(formsDir, { recursive: true, force: true });
});

const jobsWithKey = async (key: string) =>
  (await dbQuery<{ n: number | string }>(app, 'SELECT COUNT(*) AS n FROM "Job" WHERE "idempotencyKey" = $1', [key]))[0]!.n;
const jobCount = async () => Number((await dbQuery<{ n: number | string }>(app, 'SELECT COUNT(*) AS n FROM "Job"'))[0]!.n);

describe("POST /api/jobs with an Idempotency-Key", () => {
  const launch = (key: string, values: Record<string, unknown> = { note: "once" }, client = alice) =>
    client.call("POST", "/api/jobs", { json: { form: "plain", values }, headers: { "Idempotency-Key": key } });

  it("starts one job for ten requests sent at once with the same key, and answers them all with it", async () => {
    const before = await jobCount();
    const answers = await Promise.all(Array.from({ length: 10 }, () => launch("double-click-1")));
    const ids = new Set(answers.map((answer) => answer.json.id));
    expect(ids.size, JSON.stringify(answers.map((a) => [a.status, a.json]))).toBe(1);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(await jobCount()).toBe(before + 1);
    expect(Number(await jobsWithKey("double-click-1"))).toBe(1);
    const [id] = ids;
    expect((await alice.waitForEnd(id)).status).toBe("success");
    // Later, too (a retry after a lost answer): the same job, nothing started.
    const again = await launch("double-click-1");
    expect([again.status, again.json.id]).toEqual([200, id]);
    expect(await jobCount()).toBe(before + 1);
  });

  it("keys are per user, a new key starts a new job, and a request without one is never deduplicated", async () => {
    const first = await launch("per-user");
    const bobs = await launch("per-user", { note: "once" }, admin);
    expect([first.status, bobs.status]).toEqual([201, 201]);
    expect(bobs.json.id).not.toBe(first.json.id);
    const other = await launch("per-user-2");
    expect(other.status).toBe(201);
    const plain1 = await alice.call("POST", "/api/jobs", { json: { form: "plain", values: { note: "x" } } });
    const plain2 = await alice.call("POST", "/api/jobs", { json: { form: "plain", values: { note: "x" } } });
    expect([plain1.status, plain2.status]).toEqual([201, 201]);
    expect(plain2.json.id).not.toBe(plain1.json.id);
  });

  it("refuses the same key with other values, and a malformed key, naming the header", async () => {
    expect((await launch("reused")).status).toBe(201);
    const other = await launch("reused", { note: "something else" });
    expect(other.status).toBe(422);
    expect(Object.keys(other.json.error.fields)).toEqual(["Idempotency-Key"]);
    expect(other.json.error.message).toMatch(/Idempotency-Key: was already used for another launch \(job \d+\)/);
    const bad = await launch("x".repeat(256));
    expect(bad.status).toBe(422);
    expect(bad.json.error.fields["Idempotency-Key"]).toMatch(/1 to 255 visible ASCII characters/);
  });

  it("answers the first job only within 24 hours: an older key starts a new job", async () => {
    const first = await launch("yesterday");
    expect(first.status).toBe(201);
    const [row] = await dbQuery<{ createdAt: unknown }>(app, 'SELECT "createdAt" FROM "Job" WHERE id = $1', [first.json.id]);
    const dayAndHourAgo = Date.now() - 25 * 3600 * 1000;
    // The database's own representation of a date (SQLite: milliseconds or text; PostgreSQL: a timestamp).
    const stored =
      typeof row!.createdAt === "number"
        ? dayAndHourAgo
        : row!.createdAt instanceof Date
          ? new Date(dayAndHourAgo)
          : new Date(dayAndHourAgo).toISOString();
    await dbExecute(app, 'UPDATE "Job" SET "createdAt" = $1 WHERE id = $2', [stored, first.json.id]);
    const later = await launch("yesterday");
    expect(later.status).toBe(201);
    expect(later.json.id).not.toBe(first.json.id);
  });
});

describe("a non-admin's schedules", () => {
  const schedule = (cron: string, enabled = true, client = alice) =>
    client.call("POST", "/api/schedules", { json: { form: "plain", values: {}, cron, enabled } });

  it("run at most once every PLAYFORM_SCHEDULE_MIN_SECONDS (60 s), on create and on change; admins are not limited", async () => {
    for (const cron of ["* * * * * *", "*/30 * * * * *", "0,10 0 * * * *"]) {
      const refused = await schedule(cron);
      expect(refused.status, cron).toBe(422);
      expect(Object.keys(refused.json.error.fields)).toEqual(["cron"]);
      expect(refused.json.error.fields.cron).toMatch(
        /apart at times; a schedule may run at most once every 60 s \(a limit your admin sets\)$/,
      );
      // The rule in the user's words: the server setting is for admins and the docs.
      expect(refused.json.error.message).not.toContain("PLAYFORM_");
    }
    const everyMinute = await schedule("* * * * *", false);
    expect(everyMinute.status, JSON.stringify(everyMinute.json)).toBe(201);
    const faster = await alice.call("PATCH", `/api/schedules/${everyMinute.json.id}`, { json: { cron: "*/5 * * * * *" } });
    expect(faster.status).toBe(422);
    expect(faster.json.error.fields.cron).toMatch(/at most once every 60 s/);
    expect((await alice.get(`/api/schedules/${everyMinute.json.id}`)).schedule.cron).toBe("* * * * *");
    // Admins may (paused here, so it starts nothing).
    expect((await schedule("* * * * * *", false, admin)).status).toBe(201);
    expect((await alice.call("DELETE", `/api/schedules/${everyMinute.json.id}`)).status).toBe(204);
  });

  it("are at most PLAYFORM_SCHEDULES_PER_USER (3 here) enabled at once, on create and when enabling one", async () => {
    for (let i = 0; i < 3; i++) expect((await schedule("0 6 * * *")).status).toBe(201);
    const fourth = await schedule("0 7 * * *");
    expect(fourth.status).toBe(422);
    expect(Object.keys(fourth.json.error.fields)).toEqual(["enabled"]);
    expect(fourth.json.error.fields.enabled).toBe(
      "you may have at most 3 enabled schedules (a limit your admin sets): pause or delete one first",
    );
    const paused = await schedule("0 7 * * *", false);
    expect(paused.status).toBe(201);
    const enable = await alice.call("PATCH", `/api/schedules/${paused.json.id}`, { json: { enabled: true } });
    expect(enable.status).toBe(422);
    expect(enable.json.error.fields.enabled).toMatch(/at most 3 enabled schedules/);
    // An admin's own schedules are not counted against them.
    expect((await schedule("0 8 * * *", true, admin)).status).toBe(201);
  });
});

describe("a form's choice of runners", () => {
  async function joinApproved(name: string, approve: boolean): Promise<void> {
    const joined = await admin.call("POST", "/api/runners/join", {
      json: { v: CONTRACT_VERSION, name, version: "test", capacity: 1 },
      auth: false,
    });
    expect(joined.status, JSON.stringify(joined.json)).toBe(202);
    if (approve) expect((await admin.call("POST", `/api/runners/${joined.json.runnerId}/approve`)).status).toBe(200);
  }

  it("shows the runners with their state, takes the one chosen among the approved, and refuses any other", async () => {
    await joinApproved("dc9", true);
    await joinApproved("dc8", false);
    const form = await alice.get("/api/forms/choose");
    expect(form.form.runners).toEqual([
      { name: "dc9", status: "approved", connected: false },
      { name: "local", status: "approved", connected: true },
      { name: "dc8", status: "pending", connected: false },
    ]);
    expect((await alice.get("/api/forms/plain")).form.runners).toBeNull();

    const onLocal = await alice.call("POST", "/api/jobs", { json: { form: "choose", runner: "local" } });
    expect(onLocal.status, JSON.stringify(onLocal.json)).toBe(201);
    const ran = await alice.waitForEnd(onLocal.json.id);
    expect([ran.status, ran.runner]).toEqual(["success", "local"]);

    // Not chosen: the first approved runner of the list, here one that is away (the job waits for it).
    const waiting = await alice.call("POST", "/api/jobs", { json: { form: "choose" } });
    expect(waiting.status).toBe(201);
    const queued = (await alice.get(`/api/jobs/${waiting.json.id}`)).job;
    expect([queued.status, queued.runner]).toEqual(["queued", "dc9"]);
    expect((await alice.call("POST", `/api/jobs/${waiting.json.id}/abort`)).status).toBe(202);

    const outside = await alice.call("POST", "/api/jobs", { json: { form: "choose", runner: "elsewhere" } });
    expect(outside.status).toBe(422);
    expect(outside.json.error.fields.runner).toBe(`must be one of the form's runners (dc9, local, dc8), not "elsewhere"`);
    const pending = await alice.call("POST", "/api/jobs", { json: { form: "choose", runner: "dc8" } });
    expect(pending.status).toBe(422);
    expect(pending.json.error.fields.runner).toMatch(/runner "dc8" is pending: only an approved runner takes jobs/);
    const noChoice = await alice.call("POST", "/api/jobs", { json: { form: "plain", runner: "dc9" } });
    expect(noChoice.status).toBe(422);
    expect(noChoice.json.error.fields.runner).toMatch(/offers no choice of runner/);
  });
});
