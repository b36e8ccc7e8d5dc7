/**
 * A hosts field's inventory is read by a runner, never by the app. The form's
 * inventory is an inventory plugin of the form's own folder (ansible.cfg names it) that writes
 * where it ran and with which environment: it must run in a folder of the RTE, without the app's
 * ENCRYPTION_SECRET, DATABASE_URL or any PLAYFORM_ or RTE_ variable, and only once for the same
 * files (the second page view and the launch hit the cache). An app with no runner connected
 * says so on the field, and refuses a launch with a hosts value (503 naming the field).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

const ENCRYPTION_SECRET = "host-choices-encryption-secret-0123456789";

const PLUGIN = `import json
import os

from ansible.plugins.inventory import BaseInventoryPlugin

DOCUMENTATION = """
name: spy
short_description: writes where and with which environment it ran
description: a test plugin
"""


class InventoryModule(BaseInventoryPlugin):
    NAME = "spy"

    def verify_file(self, path):
        return path.endswith("spy.yml")

    def parse(self, inventory, loader, path, cache=True):
        super().parse(inventory, loader, path, cache)
        with open(__OUT__, "a") as out:
            out.write(json.dumps({"cwd": os.getcwd(), "env": dict(os.environ)}) + "\\n")
        inventory.add_group("web")
        inventory.add_host("web1.example.test", group="web")
        inventory.add_host("web2.example.test", group="web")
`;

let root: string;
let formsDir: string;
let spyDir: string;
let spyFile: string;
let app: RunningPlayform;
let api: ApiClient;

interface SpyRecord {
  cwd: string;
  env: Record<string, string>;
}
const records = (): SpyRecord[] =>
  fs.existsSync(spyFile)
    ? fs
        .readFileSync(spyFile, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as SpyRecord)
    : [];

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "playform-host-choices-"));
  formsDir = path.join(root, "forms");
  // Writable by the playbook user the runner runs the inventory as (when it runs as root).
  spyDir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-inventory-spy-"));
  fs.chmodSync(spyDir, 0o777);
  spyFile = path.join(spyDir, "spy.jsonl");
  const form = path.join(formsDir, "inventory-spy");
  fs.mkdirSync(path.join(form, "plugins"), { recursive: true });
  fs.writeFileSync(
    path.join(form, "form.yaml"),
    "name: inventory-spy\ntitle: Inventory spy\nplaybook: playbook.yml\ninventories: [spy.yml]\nfields:\n  - { name: target, type: hosts }\n",
  );
  fs.writeFileSync(path.join(form, "spy.yml"), "plugin: spy\n");
  fs.writeFileSync(path.join(form, "ansible.cfg"), "[defaults]\ninventory_plugins = ./plugins\n[inventory]\nenable_plugins = spy\n");
  fs.writeFileSync(path.join(form, "plugins/spy.py"), PLUGIN.replace("__OUT__", JSON.stringify(spyFile)));
  fs.writeFileSync(
    path.join(form, "playbook.yml"),
    '- hosts: localhost\n  connection: local\n  gather_facts: false\n  tasks:\n    - ansible.builtin.debug:\n        msg: "target {{ target }}"\n',
  );
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: formsDir, ENCRYPTION_SECRET } });
  api = apiClient(app, await adminToken(app));
}, 240_000);

afterAll(async () => {
  await app?.stop();
  if (root) fs.rmSync(root, { recursive: true, force: true });
  if (spyDir) fs.rmSync(spyDir, { recursive: true, force: true });
});

it("reads the inventory on the runner, without the app's secrets, once for the same files", async () => {
  // Importing the form ran nothing of it.
  expect(records()).toEqual([]);

  const form = (await api.get("/api/forms/inventory-spy")).form;
  const target = form.fields.find((f: { name: string }) => f.name === "target");
  expect(target.choices, target.choicesError).toEqual([
    { value: "web1.example.test", label: "web1.example.test" },
    { value: "web2.example.test", label: "web2.example.test" },
  ]);
  expect(target.choicesError).toBeUndefined();

  const [record, ...more] = records();
  expect(more).toEqual([]);
  // Not in the form's folder on the app: in a private folder of the RTE's, made for the listing.
  expect(record!.cwd.startsWith(formsDir)).toBe(false);
  expect(path.basename(record!.cwd)).toMatch(/^inventory-[0-9a-f]{12}$/);
  expect(fs.existsSync(record!.cwd)).toBe(false);
  // With the playbook's environment: none of the app's secrets nor the app's or the runner's settings.
  expect(record!.env.ENCRYPTION_SECRET).toBeUndefined();
  expect(record!.env.DATABASE_URL).toBeUndefined();
  expect(JSON.stringify(record!.env)).not.toContain(ENCRYPTION_SECRET);
  expect(JSON.stringify(record!.env)).not.toContain(app.adminPassword);
  expect(Object.keys(record!.env).filter((name) => name.startsWith("PLAYFORM_") || name.startsWith("RTE_"))).toEqual([]);

  // The same files again: from the cache, nothing runs.
  expect((await api.get("/api/forms/inventory-spy")).form.fields[0].choices).toHaveLength(2);
  expect(records()).toHaveLength(1);
  // A launch checks its value against the same cached listing (the job's own ansible-playbook
  // then reads the inventory too, in the job's folder: not a listing).
  const job = await api.waitForEnd(await api.launch("inventory-spy", { target: "web2.example.test" }));
  expect(job.status).toBe("success");
  const refused = await api.call("POST", "/api/jobs", { json: { form: "inventory-spy", values: { target: "db9.example.test" } } });
  expect(refused.status, JSON.stringify(refused.json)).toBe(422);
  const listings = () => records().filter((r) => /^inventory-[0-9a-f]{12}$/.test(path.basename(r.cwd)));
  expect(listings()).toHaveLength(1);

  // Changed files are other files: listed anew.
  fs.appendFileSync(path.join(formsDir, "inventory-spy/spy.yml"), "# changed\n");
  expect((await api.get("/api/forms/inventory-spy")).form.fields[0].choices).toHaveLength(2);
  expect(listings()).toHaveLength(2);
  // No record was ever written by the app: every one has the playbook's environment.
  expect(records().filter((r) => r.env.DATABASE_URL !== undefined || r.env.ENCRYPTION_SECRET !== undefined)).toEqual([]);
});

it("says on the field that no runner can list the inventory, and refuses a launch with a hosts value (503)", async () => {
  const bare = await startPlayform({ env: { PLAYFORM_FORMS_DIR: formsDir, PLAYFORM_LOCAL_RTE: "false" } });
  try {
    const client = apiClient(bare, await adminToken(bare));
    const before = records().length;
    const field = (await client.get("/api/forms/inventory-spy")).form.fields[0];
    expect(field.choices).toEqual([]);
    expect(field.choicesError).toMatch(/inventory spy\.yml: .*runner/);
    const launch = await client.call("POST", "/api/jobs", { json: { form: "inventory-spy", values: { target: "web1.example.test" } } });
    expect(launch.status, JSON.stringify(launch.json)).toBe(503);
    expect(launch.json.error.fields.target).toMatch(/cannot be checked: inventory spy\.yml/);
    expect(records()).toHaveLength(before);
  } finally {
    await bare.stop();
  }
});
