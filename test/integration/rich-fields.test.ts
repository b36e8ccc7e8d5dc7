/**
 * Every field type through the API to the real ansible-playbook and back: the playbook of
 * test/fixtures/forms-rich/rich-echo prints the extravars it got as JSON, and the test reads
 * them from the job's output. Hidden fields are not sent, choices are checked (optionsFrom, the
 * inventory's hosts and groups), table cells keep Jinja as text, defaults name the user.
 */
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let api: ApiClient;

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms-rich") } });
  api = apiClient(app, await adminToken(app));
});
afterAll(async () => {
  await app?.stop();
});

/** The values the playbook printed (its `VALUES {...} END` debug message). */
async function printedValues(id: number): Promise<Record<string, unknown>> {
  const job = await api.waitForEnd(id);
  const output = await api.output(id);
  expect(job.status, output).toBe("success");
  const line = /"msg": ("VALUES .* END")/.exec(output);
  expect(line, output).not.toBeNull();
  const message = JSON.parse(line![1]!) as string;
  return JSON.parse(message.slice("VALUES ".length, -" END".length)) as Record<string, unknown>;
}

it("hands the playbook each type's value, and nothing of a hidden field", async () => {
  const launched = await api.call("POST", "/api/jobs", {
    json: {
      form: "rich-echo",
      values: {
        kind: "web",
        dbname: "ignored because hidden",
        port: "8080",
        flags: ["c", "a"],
        packages: ["nginx"],
        day: "2026-12-24",
        at: "2026-12-24T18:30",
        rows: [
          { user: "ada", uid: 1001, admin: true, until: "2027-01-31" },
          { user: "{{ 7 * 6 }}", uid: "" },
        ],
        target: "db-self",
        groups_picked: ["web", "db"],
        verbose: true,
      },
    },
  });
  expect(launched.status, JSON.stringify(launched.json)).toBe(201);
  expect(await printedValues(launched.json.id)).toEqual({
    kind: "web",
    dbname: "ABSENT",
    port: 8080,
    flags: ["c", "a"],
    packages: ["nginx"],
    day: "2026-12-24",
    at: "2026-12-24T18:30",
    rows: [
      { user: "ada", uid: 1001, admin: true, until: "2027-01-31" },
      // Jinja in a cell reaches the playbook as text, never evaluated.
      { user: "{{ 7 * 6 }}", uid: null, admin: false, until: null },
    ],
    target: "db-self",
    groups_picked: ["web", "db"],
    // Left out: the default, with the user's name (admin has no display name or email).
    owner: "admin <>",
    verbose: true,
  });
  // The job's stored values are the checked ones: the hidden field is not among them.
  const job = (await api.call("GET", `/api/jobs/${launched.json.id}`)).json.job;
  expect(job.values.dbname).toBeUndefined();
  expect(job.values.port).toBe(8080);
});

it("shows a field only when its condition holds, and requires it then", async () => {
  const launched = await api.call("POST", "/api/jobs", { json: { form: "rich-echo", values: { kind: "db", dbname: "orders" } } });
  expect(launched.status, JSON.stringify(launched.json)).toBe(201);
  const values = await printedValues(launched.json.id);
  expect(values).toMatchObject({ kind: "db", dbname: "orders", port: "ABSENT", flags: [], packages: [], rows: [], target: "ABSENT" });
});

it("refuses every broken value at once, each under its field's path, and stores nothing", async () => {
  const before = (await api.call("GET", "/api/jobs?form=rich-echo&limit=200")).json.jobs.length;
  const refused = await api.call("POST", "/api/jobs", {
    json: {
      form: "rich-echo",
      values: {
        kind: "db",
        packages: ["nginx"],
        flags: "a",
        day: "2025-12-31",
        at: "2026-12-24 18:30",
        rows: [{ user: "" }, { user: "x", shell: "/bin/sh" }],
        target: "elsewhere",
        groups_picked: ["all"],
      },
    },
  });
  expect(refused.status).toBe(422);
  expect(refused.json.error.fields).toEqual({
    dbname: "is required",
    flags: "must be a list of choices",
    packages: "nginx: must be one of: postgresql, pgbouncer",
    day: "must be 2026-01-01 or later",
    at: "must be a date and time like 2026-12-01T14:30",
    "rows.0.user": "is required",
    "rows.1.shell": "is not a column of this table",
    target: "must be one of: db-self, localhost",
    groups_picked: "all: must be one of: db, web",
  });
  expect((await api.call("GET", "/api/jobs?form=rich-echo&limit=200")).json.jobs.length).toBe(before);
});

it("gives the page the inventory's hosts and groups, and the defaults filled for the reader", async () => {
  const form = (await api.call("GET", "/api/forms/rich-echo")).json.form;
  const byName = Object.fromEntries(form.fields.map((f: { name: string }) => [f.name, f]));
  expect(byName.target.choices).toEqual([
    { value: "db-self", label: "db-self" },
    { value: "localhost", label: "localhost" },
  ]);
  expect(byName.groups_picked.choices.map((c: { value: string }) => c.value)).toEqual(["db", "web"]);
  expect(byName.owner.default).toBe("admin <>");
  expect(byName.dbname.visibleWhen).toEqual({ field: "kind", equals: "db" });
  expect(form.category).toBe("Tests");
});
