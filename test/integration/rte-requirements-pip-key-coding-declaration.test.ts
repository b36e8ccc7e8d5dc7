/**
 * Attack 8 on issue 34: a requirements.txt that isPlainPipRequirements (server/rte/requirements-pip.ts)
 * calls plain, but that pip reads as a `--find-links ./wheels` line. pip decodes a requirements
 * file by its PEP 263 coding declaration (pip._internal.utils.encoding.auto_decode: `# -*- coding:
 * utf-7 -*-` on one of the first two lines); the classifier reads the bytes as UTF-8. In UTF-7,
 * `+AAo-` is a line break, `+AD0-` is `=` and `+AC8-` is `/`, all characters the classifier allows in
 * a version (`[A-Za-z0-9.*+!_-]`), so the line
 * `playform-poison==1.0.0+AAo---find-links+AD0-.+AC8-wheels` is one plain requirement to the
 * classifier and two lines to pip: `playform-poison==1.0.0` and `--find-links=./wheels`. The key
 * leaves out the form's files: two forms with these bytes and different wheels share one entry.
 *
 * Fixed: such a file is not plain, its key holds the form's files; the victim's job installs its own
 * (`requirements: installed`) and prints `poison=from-the-victim-form`.
 */
import { execa } from "execa";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RteHarness } from "../support/rte-harness";

const RUNNER = "poisonrun";
const forms = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack8-forms-"));
const sources = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack8-sources-"));
const h = new RteHarness(forms, RUNNER);

const REQUIREMENTS = "# -*- coding: utf-7 -*-\n--no-index\nplayform-poison==1.0.0+AAo---find-links+AD0-.+AC8-wheels\n";
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
  fs.writeFileSync(path.join(dir, "form.yaml"), `name: ${name}\ntitle: attack 8 ${name}\nplaybook: playbook.yml\nrunner: ${RUNNER}\n`);
  fs.writeFileSync(path.join(dir, "playbook.yml"), PLAYBOOK);
  fs.writeFileSync(path.join(dir, "requirements.txt"), REQUIREMENTS);
  for (const folder of [dir, wheels]) fs.chmodSync(folder, 0o755);
}

beforeAll(async () => {
  await form("utf7-attacker", "from-the-attacker-form");
  await form("utf7-victim", "from-the-victim-form");
  fs.chmodSync(forms, 0o755);
  await h.start();
  h.startRte({ instanceId: "utf7-0", ...h.dirs("utf7-0") });
}, 180_000);

afterAll(async () => {
  await h.stop();
  fs.rmSync(forms, { recursive: true, force: true });
  fs.rmSync(sources, { recursive: true, force: true });
});

it("a requirements.txt pip decodes as UTF-7 keys by the form's files, as its --find-links line reads them", async () => {
  const attacker = await h.api.launch("utf7-attacker");
  const job1 = await h.api.waitForEnd(attacker, 240_000);
  const out1 = await h.api.output(attacker);
  expect(job1.status, `${job1.statusReason}\n${out1}`).toBe("success");
  expect(out1).toContain("poison=from-the-attacker-form");

  const victim = await h.api.launch("utf7-victim");
  const job2 = await h.api.waitForEnd(victim, 240_000);
  const out2 = await h.api.output(victim);
  expect(job2.status, `${job2.statusReason}\n${out2}`).toBe("success");
  const line = /poison=[a-z-]+/.exec(out2)?.[0];
  const requirements = /requirements: (?:cached since|pip installing)[^\n]*/.exec(out2)?.[0];
  expect({ line, requirements }).toEqual({ line: "poison=from-the-victim-form", requirements: expect.stringContaining("pip installing") });
}, 600_000);
