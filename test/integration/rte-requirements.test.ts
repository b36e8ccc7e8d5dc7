/**
 * A form's requirements.yml installed by the runner (docs/forms.md "Requirements"), on real
 * parts: the production bundle's app and RTE, real ansible-galaxy and ansible-playbook, and only
 * local sources (no Galaxy, no internet): a collection the test builds (`ansible-galaxy collection
 * init` + a module + `collection build`) shipped as a tarball in the form's vendor/ folder, and a
 * role in a local git repository (`src: git+file:///…`).
 *
 * - job 1 installs (runner lines at the top of its output) and its playbook uses the collection's
 *   module and the role; job 2 with the same requirements says "cached" and installs nothing;
 * - two jobs launched at once with requirements nobody installed yet install them once;
 * - a requirements.yml naming a missing tarball fails the job before the playbook, quoting galaxy;
 *   jobs launched together with it run galaxy once and all fail so;
 * - the playbook cannot write into the cache entry it uses;
 * - a hosts field's inventory listing uses an inventory plugin of the installed collection, and
 *   before the first job says the requirements are not installed yet.
 */
import { execa } from "execa";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RteHarness } from "../support/rte-harness";

const RUNNER = "reqrun";
const COLLECTION = "playform_test.reqs";
const forms = fs.mkdtempSync(path.join(os.tmpdir(), "playform-req-forms-"));
const sources = fs.mkdtempSync(path.join(os.tmpdir(), "playform-req-sources-"));
const h = new RteHarness(forms, RUNNER);
let requirementsDir = "";

const PLAYBOOK = `- name: Uses its requirements
  hosts: localhost
  connection: local
  gather_facts: false
  roles:
    - greeter
  tasks:
    - name: The collection's module
      playform_test.reqs.hello:
        name: playform
      register: hello
    - name: Say what it said
      ansible.builtin.debug:
        msg: "module={{ hello.msg }}"
    - name: Try to write into the installed requirements
      ansible.builtin.shell: 'touch "$(echo "$ANSIBLE_COLLECTIONS_PATH" | cut -d: -f1)/written-by-playbook"'
      register: write
      failed_when: false
    - name: Say how that went
      ansible.builtin.debug:
        msg: "cache-write-rc={{ write.rc }} {{ write.stderr | default('') }}"
`;

const MODULE = `#!/usr/bin/python
from ansible.module_utils.basic import AnsibleModule


def main():
    module = AnsibleModule(argument_spec=dict(name=dict(type="str", default="world")))
    module.exit_json(changed=False, msg="hello %s from playform_test.reqs" % module.params["name"])


if __name__ == "__main__":
    main()
`;

/** An inventory plugin of the collection: a form's inventory names it (`plugin: playform_test.reqs.fixed`). */
const INVENTORY_PLUGIN = `from ansible.plugins.inventory import BaseInventoryPlugin

DOCUMENTATION = """
name: fixed
short_description: two fixed hosts
description: a test plugin
"""


class InventoryModule(BaseInventoryPlugin):
    NAME = "playform_test.reqs.fixed"

    def verify_file(self, path):
        return path.endswith((".yml", ".yaml"))

    def parse(self, inventory, loader, path, cache=True):
        super().parse(inventory, loader, path, cache)
        inventory.add_group("from_collection")
        for name in ("plugin-host-1", "plugin-host-2"):
            inventory.add_host(name, group="from_collection")
`;

/** A TCP server that accepts and never answers: a git clone from it hangs until it is stopped. */
const silent = net.createServer(() => undefined);

function form(name: string, requirements: string, extra: (dir: string) => void = () => undefined, playbook = PLAYBOOK): void {
  const dir = path.join(forms, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, "form.yaml"),
    `name: ${name}\ntitle: requirements test ${name}\nplaybook: playbook.yml\nrunner: ${RUNNER}\n`,
  );
  fs.writeFileSync(path.join(dir, "playbook.yml"), playbook);
  fs.writeFileSync(path.join(dir, "requirements.yml"), requirements);
  extra(dir);
}

beforeAll(async () => {
  // The collection, built offline into a tarball.
  await execa("ansible-galaxy", ["collection", "init", COLLECTION, "--init-path", path.join(sources, "src")]);
  const collectionDir = path.join(sources, "src", ...COLLECTION.split("."));
  fs.mkdirSync(path.join(collectionDir, "plugins", "modules"), { recursive: true });
  fs.writeFileSync(path.join(collectionDir, "plugins", "modules", "hello.py"), MODULE);
  fs.mkdirSync(path.join(collectionDir, "plugins", "inventory"), { recursive: true });
  fs.writeFileSync(path.join(collectionDir, "plugins", "inventory", "fixed.py"), INVENTORY_PLUGIN);
  await execa("ansible-galaxy", ["collection", "build", collectionDir, "--output-path", path.join(sources, "dist")]);
  const tarball = fs.readdirSync(path.join(sources, "dist")).find((name) => name.endsWith(".tar.gz"))!;
  // The role, in a git repository the playbook user can read (the install runs as it).
  const repo = path.join(sources, "greeter");
  fs.mkdirSync(path.join(repo, "tasks"), { recursive: true });
  fs.mkdirSync(path.join(repo, "meta"), { recursive: true });
  fs.writeFileSync(path.join(repo, "tasks", "main.yml"), '- name: Greet\n  ansible.builtin.debug:\n    msg: "greeter role says hi"\n');
  fs.writeFileSync(
    path.join(repo, "meta", "main.yml"),
    "galaxy_info:\n  author: test\n  description: greeter\n  license: MIT\n  min_ansible_version: '2.9'\n",
  );
  const git = (...args: string[]) => execa("git", ["-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com", ...args]);
  await git("init", "-q", "-b", "main");
  await git("add", ".");
  await git("commit", "-q", "-m", "greeter");
  fs.chmodSync(sources, 0o755);
  if (process.getuid?.() === 0) await execa("chown", ["-R", "playform-run", repo]);

  const both = `collections:\n  - name: vendor/${tarball}\n    type: file\nroles:\n  - src: git+file://${repo}\n    name: greeter\n`;
  const vendor = (dir: string) => {
    fs.mkdirSync(path.join(dir, "vendor"));
    fs.copyFileSync(path.join(sources, "dist", tarball), path.join(dir, "vendor", tarball));
  };
  form("req-use", both, vendor);
  // The same collection and role, under another key (a comment changes the file's bytes).
  form("req-twin", `# twin\n${both}`, vendor);
  form("req-missing", "collections:\n  - name: vendor/playform_test-missing-1.0.0.tar.gz\n    type: file\n");
  // The same missing tarball under another key, for jobs launched together.
  form("req-missing-many", "# many\ncollections:\n  - name: vendor/playform_test-missing-1.0.0.tar.gz\n    type: file\n");
  // The collection only, in collections/requirements.yml (the role's repository is in /tmp,
  // which a private /tmp hides from the install).
  form(
    "req-collection",
    "",
    (dir) => {
      fs.rmSync(path.join(dir, "requirements.yml"));
      vendor(dir);
      fs.mkdirSync(path.join(dir, "collections"));
      fs.writeFileSync(path.join(dir, "collections", "requirements.yml"), `collections:\n  - name: vendor/${tarball}\n    type: file\n`);
    },
    PLAYBOOK.replace("  roles:\n    - greeter\n", ""),
  );
  // A hosts field whose inventory is a plugin of the collection its requirements.yml installs.
  form(
    "req-inventory",
    `# inventory\ncollections:\n  - name: vendor/${tarball}\n    type: file\n`,
    (dir) => {
      vendor(dir);
      fs.appendFileSync(path.join(dir, "form.yaml"), "inventories: [inventory.yml]\nfields:\n  - { name: target, type: hosts }\n");
      fs.writeFileSync(path.join(dir, "inventory.yml"), "plugin: playform_test.reqs.fixed\n");
    },
    '- hosts: localhost\n  connection: local\n  gather_facts: false\n  tasks:\n    - ansible.builtin.debug:\n        msg: "groups {{ groups.keys() | sort }}"\n',
  );
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const port = (silent.address() as net.AddressInfo).port;
  form("req-hang", `roles:\n  - src: git+http://127.0.0.1:${port}/hang.git\n    name: hang\n`);
  fs.chmodSync(forms, 0o755);
  await h.start();
  requirementsDir = path.join(h.scratch, "requirements");
}, 120_000);

afterAll(async () => {
  await h.stop();
  silent.close();
  fs.rmSync(forms, { recursive: true, force: true });
  fs.rmSync(sources, { recursive: true, force: true });
});

/** Processes whose command line mentions `text` (what an install left running). */
function stillRunning(text: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(text)) found.push(Number(entry));
    } catch {
      // Ended while we looked.
    }
  }
  return found;
}

function installs(output: string): number {
  return output.split("\n").filter((line) => line.startsWith("requirements: installing ")).length;
}

describe("a form's requirements.yml", () => {
  it("is installed once by the runner, used by the playbook, reused from the cache, and read-only to it", async () => {
    // RTE_REQUIREMENTS_DIR named, in a folder the playbook user can pass through (checked at start).
    const dir = path.join(h.scratch, "shared-cache-parent");
    fs.mkdirSync(dir, { mode: 0o755 });
    requirementsDir = path.join(dir, "requirements");
    h.startRte({ instanceId: "req-0", ...h.dirs("req-0"), env: { RTE_REQUIREMENTS_DIR: requirementsDir } });

    const first = await h.api.launch("req-use");
    const job1 = await h.api.waitForEnd(first);
    const out1 = await h.api.output(first);
    expect(job1.status, `${job1.statusReason}\n${out1}`).toBe("success");
    expect(installs(out1)).toBe(1);
    expect(out1).toMatch(/requirements: installing requirements\.yml with \S*ansible-galaxy \(key [0-9a-f]{12}\)/);
    expect(out1).toMatch(/requirements: installed in \d+\.\d s \(key [0-9a-f]{12}\)/);
    // Galaxy's own lines, then the playbook, which used both.
    expect(out1).toContain(`${COLLECTION}:1.0.0 was installed successfully`);
    expect(out1).toContain("- greeter was installed successfully");
    expect(out1.indexOf("requirements: installed in")).toBeLessThan(out1.indexOf("PLAY [Uses its requirements]"));
    expect(out1).toContain("greeter role says hi");
    expect(out1).toContain("module=hello playform from playform_test.reqs");
    // The playbook could not write into its installed requirements.
    expect(out1).toMatch(/cache-write-rc=[1-9]/);
    const key = /\(key ([0-9a-f]{12})\)/.exec(out1)![1]!;
    const entries = fs.readdirSync(requirementsDir).filter((name) => name.startsWith(key));
    expect(entries).toHaveLength(1);
    const entry = path.join(requirementsDir, entries[0]!);
    expect(fs.existsSync(path.join(entry, "collections", "ansible_collections", "playform_test", "reqs", "MANIFEST.json"))).toBe(true);
    expect(fs.existsSync(path.join(entry, "roles", "greeter", "tasks", "main.yml"))).toBe(true);
    expect(fs.existsSync(path.join(entry, "collections", "written-by-playbook"))).toBe(false);
    // The RTE's, not the playbook user's; no staging folder or lock left.
    expect(fs.statSync(path.join(entry, "collections")).uid).toBe(process.getuid?.());
    expect(fs.readdirSync(requirementsDir).filter((name) => name !== entries[0])).toEqual([]);

    const second = await h.api.launch("req-use");
    const job2 = await h.api.waitForEnd(second);
    const out2 = await h.api.output(second);
    expect(job2.status, `${job2.statusReason}\n${out2}`).toBe("success");
    expect(installs(out2)).toBe(0);
    expect(out2).toMatch(new RegExp(`requirements: cached since \\S+ \\(key ${key}, ready in \\d+\\.\\d ms\\)`));
    expect(out2).not.toContain("was installed successfully");
    expect(out2).toContain("module=hello playform from playform_test.reqs");
    // The figures docs/rte.md quotes.
    console.log(/requirements: installed in .*/.exec(out1)?.[0], "|", /requirements: cached since .*/.exec(out2)?.[0]);
  }, 300_000);

  it("two jobs launched at once with the same new requirements install them once", async () => {
    const [a, b] = await Promise.all([h.api.launch("req-twin"), h.api.launch("req-twin")]);
    const [jobA, jobB] = await Promise.all([h.api.waitForEnd(a!), h.api.waitForEnd(b!)]);
    const [outA, outB] = await Promise.all([h.api.output(a!), h.api.output(b!)]);
    expect(jobA.status, `${jobA.statusReason}\n${outA}`).toBe("success");
    expect(jobB.status, `${jobB.statusReason}\n${outB}`).toBe("success");
    expect(installs(outA) + installs(outB)).toBe(1);
    // The other one waited for it (or came after it) and used the same entry.
    const waited = installs(outA) === 1 ? outB : outA;
    expect(waited).toContain("requirements: another job is installing them");
    expect(waited).toMatch(/requirements: cached since/);
    for (const out of [outA, outB]) expect(out).toContain("module=hello playform from playform_test.reqs");
  }, 300_000);

  it("a hosts field's inventory listing uses the form's installed requirements, and says when they are not installed yet", async () => {
    const field = async () => (await h.api.get("/api/forms/req-inventory")).form.fields.find((f: { name: string }) => f.name === "target");
    // Before any job: the plugin's collection is not installed, and the listing does not install it.
    const before = await field();
    expect(before.choices ?? []).toEqual([]);
    expect(before.choicesError).toMatch(
      /the form's requirements \(requirements\.yml, key [0-9a-f]{12}\) are not installed on this runner yet, and a listing does not install them/,
    );
    // The form's first job installs them (its playbook reads the same inventory).
    const id = await h.api.launch("req-inventory");
    const job = await h.api.waitForEnd(id);
    const out = await h.api.output(id);
    expect(job.status, `${job.statusReason}\n${out}`).toBe("success");
    expect(out).toContain("from_collection");
    // Then the listing finds the plugin (once the app's rate limit after the failure has passed).
    const after = await h.waitUntil(
      "the listing with the installed collection",
      async () => {
        const current = await field();
        return current.choices?.length > 0 ? current : null;
      },
      90_000,
    );
    expect(after.choices.map((c: { value: string }) => c.value)).toEqual(["plugin-host-1", "plugin-host-2"]);
  }, 300_000);

  it("a requirements.yml naming a missing tarball fails the job before the playbook, with galaxy's message", async () => {
    const id = await h.api.launch("req-missing");
    const job = await h.api.waitForEnd(id);
    const out = await h.api.output(id);
    expect(job.status).toBe("failed");
    expect(job.statusReason).toMatch(
      /^requirements: ansible-galaxy collection install -r requirements\.yml failed \(exit \d+\): .*playform_test-missing-1\.0\.0\.tar\.gz/,
    );
    expect(out).toContain("the playbook does not run");
    expect(out).not.toContain("PLAY [");
    // Nothing half-installed is kept under its key: only the record of its failure, for other runner processes that waited on it.
    const key = /\(key ([0-9a-f]{12})\)/.exec(out)![1]!;
    expect(fs.readdirSync(requirementsDir).filter((name) => name.startsWith(key))).toEqual([
      expect.stringMatching(/^[0-9a-f]{64}\.failed-[0-9a-f]{16}$/),
    ]);
  }, 300_000);
  it("jobs launched together whose install fails run galaxy once and all fail with its message", async () => {
    const ids = await Promise.all([1, 2, 3].map(() => h.api.launch("req-missing-many")));
    const jobs = await Promise.all(ids.map((id) => h.api.waitForEnd(id!)));
    const outs = await Promise.all(ids.map((id) => h.api.output(id!)));
    // Galaxy ran once: one job installed, the two others (dispatched at once to the one RTE, which
    // runs up to RTE_MAX_JOBS 4) waited for it and took its failure.
    expect(outs.map(installs).reduce((a, b) => a + b)).toBe(1);
    expect(outs.filter((out) => out.includes("requirements: another job is installing them"))).toHaveLength(2);
    for (const [i, job] of jobs.entries()) {
      expect(job.status, outs[i]).toBe("failed");
      expect(job.statusReason).toMatch(
        /^requirements: ansible-galaxy collection install -r requirements\.yml failed \(exit \d+\): .*playform_test-missing-1\.0\.0\.tar\.gz/,
      );
      expect(outs[i]).not.toContain("PLAY [");
    }
  }, 300_000);

  it("an install that hangs is stopped by the job's abort, and nothing of it is left running", async () => {
    const id = await h.api.launch("req-hang");
    await h.waitUntil(
      "the install to start",
      async () => (await h.api.output(id)).includes("requirements: installing requirements.yml"),
      60_000,
    );
    const aborted = Date.now();
    expect((await h.api.call("POST", `/api/jobs/${id}/abort`)).status).toBe(202);
    const job = await h.api.waitForEnd(id);
    expect(job.status, job.statusReason).toBe("aborted");
    expect(Date.now() - aborted).toBeLessThan(15_000);
    const out = await h.api.output(id);
    expect(out).not.toContain("PLAY [");
    expect(stillRunning("hang.git")).toEqual([]);
  }, 120_000);

  it("in the default cache folder, under a private /tmp: installed, used, read-only; a hung install times out", async () => {
    await h.cleanUp();
    h.startRte({
      instanceId: "req-1",
      ...h.dirs("req-1"),
      env: { RTE_PLAYBOOK_PRIVATE_TMP: "on", RTE_REQUIREMENTS_TIMEOUT_SECONDS: "5" },
    });
    const id = await h.api.launch("req-collection");
    const job = await h.api.waitForEnd(id);
    const out = await h.api.output(id);
    expect(job.status, `${job.statusReason}\n${out}`).toBe("success");
    expect(out).toMatch(/requirements: installing collections\/requirements\.yml with \S*ansible-galaxy/);
    expect(out).toContain("module=hello playform from playform_test.reqs");
    expect(out).toMatch(/cache-write-rc=[1-9]/);
    expect(out).toMatch(/\/playform-jobs-[0-9a-f]+\/\.requirements\/[0-9a-f]{64}\/collections/);

    const hung = await h.api.launch("req-hang");
    const ended = await h.api.waitForEnd(hung);
    expect(ended.status).toBe("failed");
    expect(ended.statusReason).toBe(
      "requirements: ansible-galaxy role install -r requirements.yml did not finish within 5 s (RTE_REQUIREMENTS_TIMEOUT_SECONDS)",
    );
    expect(stillRunning("hang.git")).toEqual([]);
  }, 300_000);
});
