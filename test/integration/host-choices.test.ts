/**
 * A hosts field's inventory is read by a runner, never by the app. The form's
 * inventory is an inventory plugin of the form's own folder (ansible.cfg names it) that writes
 * where it ran and with which environment: it must run in a folder of the RTE, without the app's
 * ENCRYPTION_SECRET, DATABASE_URL, PGPASSWORD or any PLAYFORM_ or RTE_ variable, and only once
 * for the same files (the second page view and the launch hit the cache). It runs exactly as a
 * playbook does: in a pid namespace of its own where bubblewrap works, and the background child
 * the plugin starts (setsid) ends with the listing. Any viewer of a form triggers a listing, so
 * twenty page views at once start one listing, and after a failed listing the next views answer
 * that failure, rate-limited, without starting another. An app with no runner connected says so
 * on the field, and refuses a launch with a hosts value (503 naming the field).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

const ENCRYPTION_SECRET = "host-choices-encryption-secret-0123456789";
const PGPASSWORD = "host-choices-pg-password-3c9d";
const BWRAP = fs.existsSync("/usr/bin/bwrap");

const PLUGIN = `import json
import os
import subprocess
import sys
import time

from ansible.errors import AnsibleParserError
from ansible.plugins.inventory import BaseInventoryPlugin

# Left running in the background, in a session of its own (out of the listing's process group):
# writes its pid as the machine sees it (/proc is the machine's, also in bwrap's pid namespace).
CHILD = "import os, sys, time\\nopen(sys.argv[1], 'w').write(os.readlink('/proc/self'))\\ntime.sleep(300)\\n"

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
        out_file = __OUT__
        spy_dir = os.path.dirname(out_file)
        pid_file = os.path.join(spy_dir, "child-%d-%d.pid" % (os.getpid(), time.time_ns()))
        subprocess.Popen(
            [sys.executable, "-c", CHILD, pid_file, "playform-spy-child"],
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.time() + 10
        while not (os.path.exists(pid_file) and os.path.getsize(pid_file) > 0) and time.time() < deadline:
            time.sleep(0.05)
        child = int(open(pid_file).read()) if os.path.exists(pid_file) else None
        record = {"cwd": os.getcwd(), "env": dict(os.environ), "pidns": os.readlink("/proc/self/ns/pid"), "child": child}
        with open(out_file, "a") as out:
            out.write(json.dumps(record) + "\\n")
        if os.path.exists(os.path.join(spy_dir, "fail")):
            raise AnsibleParserError("the spy was told to fail")
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
  pidns: string;
  child: number | null;
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
  // The spy writes its records into a folder of the runner's /tmp, which the listing's private /tmp would hide.
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: formsDir, ENCRYPTION_SECRET, PGPASSWORD, RTE_PLAYBOOK_PRIVATE_TMP: "off" } });
  api = apiClient(app, await adminToken(app));
}, 240_000);

/** The process is gone (or a zombie waiting to be reaped): no longer the spy's child. */
async function expectGone(pid: number): Promise<void> {
  const alive = () => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      return state !== "Z" && fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("playform-spy-child");
    } catch {
      return false;
    }
  };
  const deadline = Date.now() + 5_000;
  while (alive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(alive(), `the plugin's background child ${pid} outlived the listing`).toBe(false);
}

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
  // Nor what the app was started with.
  expect(record!.env.PGPASSWORD).toBeUndefined();
  expect(JSON.stringify(record!.env)).not.toContain(PGPASSWORD);
  // Run as a playbook runs: in a pid namespace of its own where bubblewrap works, and the
  // background child it left in a session of its own ended with the listing.
  if (BWRAP) expect(record!.pidns).not.toBe(fs.readlinkSync("/proc/self/ns/pid"));
  expect(record!.child).toBeTypeOf("number");
  await expectGone(record!.child!);

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

it("starts one listing for twenty page views at once, and after a failure answers it, rate-limited, without listing again", async () => {
  const listings = () => records().filter((r) => /^inventory-[0-9a-f]{12}$/.test(path.basename(r.cwd)));
  const before = listings().length;
  fs.appendFileSync(path.join(formsDir, "inventory-spy/spy.yml"), "# twenty views\n");
  const views = await Promise.all(Array.from({ length: 20 }, () => api.get("/api/forms/inventory-spy")));
  for (const view of views) expect(view.form.fields[0].choices, view.form.fields[0].choicesError).toHaveLength(2);
  expect(listings()).toHaveLength(before + 1);
  for (const record of listings()) await expectGone(record.child!);

  // A failing listing: its answer stands for a while, and page views meanwhile start nothing.
  fs.writeFileSync(path.join(spyDir, "fail"), "");
  try {
    fs.appendFileSync(path.join(formsDir, "inventory-spy/spy.yml"), "# failing\n");
    const first = (await api.get("/api/forms/inventory-spy")).form.fields[0];
    expect(first.choices).toEqual([]);
    expect(first.choicesError).toMatch(/^inventory spy\.yml: ansible-inventory cannot read it: /);
    expect(listings()).toHaveLength(before + 2);
    const again = await Promise.all(Array.from({ length: 20 }, () => api.get("/api/forms/inventory-spy")));
    for (const view of again) {
      expect(view.form.fields[0].choices).toEqual([]);
      expect(view.form.fields[0].choicesError).toMatch(
        /^inventory spy\.yml: ansible-inventory cannot read it: .*rate-limited after a failure: the next listing may start in \d+ s\)$/,
      );
    }
    expect(listings()).toHaveLength(before + 2);
  } finally {
    fs.rmSync(path.join(spyDir, "fail"), { force: true });
  }
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
