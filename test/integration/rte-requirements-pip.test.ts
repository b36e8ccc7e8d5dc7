/**
 * A form's requirements.txt installed by the runner with pip into a virtual environment layered
 * on the job's environment (docs/forms.md "Requirements"), on real parts: the production bundle's
 * app and RTE, Debian's python3 -m venv and pip, real ansible-playbook, and only local sources: a
 * wheel the test builds from a tiny package, found through RTE_PIP_FIND_LINKS (no index at all).
 *
 * - job 1 installs (runner lines first) and its playbook uses the package on the controller (a
 *   filter plugin beside the playbook imports it) and on localhost (a module imports it), in the
 *   venv's python; it cannot write into the venv. Job 2 says "cached";
 * - a requirements.txt naming a package nobody has fails the job before the playbook, quoting pip;
 * - a hosts field's inventory listing runs in the form's installed venv (an inventory plugin of
 *   the form importing the package), and says so while it is not installed yet;
 * - in an environment that is itself a virtual environment, started by wrapper scripts (whose
 *   shebang names /bin/sh, not its Python), the venv is made with the environment's Python and
 *   sees the environment's own packages besides the requirements.
 */
import { execa } from "execa";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RteHarness } from "../support/rte-harness";

const RUNNER = "piprun";
const forms = fs.mkdtempSync(path.join(os.tmpdir(), "playform-pip-forms-"));
const sources = fs.mkdtempSync(path.join(os.tmpdir(), "playform-pip-sources-"));
const wheels = path.join(sources, "wheels");
const h = new RteHarness(forms, RUNNER);

const PLAYBOOK = `- name: Uses its Python requirements
  hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - name: On the controller (a filter plugin importing the package)
      ansible.builtin.debug:
        msg: "controller={{ 'hi' | pipdemo_shout }}"
    - name: On localhost (a module importing the package)
      pipdemo_where:
      register: where
    - name: Say where it was found
      ansible.builtin.debug:
        msg: "module={{ where.shout }} from={{ where.file }} python={{ where.python }}"
    - name: A console script of the package (on PATH; its shebang names the venv where it is now)
      ansible.builtin.command: pipdemo-shout script
      register: script
      changed_when: false
    - name: Say what it printed
      ansible.builtin.debug:
        msg: "script={{ script.stdout }}"
    - name: Try to write into the virtual environment
      ansible.builtin.shell: 'touch "$(dirname "$(dirname "{{ ansible_playbook_python }}")")/written-by-playbook"'
      register: write
      failed_when: false
    - name: Say how that went
      ansible.builtin.debug:
        msg: "venv-write-rc={{ write.rc }}"
`;

const FILTER = `import playform_pipdemo


class FilterModule(object):
    def filters(self):
        return {"pipdemo_shout": playform_pipdemo.shout}
`;

/** An inventory plugin of the form (its ansible.cfg names the folder): its hosts come through the package. */
const INVENTORY_PLUGIN = `from ansible.plugins.inventory import BaseInventoryPlugin

import playform_pipdemo

DOCUMENTATION = """
name: pipdemo_hosts
short_description: hosts named through playform_pipdemo
options:
  plugin:
    description: this plugin's name
    required: true
    choices: [pipdemo_hosts]
"""


class InventoryModule(BaseInventoryPlugin):
    NAME = "pipdemo_hosts"

    def verify_file(self, path):
        return super().verify_file(path) and path.endswith(".yml")

    def parse(self, inventory, loader, path, cache=True):
        super().parse(inventory, loader, path, cache)
        self._read_config_data(path)
        for name in ("web", "db"):
            self.inventory.add_host("pip-" + playform_pipdemo.shout(name).rstrip("!").lower())
`;

const MODULE = `#!/usr/bin/python
import sys

from ansible.module_utils.basic import AnsibleModule


def main():
    module = AnsibleModule(argument_spec=dict())
    import playform_pipdemo

    module.exit_json(changed=False, shout=playform_pipdemo.shout("mod"), file=playform_pipdemo.__file__, python=sys.executable)


if __name__ == "__main__":
    main()
`;

function form(name: string, requirements: string, environment: string | null = null, playbook = PLAYBOOK): void {
  const dir = path.join(forms, name);
  fs.mkdirSync(path.join(dir, "filter_plugins"), { recursive: true });
  fs.mkdirSync(path.join(dir, "library"), { recursive: true });
  fs.writeFileSync(
    path.join(dir, "form.yaml"),
    `name: ${name}\ntitle: pip requirements test ${name}\nplaybook: playbook.yml\nrunner: ${RUNNER}\n` +
      (environment !== null ? `environment: ${environment}\n` : ""),
  );
  fs.writeFileSync(path.join(dir, "playbook.yml"), playbook);
  fs.writeFileSync(path.join(dir, "filter_plugins", "pipdemo.py"), FILTER);
  fs.writeFileSync(path.join(dir, "library", "pipdemo_where.py"), MODULE);
  fs.writeFileSync(path.join(dir, "requirements.txt"), requirements);
}

beforeAll(async () => {
  // The package, built offline into a wheel with Debian's setuptools (no build isolation: no index).
  const pkg = path.join(sources, "pkg");
  fs.mkdirSync(path.join(pkg, "playform_pipdemo"), { recursive: true });
  fs.writeFileSync(
    path.join(pkg, "pyproject.toml"),
    '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "playform-pipdemo"\nversion = "1.0.0"\n\n[project.scripts]\npipdemo-shout = "playform_pipdemo:main"\n',
  );
  fs.writeFileSync(
    path.join(pkg, "playform_pipdemo", "__init__.py"),
    'import sys\n\n\ndef shout(text):\n    return text.upper() + "!"\n\n\ndef main():\n    print(shout(sys.argv[1]))\n',
  );
  await execa("/usr/bin/python3", ["-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", wheels, pkg]);
  expect(fs.readdirSync(wheels).some((name) => /^playform_pipdemo-1\.0\.0-.*\.whl$/.test(name))).toBe(true);
  // Readable by the playbook user, who installs.
  for (const dir of [sources, wheels]) fs.chmodSync(dir, 0o755);
  for (const name of fs.readdirSync(wheels)) fs.chmodSync(path.join(wheels, name), 0o644);

  form("pip-use", "playform-pipdemo==1.0.0\n");
  form("pip-missing", "playform-no-such-package==9.9.9\n");
  // Its own key (the file's bytes differ): installed by none of the other tests' jobs.
  form("pip-inventory", "# for the inventory plugin\nplayform-pipdemo==1.0.0\n");
  const inventoryForm = path.join(forms, "pip-inventory");
  fs.appendFileSync(path.join(inventoryForm, "form.yaml"), "inventories: [inventory.yml]\nfields:\n  - { name: target, type: hosts }\n");
  fs.writeFileSync(path.join(inventoryForm, "inventory.yml"), "plugin: pipdemo_hosts\n");
  fs.writeFileSync(path.join(inventoryForm, "ansible.cfg"), "[defaults]\ninventory_plugins = ./inventory_plugins\n");
  fs.mkdirSync(path.join(inventoryForm, "inventory_plugins"));
  fs.writeFileSync(path.join(inventoryForm, "inventory_plugins", "pipdemo_hosts.py"), INVENTORY_PLUGIN);
  // The environment: a virtual environment of Debian's python3 holding a package of its own
  // (playform_envpkg, written into its site-packages), started through wrapper scripts.
  const envVenv = path.join(sources, "envvenv");
  await execa("/usr/bin/python3", ["-m", "venv", "--system-site-packages", "--without-pip", envVenv]);
  const envSite = (await execa(path.join(envVenv, "bin", "python"), ["-c", "import site; print(site.getsitepackages()[0])"])).stdout.trim();
  fs.mkdirSync(path.join(envSite, "playform_envpkg"));
  fs.writeFileSync(path.join(envSite, "playform_envpkg", "__init__.py"), 'MARK = "from-the-environment"\n');
  const envBin = path.join(sources, "envbin");
  fs.mkdirSync(envBin);
  for (const program of ["ansible-playbook", "ansible-galaxy", "ansible-inventory"]) {
    fs.writeFileSync(path.join(envBin, program), `#!/bin/sh\nexec ${envVenv}/bin/python /usr/bin/${program} "$@"\n`, { mode: 0o755 });
  }
  fs.writeFileSync(path.join(sources, "environments.yaml"), `environments:\n  - name: layered\n    bin: ${envBin}\n`);
  form(
    "pip-layered",
    "playform-pipdemo==1.0.0\n",
    "layered",
    PLAYBOOK.replace(
      "  tasks:\n",
      "  tasks:\n    - name: The environment's own package\n      ansible.builtin.debug:\n        msg: \"envpkg={{ lookup('pipe', ansible_playbook_python + ' -c \\\"import playform_envpkg; print(playform_envpkg.MARK)\\\"') }}\"\n",
    ),
  );
  fs.chmodSync(forms, 0o755);
  await h.start();
  h.startRte({ instanceId: "pip-0", ...h.dirs("pip-0"), env: { RTE_PIP_FIND_LINKS: wheels } });
}, 120_000);

afterAll(async () => {
  await h.stop();
  fs.rmSync(forms, { recursive: true, force: true });
  fs.rmSync(sources, { recursive: true, force: true });
});

describe("a form's requirements.txt", () => {
  it("is installed once into a venv on the environment, used on the controller and on localhost, cached, and read-only", async () => {
    const first = await h.api.launch("pip-use");
    const job1 = await h.api.waitForEnd(first);
    const out1 = await h.api.output(first);
    expect(job1.status, `${job1.statusReason}\n${out1}`).toBe("success");
    expect(out1).toMatch(/requirements: pip installing requirements\.txt into a virtual environment \(key [0-9a-f]{12}\)/);
    expect(out1).toMatch(/requirements: python \/\S+ -I -m venv --system-site-packages/);
    // pip's own lines, then the playbook.
    expect(out1).toMatch(/Successfully installed playform-pipdemo-1\.0\.0/);
    expect(out1).toMatch(/requirements: installed in \d+\.\d s \(key [0-9a-f]{12}\)/);
    expect(out1.indexOf("requirements: installed in")).toBeLessThan(out1.indexOf("PLAY [Uses its Python requirements]"));
    // The controller imported it (the filter plugin), and so did the module on localhost, from the cache's venv.
    expect(out1).toContain("controller=HI!");
    const module = /module=MOD! from=(\S+) python=(\S+)"/.exec(out1);
    expect(module, out1).not.toBeNull();
    const key = /\(key ([0-9a-f]{12})\)/.exec(out1)![1]!;
    expect(module![1]).toMatch(
      new RegExp(`/\\.requirements/${key}[0-9a-f]{52}/venv/lib/python3[^/]*/site-packages/playform_pipdemo/__init__\\.py$`),
    );
    expect(module![2]).toMatch(new RegExp(`/\\.requirements/${key}[0-9a-f]{52}/venv/bin/python$`));
    // Its console script runs from the entry: relocated from the job folder it was built in.
    expect(out1).toContain("script=SCRIPT!");
    // The venv is read-only to the playbook.
    expect(out1).toMatch(/venv-write-rc=[1-9]/);

    const second = await h.api.launch("pip-use");
    const job2 = await h.api.waitForEnd(second);
    const out2 = await h.api.output(second);
    expect(job2.status, `${job2.statusReason}\n${out2}`).toBe("success");
    expect(out2).not.toContain("requirements: pip installing");
    expect(out2).toMatch(new RegExp(`requirements: cached since \\S+ \\(key ${key}, ready in \\d+\\.\\d ms\\)`));
    expect(out2).toContain("controller=HI!");
    expect(out2).toContain("module=MOD!");
    // The figures docs/rte.md quotes.
    console.log(/requirements: installed in .*/.exec(out1)?.[0], "|", /requirements: cached since .*/.exec(out2)?.[0]);
  }, 300_000);

  it("a requirements.txt naming a package nobody has fails the job before the playbook, with pip's message", async () => {
    const id = await h.api.launch("pip-missing");
    const job = await h.api.waitForEnd(id);
    const out = await h.api.output(id);
    expect(job.status, out).toBe("failed");
    expect(job.statusReason).toMatch(
      /^requirements: pip install -r requirements\.txt failed \(exit 1\): .*(No matching distribution found for playform-no-such-package==9\.9\.9)/,
    );
    expect(out).toContain("the playbook does not run");
    expect(out).not.toContain("PLAY [");
  }, 300_000);

  it("a hosts field's inventory listing runs in the form's installed venv, and says when it is not installed yet", async () => {
    const field = async () => (await h.api.get("/api/forms/pip-inventory")).form.fields.find((f: { name: string }) => f.name === "target");
    // Before any job: the plugin cannot import the package, and the listing does not install it.
    const before = await field();
    expect(before.choices ?? []).toEqual([]);
    expect(before.choicesError).toMatch(
      /the form's requirements \(requirements\.txt, key [0-9a-f]{12}\) are not installed on this runner yet, and a listing does not install them: the form's first job does, list again after it\. ansible-inventory cannot read it: /,
    );
    const id = await h.api.launch("pip-inventory");
    const job = await h.api.waitForEnd(id);
    const out = await h.api.output(id);
    expect(job.status, `${job.statusReason}\n${out}`).toBe("success");
    expect(out).toMatch(/requirements: installed in/);
    // Then the listing's plugin imports it (once the app's rate limit after the failure has passed).
    const after = await h.waitUntil(
      "the listing in the installed venv",
      async () => {
        const current = await field();
        return current.choices?.length > 0 ? current : null;
      },
      90_000,
    );
    expect(after.choices.map((c: { value: string }) => c.value)).toEqual(["pip-db", "pip-web"]);
  }, 300_000);

  it("in an environment that is a virtual environment behind wrapper scripts: layered on its Python and its packages", async () => {
    // Its own RTE: the environment lies in /tmp, which a private /tmp would hide from its jobs.
    h.startRte({
      instanceId: "pip-1",
      ...h.dirs("pip-1"),
      env: { RTE_PIP_FIND_LINKS: wheels, RTE_ENVIRONMENTS: path.join(sources, "environments.yaml"), RTE_PLAYBOOK_PRIVATE_TMP: "off" },
    });
    const id = await h.api.launch("pip-layered");
    const job = await h.api.waitForEnd(id);
    const out = await h.api.output(id);
    expect(job.status, `${job.statusReason}\n${out}`).toBe("success");
    expect(out).toContain(`requirements: python ${path.join(sources, "envvenv", "bin", "python")} -I -m venv --system-site-packages`);
    expect(out).toContain("envpkg=from-the-environment");
    expect(out).toContain("controller=HI!");
    expect(out).toMatch(/module=MOD! from=\S+\/venv\/lib\/python3[^/]*\/site-packages\/playform_pipdemo\/__init__\.py/);
  }, 300_000);
});
