/**
 * Attack 9 on issue 34 (held, kept as a probe): what a form's inventory script reaches when any
 * viewer of the form makes the runner list it (GET /api/forms/NAME). The runner's folders are put
 * outside /tmp (under /var/lib, 0755, so that only the sandbox hides them, not the private /tmp):
 * the spool, the work dir, the state (its token), the jobs folder while another form's job sleeps
 * in it, and the requirements cache holding that form's installed collection. The form's inventory
 * plugin answers
 * with host names saying what it could list or read, and what of the RTE's and the app's
 * environment it has. Run it by moving it to test/integration/ (the imports stay);
 * needs root (playbooks as playform-run) and bwrap.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let api: ApiClient;
const base = fs.mkdtempSync("/var/lib/playform-attack9-reach-");
const forms = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack9-reach-forms-"));
const folders = {
  spool: path.join(base, "spool"),
  work: path.join(base, "work"),
  state: path.join(base, "state"),
  jobs: path.join(base, "jobs"),
  req: path.join(base, "req"),
};

/** An inventory plugin of the form (a script would have to be executable: the job's files are 0600). */
const PLUGIN = (targets: Record<string, string>) => `import json, os
from ansible.plugins.inventory import BaseInventoryPlugin

DOCUMENTATION = """
name: reach
short_description: says what it reaches
description: a test plugin
"""


class InventoryModule(BaseInventoryPlugin):
    NAME = "reach"

    def verify_file(self, path):
        return path.endswith("reach.yml")

    def parse(self, inventory, loader, path, cache=True):
        super().parse(inventory, loader, path, cache)
        names = []

        def look(label, folder):
            try:
                entries = os.listdir(folder)
                names.append("listed-%s-%d" % (label, len(entries)))
                for root, dirs, files in os.walk(folder):
                    for f in files:
                        try:
                            open(os.path.join(root, f), "rb").read(1)
                            names.append("read-%s" % label)
                            return
                        except OSError:
                            pass
            except OSError as e:
                names.append("closed-%s-%s" % (label, e.errno))

        for label, folder in ${JSON.stringify(targets)}.items():
            look(label, folder)
        others = 0
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
        for pid in pids:
            if int(pid) != os.getpid():
                try:
                    open("/proc/%s/environ" % pid, "rb").read()
                    others += 1
                except OSError:
                    pass
        names.append("environ-readable-%d" % others)
        names.append("pids-%d" % len(pids))
        leaked = [k for k in os.environ if k.startswith(("RTE_", "PLAYFORM_", "ENCRYPTION", "DATABASE", "PG"))]
        names.append("env-" + ("-".join(sorted(leaked)).lower().replace("_", "") or "clean"))
        for name in names:
            inventory.add_host(name)
`;

beforeAll(async () => {
  fs.chmodSync(base, 0o755);
  const victim = path.join(forms, "reach-victim");
  fs.mkdirSync(path.join(victim, "victimcoll"), { recursive: true });
  fs.writeFileSync(path.join(victim, "form.yaml"), "name: reach-victim\ntitle: victim\nplaybook: playbook.yml\n");
  fs.writeFileSync(
    path.join(victim, "playbook.yml"),
    '- hosts: localhost\n  connection: local\n  gather_facts: false\n  tasks:\n    - ansible.builtin.shell: "echo victim-secret-file > victim.txt; sleep 40"\n',
  );
  fs.writeFileSync(path.join(victim, "requirements.yml"), "collections:\n  - name: ./victimcoll\n    type: dir\n");
  fs.writeFileSync(
    path.join(victim, "victimcoll", "galaxy.yml"),
    "namespace: attack9\nname: victim\nversion: 1.0.0\nreadme: README.md\nauthors: [a]\n",
  );
  fs.writeFileSync(path.join(victim, "victimcoll", "README.md"), "x\n");
  const spy = path.join(forms, "reach-spy");
  fs.mkdirSync(spy, { recursive: true });
  fs.writeFileSync(
    path.join(spy, "form.yaml"),
    "name: reach-spy\ntitle: spy\nplaybook: playbook.yml\ninventories: [reach.yml]\nfields:\n  - { name: target, type: hosts }\n",
  );
  fs.mkdirSync(path.join(spy, "plugins"));
  fs.writeFileSync(path.join(spy, "reach.yml"), "plugin: reach\n");
  fs.writeFileSync(path.join(spy, "ansible.cfg"), "[defaults]\ninventory_plugins = ./plugins\n[inventory]\nenable_plugins = reach\n");
  fs.writeFileSync(path.join(spy, "playbook.yml"), "- hosts: all\n  gather_facts: false\n  tasks: []\n");
  fs.writeFileSync(path.join(spy, "plugins", "reach.py"), PLUGIN(folders));
  for (const dir of [forms, victim, spy, path.join(spy, "plugins"), path.join(victim, "victimcoll")]) fs.chmodSync(dir, 0o755);
  app = await startPlayform({
    env: {
      PLAYFORM_FORMS_DIR: forms,
      RTE_SPOOL_PATH: folders.spool,
      RTE_WORK_DIR: folders.work,
      RTE_STATE_PATH: folders.state,
      RTE_JOBS_DIR: folders.jobs,
      RTE_REQUIREMENTS_DIR: folders.req,
    },
  });
  api = apiClient(app, await adminToken(app));
}, 120_000);

afterAll(async () => {
  await app?.stop();
  fs.rmSync(base, { recursive: true, force: true });
  fs.rmSync(forms, { recursive: true, force: true });
});

it("an inventory listing reaches none of the runner's folders, no other job's, no environment", async () => {
  const victim = await api.launch("reach-victim");
  await api.waitForStatus(victim, "running", 120_000);
  // The victim's collection is installed and its job sleeps in its folder.
  for (let i = 0; i < 60 && !(await api.output(victim)).includes("TASK ["); i++) await new Promise((r) => setTimeout(r, 500));
  // The first views may answer before the listing has ended.
  let field = (await api.get("/api/forms/reach-spy")).form.fields[0];
  for (let i = 0; i < 120 && field.choices.length === 0 && !field.choicesError; i++) {
    await new Promise((r) => setTimeout(r, 500));
    field = (await api.get("/api/forms/reach-spy")).form.fields[0];
  }
  const seen = (field.choices as { value: string }[]).map((choice) => choice.value).sort();
  // Its own folder is the one entry of the jobs folder (the victim's job folder is not there), its
  // own files are read; the one other process it sees is PID 1 of its own namespace (playbook-init.py).
  expect(seen, JSON.stringify(field)).toEqual([
    "env-clean",
    "environ-readable-1",
    "listed-jobs-1",
    "listed-req-0",
    "listed-spool-0",
    "listed-state-0",
    "listed-work-0",
    "pids-2",
    "read-jobs",
  ]);
}, 240_000);
