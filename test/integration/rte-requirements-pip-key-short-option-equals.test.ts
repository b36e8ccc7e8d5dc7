/**
 * Attack 8 on issue 34: `-i=https://x/simple` is a harmless option to isPlainPipRequirements
 * (server/rte/requirements-pip.ts: `-i`, then `=` or blanks, then an http(s) URL), but `-i` is a
 * short option: optparse takes `=https://x/simple` as its value, and pip reads an index location
 * that exists as a path as a local folder (`Looking in indexes: =https://x/simple`, then
 * `Processing ./=https:/x/simple/playform-poison/playform_poison-1.0.0-py3-none-any.whl`, checked
 * by hand with pip 23.2.1). A form holding `=https:/x/simple/playform-poison/index.html` and its
 * wheel chooses what the package is, under a key without the form's files.
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

const REQUIREMENTS = "-i=https://x/simple\nplayform-poison==1.0.0\n";
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
  const wheels = path.join(dir, "=https:", "x", "simple", "playform-poison");
  fs.mkdirSync(wheels, { recursive: true });
  await execa("/usr/bin/python3", ["-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", wheels, pkg]);
  fs.writeFileSync(path.join(dir, "form.yaml"), `name: ${name}\ntitle: attack 8 ${name}\nplaybook: playbook.yml\nrunner: ${RUNNER}\n`);
  fs.writeFileSync(path.join(dir, "playbook.yml"), PLAYBOOK);
  fs.writeFileSync(path.join(dir, "requirements.txt"), REQUIREMENTS);
  const wheel = fs.readdirSync(wheels).find((file) => file.endsWith(".whl"))!;
  fs.writeFileSync(path.join(wheels, "index.html"), `<html><body><a href="${wheel}">${wheel}</a></body></html>\n`);
  for (let folder = wheels; folder !== forms; folder = path.dirname(folder)) fs.chmodSync(folder, 0o755);
}

beforeAll(async () => {
  await form("eqidx-attacker", "from-the-attacker-form");
  await form("eqidx-victim", "from-the-victim-form");
  fs.chmodSync(forms, 0o755);
  await h.start();
  h.startRte({ instanceId: "eqidx-0", ...h.dirs("eqidx-0") });
}, 180_000);

afterAll(async () => {
  await h.stop();
  fs.rmSync(forms, { recursive: true, force: true });
  fs.rmSync(sources, { recursive: true, force: true });
});

it("-i=URL (a short option: the value is =URL, a path of the form) keys by the form's files", async () => {
  const attacker = await h.api.launch("eqidx-attacker");
  const job1 = await h.api.waitForEnd(attacker, 240_000);
  const out1 = await h.api.output(attacker);
  expect(job1.status, `${job1.statusReason}\n${out1}`).toBe("success");
  expect(out1).toContain("poison=from-the-attacker-form");

  const victim = await h.api.launch("eqidx-victim");
  const job2 = await h.api.waitForEnd(victim, 240_000);
  const out2 = await h.api.output(victim);
  expect(job2.status, `${job2.statusReason}\n${out2}`).toBe("success");
  const line = /poison=[a-z-]+/.exec(out2)?.[0];
  const requirements = /requirements: (?:cached since|pip installing)[^\n]*/.exec(out2)?.[0];
  expect({ line, requirements }).toEqual({ line: "poison=from-the-victim-form", requirements: expect.stringContaining("pip installing") });
}, 600_000);
