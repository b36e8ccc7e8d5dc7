/**
 * Attack 9 on issue 34: seal() copies a hard-linked file onto a link the install left, as root,
 * then chowns and chmods through it: a file of the form's content, anywhere on the runner.
 *
 * seal() (server/rte/requirements-cache.ts) makes an installed tree the RTE's. A file with other
 * hard links is replaced by a copy: `fs.copyFileSync(target, target + ".playform-copy")`, then a
 * rename onto the target, then `chownSync`/`chmodSync(target, 0644 or 0755)`: all by path. Under
 * bwrap the install's folder is renamed into the cache as it is, so what the install made is
 * there: a file `payload` (the form's bytes), a hard link to it (`payload-link`: nlink 2), and a
 * symbolic link `payload.playform-copy` to any path of the runner. copyFileSync opens the link's
 * target for writing (O_CREAT|O_TRUNC, following it) and writes the form's bytes there as root;
 * the rename then puts the link at `payload`, and chown and chmod follow it too: the file is
 * root's, 0644 (0755 when `payload` is executable). A line in /etc/cron.d, a key in
 * /root/.ssh/authorized_keys: root on the runner. (Without bwrap the install is copied first,
 * hard links become separate files, and this path is not taken.)
 *
 * The form's package (requirements.txt `./sealpkg`, an in-tree PEP 517 backend running as the
 * playbook user during `pip install`) makes the three in `.playform_pip_requirements`. The test
 * makes a root-only folder (0700) with a root-only file (0600) and checks that the job cannot
 * change it. Needs root; skipped otherwise. Failed before the fix: the file held the form's
 * bytes, 0644. Fixed: the cache copies every install (copy-tree.ts: every file anew, no hard link
 * survives, links as links), so seal acts on a tree the RTE made.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RteHarness } from "../support/rte-harness";

const RUNNER = "pipseallink";
const isRoot = process.getuid?.() === 0;
const forms = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack9-forms-"));
const rootOnly = fs.mkdtempSync(path.join("/var/tmp", "playform-attack9-root-only-"));
const victim = path.join(rootOnly, "root-only.txt");
const h = new RteHarness(forms, RUNNER);

const BACKEND = (target: string) => `"""An in-tree PEP 517 backend (no setuptools, no index): builds a one-module wheel, and
leaves, in the folder the install writes into, a hard-linked file and a link where seal() copies it."""
import base64
import hashlib
import os
import sys
import zipfile

NAME = "playform_sealpkg"
VERSION = "1.0.0"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    # <job>/.playform_pip_requirements/venv/bin/python: the folder the cache takes over.
    produced = os.path.dirname(os.path.dirname(os.path.dirname(sys.executable)))
    try:
        payload = os.path.join(produced, "payload")
        with open(payload, "w") as out:
            out.write("written-by-the-form\\n")
        os.link(payload, os.path.join(produced, "payload-link"))
        os.symlink(${JSON.stringify(target)}, payload + ".playform-copy")
    except OSError as error:
        print("attack9: not made:", error, file=sys.stderr)
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
      ansible.builtin.command: python3 -c "import playform_sealpkg; print('mark=' + playform_sealpkg.MARK)"
      changed_when: false
`;

beforeAll(async () => {
  if (!isRoot) return;
  fs.chmodSync(rootOnly, 0o700);
  fs.writeFileSync(victim, "root-only: untouched\n", { mode: 0o600 });
  const dir = path.join(forms, "pip-installed-link");
  const pkg = path.join(dir, "sealpkg");
  fs.mkdirSync(pkg, { recursive: true });
  fs.writeFileSync(path.join(dir, "form.yaml"), `name: pip-installed-link\ntitle: attack 9\nplaybook: playbook.yml\nrunner: ${RUNNER}\n`);
  fs.writeFileSync(path.join(dir, "playbook.yml"), PLAYBOOK);
  fs.writeFileSync(path.join(dir, "requirements.txt"), "./sealpkg\n");
  fs.writeFileSync(path.join(pkg, "pyproject.toml"), '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n');
  fs.writeFileSync(path.join(pkg, "backend.py"), BACKEND(victim));
  for (const folder of [forms, dir, pkg]) fs.chmodSync(folder, 0o755);
  await h.start();
  h.startRte({ instanceId: "pipseallink-0", ...h.dirs("pipseallink-0") });
}, 180_000);

afterAll(async () => {
  if (isRoot) await h.stop();
  fs.rmSync(forms, { recursive: true, force: true });
  fs.rmSync(rootOnly, { recursive: true, force: true });
});

it.skipIf(!isRoot)(
  "seal() cannot be made to copy, chown or chmod outside the cache through a link",
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
