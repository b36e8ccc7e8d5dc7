/**
 * Attack 8 on issue 34: a requirements.yml that names a collection folder of the form without
 * `./` (`collections: [poisoncoll]`). ansible-galaxy takes a name that is no valid collection name
 * (`namespace.name`) for a path when it is a collection's folder (ansible-core's
 * `_is_concrete_artifact_pointer`: a file, or a folder with galaxy.yml or MANIFEST.json), and
 * installs it (checked by hand with ansible-core 2.14: `Installing 'attack8.poison:1.0.0'`). The
 * key's local paths (server/rte/requirements.ts, collectionLocalPath) are only names written
 * `./x`, `../x`, `/x` or `*.tar.gz`/`.tgz`/`.tar`, or with `type: file|dir|subdirs`: this one is
 * left out, so two forms with the same requirements.yml and different folders share one entry.
 * (The same for a role whose `src` is a tarball named without an extension.)
 *
 * Fixed: a file is shared only when every entry is plainly remote (a Galaxy name that names no
 * file or folder of the job, or a URL); `poisoncoll` is not, so the key holds the job's files and
 * the victim's job installs its own folder and prints `mark=from-the-victim-form`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RteHarness } from "../support/rte-harness";

const RUNNER = "barefolder";
const forms = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack8-forms-"));
const h = new RteHarness(forms, RUNNER);

const REQUIREMENTS = "collections:\n  - poisoncoll\n";
const PLAYBOOK = `- name: Uses its own collection
  hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - name: Which copy of the collection the controller loads
      ansible.builtin.debug:
        msg: "mark={{ 'x' | attack8.poison.mark }}"
`;

function form(name: string, mark: string): void {
  const dir = path.join(forms, name);
  const coll = path.join(dir, "poisoncoll");
  fs.mkdirSync(path.join(coll, "plugins", "filter"), { recursive: true });
  fs.writeFileSync(
    path.join(coll, "galaxy.yml"),
    "namespace: attack8\nname: poison\nversion: 1.0.0\nreadme: README.md\nauthors: [attack8]\n",
  );
  fs.writeFileSync(path.join(coll, "README.md"), "attack 8\n");
  fs.writeFileSync(
    path.join(coll, "plugins", "filter", "mark.py"),
    `def mark(value):\n    return "${mark}"\n\n\nclass FilterModule:\n    def filters(self):\n        return {"mark": mark}\n`,
  );
  fs.writeFileSync(path.join(dir, "form.yaml"), `name: ${name}\ntitle: attack 8 ${name}\nplaybook: playbook.yml\nrunner: ${RUNNER}\n`);
  fs.writeFileSync(path.join(dir, "playbook.yml"), PLAYBOOK);
  fs.writeFileSync(path.join(dir, "requirements.yml"), REQUIREMENTS);
  for (const folder of [dir, coll, path.join(coll, "plugins"), path.join(coll, "plugins", "filter")]) fs.chmodSync(folder, 0o755);
}

beforeAll(async () => {
  form("bare-attacker", "from-the-attacker-form");
  form("bare-victim", "from-the-victim-form");
  fs.chmodSync(forms, 0o755);
  await h.start();
  h.startRte({ instanceId: "bare-0", ...h.dirs("bare-0") });
}, 180_000);

afterAll(async () => {
  await h.stop();
  fs.rmSync(forms, { recursive: true, force: true });
});

it("a collection folder named without ./ is part of the requirements key", async () => {
  const attacker = await h.api.launch("bare-attacker");
  const job1 = await h.api.waitForEnd(attacker, 240_000);
  const out1 = await h.api.output(attacker);
  expect(job1.status, `${job1.statusReason}\n${out1}`).toBe("success");
  expect(out1).toContain("mark=from-the-attacker-form");

  const victim = await h.api.launch("bare-victim");
  const job2 = await h.api.waitForEnd(victim, 240_000);
  const out2 = await h.api.output(victim);
  expect(job2.status, `${job2.statusReason}\n${out2}`).toBe("success");
  const line = /mark=[a-z-]+/.exec(out2)?.[0];
  const requirements = /requirements: (?:cached since|installing|ansible-galaxy)[^\n]*/.exec(out2)?.[0];
  expect({ line, requirements }).toEqual({ line: "mark=from-the-victim-form", requirements: expect.not.stringContaining("cached since") });
}, 600_000);
