/**
 * Attack 9 on issue 34: the RTE writes the cache entry's `installed.json` through a link the
 * install left, as root, outside the sandbox.
 *
 * An install writes into a folder of the job (`.playform_pip_requirements`, made by the RTE, then
 * handed over: root:<the job's group> 0770, so the playbook user may create in it). Once the
 * install succeeded, RequirementsCache.store (server/rte/requirements-cache.ts) renames that
 * folder to a staging folder of the cache (under bwrap; copies it without: copy-tree.ts copies
 * links as links) and then `fs.writeFileSync(path.join(staging, "installed.json"), …)`: a
 * write by path, following a link, before seal() has looked at anything. A form's own package
 * (a non-plain requirements.txt naming `./linkpkg`, whose in-tree PEP 517 backend runs as the
 * playbook user during `pip install`) leaves `.playform_pip_requirements/installed.json` as a
 * symbolic link to a file of the runner's that only root may write: the RTE (root) overwrites
 * it with the entry's JSON. Any file of the runner: /etc/passwd, /etc/sudoers.d/x (created when
 * missing: O_CREAT), the RTE's own state.
 *
 * The test makes a root-only folder (0700) with a root-only file (0600) and checks that the
 * job cannot change it. Needs root (the RTE switches to its playbook user); skipped otherwise.
 * Failed before the fix: the file held `{"key":"…","installedAt":"…","details":{…}}` after the
 * job. Fixed: the cache copies every install (copy-tree.ts) and writes `installed.json` only after
 * removing what is at that name, with O_CREAT|O_EXCL|O_NOFOLLOW (requirements-cache.ts).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RteHarness } from "../support/rte-harness";

const RUNNER = "pipinstalledlink";
const isRoot = process.getuid?.() === 0;
const forms = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack9-forms-"));
const rootOnly = fs.mkdtempSync(path.join("/var/tmp", "playform-attack9-root-only-"));
const victim = path.join(rootOnly, "root-only.txt");
const h = new RteHarness(forms, RUNNER);

const BACKEND = (target: string) => `"""An in-tree PEP 517 backend (no setuptools, no index): builds a one-module wheel, and
leaves the cache entry's installed.json, in the folder the install writes into, as a link."""
import base64
import hashlib
import os
import sys
import zipfile

NAME = "playform_linkpkg"
VERSION = "1.0.0"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    # <job>/.playform_pip_requirements/venv/bin/python: the folder the cache takes over.
    produced = os.path.dirname(os.path.dirname(os.path.dirname(sys.executable)))
    try:
        os.symlink(${JSON.stringify(target)}, os.path.join(produced, "installed.json"))
    except OSError as error:
        print("attack9: no link:", error, file=sys.stderr)
    info = f"{NAME}-{VERSION}.dist-info"
    files = {
        f"{NAME}/__init__.py": b'MARK = "installed"\\n',
        f"{info}/METADATA": f"Metadata-Version: 2.1\\nName: {NAME}\\nVersion: {VERSION}\\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\\nGenerator: attack9\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
    }
    name = f"{NAME}-{VERSION}-py3-none-any.whl"
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as archive:
        for path, data in files.items():
            archive.writestr(path, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{path},sha256={digest},{len(data)}")
        record.append(f"{info}/RECORD,,")
        archive.writestr(f"{info}/RECORD", "\\n".join(record) + "\\n")
    return name
`;

const PLAYBOOK = `- name: Uses its package
  hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - name: Which package the venv has
      ansible.builtin.command: python3 -c "import playform_linkpkg; print('mark=' + playform_linkpkg.MARK)"
      changed_when: false
`;

beforeAll(async () => {
  if (!isRoot) return;
  fs.chmodSync(rootOnly, 0o700);
  fs.writeFileSync(victim, "root-only: untouched\n", { mode: 0o600 });
  const dir = path.join(forms, "pip-installed-link");
  const pkg = path.join(dir, "linkpkg");
  fs.mkdirSync(pkg, { recursive: true });
  fs.writeFileSync(path.join(dir, "form.yaml"), `name: pip-installed-link\ntitle: attack 9\nplaybook: playbook.yml\nrunner: ${RUNNER}\n`);
  fs.writeFileSync(path.join(dir, "playbook.yml"), PLAYBOOK);
  fs.writeFileSync(path.join(dir, "requirements.txt"), "./linkpkg\n");
  fs.writeFileSync(path.join(pkg, "pyproject.toml"), '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n');
  fs.writeFileSync(path.join(pkg, "backend.py"), BACKEND(victim));
  for (const folder of [forms, dir, pkg]) fs.chmodSync(folder, 0o755);
  await h.start();
  h.startRte({ instanceId: "pipinstalledlink-0", ...h.dirs("pipinstalledlink-0") });
}, 180_000);

afterAll(async () => {
  if (isRoot) await h.stop();
  fs.rmSync(forms, { recursive: true, force: true });
  fs.rmSync(rootOnly, { recursive: true, force: true });
});

it.skipIf(!isRoot)(
  "an install cannot make the RTE write outside the cache through a link",
  async () => {
    const job = await h.api.launch("pip-installed-link");
    const ended = await h.api.waitForEnd(job, 240_000);
    const output = await h.api.output(job);
    expect(output, output).toMatch(/requirements: (installed|pip installing)/);
    const content = fs.readFileSync(victim, "utf8");
    expect({ content, mode: (fs.statSync(victim).mode & 0o777).toString(8) }, `${ended.status}: ${ended.statusReason}\n${output}`).toEqual({
      content: "root-only: untouched\n",
      mode: "600",
    });
  },
  600_000,
);
