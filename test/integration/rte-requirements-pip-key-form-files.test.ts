/**
 * Attack 7 on issue 34, fixed: one form must not decide what another form's jobs run through the
 * shared pip requirements cache. Two forms with the same requirements.txt text (`--no-index`,
 * `--find-links ./wheels`, a pinned package) and different wheels: the file is not plain
 * (isPlainPipRequirements, server/rte/requirements-pip.ts), so its key holds every file of the
 * job and the second form installs its own wheel instead of running the first form's.
 *
 * Before the fix, the key left out option lines (parsePipLocalPaths skipped them): the victim's
 * job said `requirements: cached since …` with the attacker's key and printed
 * `poison=from-the-attacker-form`.
 */
import { execa } from "execa";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RteHarness } from "../support/rte-harness";

const RUNNER = "poisonrun";
const forms = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack7-forms-"));
const sources = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack7-sources-"));
const h = new RteHarness(forms, RUNNER);

const REQUIREMENTS = "--no-index\n--find-links ./wheels\nplayform-poison==1.0.0\n";
const PLAYBOOK = `- name: Uses its own wheel
  hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - name: Which copy of the package the controller imports
      ansible.builtin.debug:
        msg: "poison={{ lookup('pipe', ansible_playbook_python + ' -c \\"import playform_poison; print(playform_poison.MARK)\\"') }}"
`;

async function form(name: string, mark: string): Promise<void> {
  const pkg = path.join(sources, name);
  fs.mkdirSync(path.join(pkg, "playform_poison"), { recursive: true });
  fs.writeFileSync(
    path.join(pkg, "pyproject.toml"),
    '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "playform-poison"\nversion = "1.0.0"\n',
  );
  fs.writeFileSync(path.join(pkg, "playform_poison", "__init__.py"), `MARK = "${mark}"\n`);
  const dir = path.join(forms, name);
  const wheels = path.join(dir, "wheels");
  fs.mkdirSync(wheels, { recursive: true });
  await execa("/usr/bin/python3", ["-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", wheels, pkg]);
  fs.writeFileSync(path.join(dir, "form.yaml"), `name: ${name}\ntitle: attack 7 ${name}\nplaybook: playbook.yml\nrunner: ${RUNNER}\n`);
  fs.writeFileSync(path.join(dir, "playbook.yml"), PLAYBOOK);
  fs.writeFileSync(path.join(dir, "requirements.txt"), REQUIREMENTS);
  for (const folder of [dir, wheels]) fs.chmodSync(folder, 0o755);
}

beforeAll(async () => {
  await form("poison-attacker", "from-the-attacker-form");
  await form("poison-victim", "from-the-victim-form");
  fs.chmodSync(forms, 0o755);
  await h.start();
  h.startRte({ instanceId: "poison-0", ...h.dirs("poison-0") });
}, 180_000);

afterAll(async () => {
  await h.stop();
  fs.rmSync(forms, { recursive: true, force: true });
  fs.rmSync(sources, { recursive: true, force: true });
});

it("a form's jobs do not run another form's wheel installed under the same requirements.txt text", async () => {
  const attacker = await h.api.launch("poison-attacker");
  const job1 = await h.api.waitForEnd(attacker, 240_000);
  const out1 = await h.api.output(attacker);
  expect(job1.status, `${job1.statusReason}\n${out1}`).toBe("success");
  expect(out1).toContain("poison=from-the-attacker-form");

  const victim = await h.api.launch("poison-victim");
  const job2 = await h.api.waitForEnd(victim, 240_000);
  const out2 = await h.api.output(victim);
  expect(job2.status, `${job2.statusReason}\n${out2}`).toBe("success");
  const line = /poison=[a-z-]+/.exec(out2)?.[0];
  const requirements = /requirements: (?:cached since|pip installing)[^\n]*/.exec(out2)?.[0];
  expect({ line, requirements }).toEqual({ line: "poison=from-the-victim-form", requirements: expect.stringContaining("pip installing") });
}, 600_000);
