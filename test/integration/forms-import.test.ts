/**
 * Publishing forms: an admin edits the forms folder and re-imports it without a restart; a
 * broken form is refused with its file and the reason, the others still import.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

const EXAMPLES = path.resolve(import.meta.dirname, "../../server/forms/examples");
let app: RunningPlayform;
let api: ApiClient;
let formsDir: string;

beforeAll(async () => {
  formsDir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-forms-"));
  fs.cpSync(path.join(EXAMPLES, "hello-world"), path.join(formsDir, "hello-world"), { recursive: true });
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: formsDir } });
  api = apiClient(app, await adminToken(app));
});
afterAll(async () => {
  await app?.stop();
  fs.rmSync(formsDir, { recursive: true, force: true });
});

it("re-imports the forms folder on request and explains what it refused", async () => {
  expect((await api.get("/api/forms")).forms.map((f: { name: string }) => f.name)).toEqual(["hello-world"]);

  // A new form, and a broken one (its playbook is missing, its field name is invalid).
  fs.cpSync(path.join(EXAMPLES, "system-report"), path.join(formsDir, "system-report"), { recursive: true });
  fs.mkdirSync(path.join(formsDir, "broken"));
  fs.writeFileSync(
    path.join(formsDir, "broken", "form.yaml"),
    "name: broken\ntitle: Broken\nplaybook: missing.yml\nfields:\n  - name: 'not a var'\n    type: text\n",
  );

  const answer = await api.call("POST", "/api/forms/import");
  expect(answer.status).toBe(200);
  expect(answer.json.imported).toEqual(["hello-world", "system-report"]);
  expect(answer.json.errors).toHaveLength(1);
  expect(answer.json.errors[0]).toContain(path.join(formsDir, "broken", "form.yaml"));
  expect(answer.json.errors[0]).toMatch(/fields\.0\.name: must be a valid Ansible variable name/);

  expect((await api.get("/api/forms")).forms.map((f: { name: string }) => f.name).sort()).toEqual(["hello-world", "system-report"]);
  const job = await api.waitForEnd(await api.launch("system-report", {}));
  expect(job.status).toBe("success");

  await api.call("POST", "/api/users", { json: { username: "frank", password: "frank-password" } });
  const token = await api.call("POST", "/api/auth/token", {
    headers: { authorization: `Basic ${Buffer.from("frank:frank-password").toString("base64")}` },
  });
  expect(token.status).toBe(201);
  const frank = apiClient(app, token.json.token as string);
  expect((await frank.call("POST", "/api/forms/import")).status).toBe(403);
});

it("refuses a form whose password field has a default, naming the form and the field, and never serves the default", async () => {
  fs.mkdirSync(path.join(formsDir, "db-reset"));
  fs.writeFileSync(path.join(formsDir, "db-reset", "site.yml"), "- hosts: localhost\n  gather_facts: false\n  tasks: []\n");
  fs.writeFileSync(
    path.join(formsDir, "db-reset", "form.yaml"),
    [
      "name: db-reset",
      "title: Reset a database",
      "playbook: site.yml",
      "fields:",
      "  - name: db_user",
      "    type: text",
      "    default: admin",
      "  - name: db_password",
      "    type: password",
      "    default: hunter2-form-default",
      "",
    ].join("\n"),
  );

  const answer = await api.call("POST", "/api/forms/import");
  expect(answer.status).toBe(200);
  expect(answer.json.imported).not.toContain("db-reset");
  const error = (answer.json.errors as string[]).find((e) => e.includes(path.join(formsDir, "db-reset", "form.yaml")));
  expect(error, JSON.stringify(answer.json.errors)).toMatch(
    /fields\.1\.default: form "db-reset": password field "db_password" may not have a default/,
  );
  expect(error).not.toContain("hunter2-form-default");

  const form = await api.call("GET", "/api/forms/db-reset");
  expect(form.status).toBe(404);
  expect(JSON.stringify(await api.get("/api/forms"))).not.toContain("hunter2-form-default");
  fs.rmSync(path.join(formsDir, "db-reset"), { recursive: true });
});
