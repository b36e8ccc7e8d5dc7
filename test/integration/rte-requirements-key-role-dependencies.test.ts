/**
 * Attack 9 on issue 34: a role's dependency resolved against the job folder.
 *
 * The key's "plainly remote" rule (server/rte/requirements.ts, plainlyRemoteNames) reads the
 * entries written in requirements.yml only: a role given by an http(s) URL (`src:
 * http://…/base.tar.gz`) is plainly remote, so the key leaves out the job's files. But once
 * ansible-galaxy has installed that role it installs its dependencies (the role's
 * meta/main.yml `dependencies:` and meta/requirements.yml), each by `GalaxyRole.install`, which
 * takes a `src` that is a file (`os.path.isfile`, relative to its working folder: the job's) for
 * the role's archive. Any dependency with a dot in its name (`geerlingguy.repo-epel`, every Galaxy
 * role's) is installed from a file of that name in the job folder when there is one (checked by
 * hand with ansible-core 2.14: `- adding dependency: attack9.dep` / `- extracting attack9.dep`).
 *
 * Two forms with the same requirements.yml (one upstream role by URL, served by the test, whose
 * meta/main.yml depends on `attack9.dep`) and each its own file `attack9.dep` (a role archive that
 * prints a mark): the attacker's job installs its own file as the dependency into the entry; the
 * victim's job shares the entry (same key) and runs the attacker's role as the upstream role's
 * dependency. Failed before the fix: `mark=from-the-attacker-form` and `requirements: cached
 * since …`. Fixed: a file with any role keys by every file of the job (plainlyRemoteNames,
 * server/rte/requirements.ts; key version 4): each form installs its own entry.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RteHarness } from "../support/rte-harness";

const RUNNER = "roledep";
const forms = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack9-forms-"));
const work = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack9-roles-"));
const h = new RteHarness(forms, RUNNER);
let server: http.Server;
let port = 0;

const PLAYBOOK = `- name: Uses an upstream role
  hosts: localhost
  connection: local
  gather_facts: false
  roles:
    - base
`;

/** A role archive (a folder `name` with meta/main.yml and tasks/main.yml), as a Galaxy role tarball. */
function roleArchive(name: string, dependencies: string[], message: string, archive: string): void {
  const dir = path.join(work, `${path.basename(archive)}-src`);
  fs.mkdirSync(path.join(dir, name, "meta"), { recursive: true });
  fs.mkdirSync(path.join(dir, name, "tasks"), { recursive: true });
  fs.writeFileSync(
    path.join(dir, name, "meta", "main.yml"),
    `galaxy_info:\n  author: upstream\n  description: ${name}\n  license: MIT\n  min_ansible_version: "2.9"\n  platforms: []\n` +
      `dependencies:\n${dependencies.map((d) => `  - role: ${d}\n`).join("") || "  []\n"}`,
  );
  fs.writeFileSync(path.join(dir, name, "tasks", "main.yml"), `- name: ${name}\n  ansible.builtin.debug:\n    msg: "${message}"\n`);
  execFileSync("tar", ["czf", archive, "-C", dir, name]);
}

function form(name: string, mark: string): void {
  const dir = path.join(forms, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "form.yaml"), `name: ${name}\ntitle: attack 9 ${name}\nplaybook: playbook.yml\nrunner: ${RUNNER}\n`);
  fs.writeFileSync(path.join(dir, "playbook.yml"), PLAYBOOK);
  fs.writeFileSync(path.join(dir, "requirements.yml"), `roles:\n  - name: base\n    src: http://127.0.0.1:${port}/base.tar.gz\n`);
  // The dependency's archive, named as the dependency: ansible-galaxy reads it from the job folder.
  roleArchive("dep", [], `mark=${mark}`, path.join(dir, "attack9.dep"));
  fs.chmodSync(dir, 0o755);
  fs.chmodSync(path.join(dir, "attack9.dep"), 0o644);
}

beforeAll(async () => {
  roleArchive("base", ["attack9.dep"], "base ran", path.join(work, "base.tar.gz"));
  const base = fs.readFileSync(path.join(work, "base.tar.gz"));
  server = http.createServer((req, res) => {
    if (req.url === "/base.tar.gz") {
      res.writeHead(200, { "content-type": "application/gzip", "content-length": base.length });
      res.end(base);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  form("roledep-attacker", "from-the-attacker-form");
  form("roledep-victim", "from-the-victim-form");
  fs.chmodSync(forms, 0o755);
  await h.start();
  h.startRte({ instanceId: "roledep-0", ...h.dirs("roledep-0") });
}, 180_000);

afterAll(async () => {
  await h.stop();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  fs.rmSync(forms, { recursive: true, force: true });
  fs.rmSync(work, { recursive: true, force: true });
});

it("a role's dependency read from the job folder is not shared with another form", async () => {
  const attacker = await h.api.launch("roledep-attacker");
  const job1 = await h.api.waitForEnd(attacker, 240_000);
  const out1 = await h.api.output(attacker);
  expect(job1.status, `${job1.statusReason}\n${out1}`).toBe("success");
  expect(out1).toContain("mark=from-the-attacker-form");

  const victim = await h.api.launch("roledep-victim");
  const job2 = await h.api.waitForEnd(victim, 240_000);
  const out2 = await h.api.output(victim);
  expect(job2.status, `${job2.statusReason}\n${out2}`).toBe("success");
  const line = /mark=[a-z-]+/.exec(out2)?.[0];
  const requirements = /requirements: (?:cached since|installing|ansible-galaxy)[^\n]*/.exec(out2)?.[0];
  expect({ line, requirements }).toEqual({ line: "mark=from-the-victim-form", requirements: expect.not.stringContaining("cached since") });
}, 600_000);
