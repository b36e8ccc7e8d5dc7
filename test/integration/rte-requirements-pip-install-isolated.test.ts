/**
 * Attack 8 on issue 34: a form's own `pip` package runs instead of pip and fills the shared venv,
 * under a plain requirements.txt. The RTE runs `<venv>/bin/python -m pip install … -r
 * requirements.txt` with the job folder as its working directory (server/rte/requirements-install.ts,
 * SandboxedInstall.command: `cwd: run.jobDir`), and `python -m` puts the working directory first
 * on sys.path (no `-I`, `-P` or PYTHONSAFEPATH): a folder `pip/` of the form (`__init__.py`,
 * `__main__.py`) is the pip that runs. The file is plain (`--no-index`, `playform-poison==1.0.0`),
 * so the key leaves out the form's files (isPlainPipRequirements), and the venv the form's code
 * wrote is the entry of every form with that text. The same holds for `python -m venv` (a `venv/`
 * folder) and `python -c` of the environment's Python (a `json.py`).
 *
 * Two forms with the same requirements.txt; the runner's find-links folder holds the real
 * playform-poison (`from-the-runner`). The attacker form's `pip/__main__.py` writes a
 * playform_poison package marked `from-the-attacker-form` into the venv. Fixed: every Python of an
 * install runs with `-I` (requirements-install.ts), the real pip installs the runner's package, and
 * the victim's job (the same key: the file is plain) prints `poison=from-the-runner`.
 */
import { execa } from "execa";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RteHarness } from "../support/rte-harness";

const RUNNER = "shadowrun";
const forms = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack8-forms-"));
const sources = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack8-sources-"));
const h = new RteHarness(forms, RUNNER);

const REQUIREMENTS = "--no-index\nplayform-poison==1.0.0\n";
const PLAYBOOK = `- name: Uses the package its requirements name
  hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - name: Which copy of the package the controller imports
      ansible.builtin.debug:
        msg: "poison={{ lookup('pipe', ansible_playbook_python + ' -c \\"import playform_poison; print(playform_poison.MARK)\\"') }}"
`;
/** The form's pip: writes its own package where pip would have installed the real one. */
const FAKE_PIP = `import os, sysconfig
site = sysconfig.get_paths()["purelib"]
os.makedirs(os.path.join(site, "playform_poison"), exist_ok=True)
with open(os.path.join(site, "playform_poison", "__init__.py"), "w") as f:
    f.write('MARK = "from-the-attacker-form"\\n')
print("Successfully installed playform-poison-1.0.0")
`;

async function wheel(into: string, mark: string): Promise<void> {
  const pkg = path.join(sources, mark);
  fs.mkdirSync(path.join(pkg, "playform_poison"), { recursive: true });
  fs.writeFileSync(
    path.join(pkg, "pyproject.toml"),
    '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "playform-poison"\nversion = "1.0.0"\n',
  );
  fs.writeFileSync(path.join(pkg, "playform_poison", "__init__.py"), `MARK = "${mark}"\n`);
  await execa("/usr/bin/python3", ["-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", into, pkg]);
}

function form(name: string, files: Record<string, string>): void {
  const dir = path.join(forms, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "form.yaml"), `name: ${name}\ntitle: attack 8 ${name}\nplaybook: playbook.yml\nrunner: ${RUNNER}\n`);
  fs.writeFileSync(path.join(dir, "playbook.yml"), PLAYBOOK);
  fs.writeFileSync(path.join(dir, "requirements.txt"), REQUIREMENTS);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true, mode: 0o755 });
    fs.writeFileSync(path.join(dir, file), text);
  }
  fs.chmodSync(dir, 0o755);
}

const runnerWheels = path.join(sources, "runner-wheels");

beforeAll(async () => {
  fs.mkdirSync(runnerWheels, { recursive: true });
  await wheel(runnerWheels, "from-the-runner");
  for (const folder of [sources, runnerWheels]) fs.chmodSync(folder, 0o755);
  for (const file of fs.readdirSync(runnerWheels)) fs.chmodSync(path.join(runnerWheels, file), 0o644);
  form("shadow-attacker", { "pip/__init__.py": "", "pip/__main__.py": FAKE_PIP });
  form("shadow-victim", {});
  fs.chmodSync(forms, 0o755);
  await h.start();
  h.startRte({ instanceId: "shadow-0", ...h.dirs("shadow-0"), env: { RTE_PIP_FIND_LINKS: runnerWheels } });
}, 180_000);

afterAll(async () => {
  await h.stop();
  fs.rmSync(forms, { recursive: true, force: true });
  fs.rmSync(sources, { recursive: true, force: true });
});

it("a form's pip/ folder does not install the venv other forms with the same requirements.txt run", async () => {
  const attacker = await h.api.launch("shadow-attacker");
  const job1 = await h.api.waitForEnd(attacker, 240_000);
  const out1 = await h.api.output(attacker);
  expect(job1.status, `${job1.statusReason}\n${out1}`).toBe("success");
  // What the attacker's own job ran: its pip, or the real one.
  const line1 = /poison=[a-z-]+/.exec(out1)?.[0];

  const victim = await h.api.launch("shadow-victim");
  const job2 = await h.api.waitForEnd(victim, 240_000);
  const out2 = await h.api.output(victim);
  expect(job2.status, `${job2.statusReason}\n${out2}`).toBe("success");
  const line = /poison=[a-z-]+/.exec(out2)?.[0];
  const requirements = /requirements: (?:cached since|pip installing)[^\n]*/.exec(out2)?.[0];
  // The form's pip did not run, even in its own job; the entry is shared (a plain file) and whole.
  expect({ attacker: line1, line, requirements }).toEqual({
    attacker: "poison=from-the-runner",
    line: "poison=from-the-runner",
    requirements: expect.stringContaining("cached since"),
  });
}, 600_000);
