/**
 * The form of the drift watch's tests (issue 22 §5): `managed-files` writes `<dir>/<host>.txt`
 * on web1 and db1 (both local), so a hand edit of one of those files is a drift its checks find.
 * The files live outside the sandbox's private /tmp, readable by the playbook user as a runner's
 * /etc would be; a drift check reads them and writes nothing.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const MANAGED_FORM = "managed-files";
/** What the playbook writes into each file. */
export const WANTED = "managed by playform\n";
/** The task a drift of a file names. */
export const MANAGED_TASK = "Write the managed file";

const PLAYBOOK = `- name: Keep the files
  hosts: all
  gather_facts: false
  tasks:
    - name: ${MANAGED_TASK}
      ansible.builtin.copy:
        content: "${WANTED.trim()}\\n"
        dest: "{{ dir }}/{{ inventory_hostname }}.txt"
    - name: Say it is done
      ansible.builtin.debug:
        msg: done
`;

export interface ManagedFiles {
  /** PLAYFORM_FORMS_DIR for the app. */
  formsDir: string;
  /** The folder of the managed files: the form's `dir` value. */
  managed: string;
  /** Writes a host's file as a hand would. */
  write(host: string, text: string): void;
  read(host: string): string;
  remove(): void;
}

/** Writes the form (notifying `drift` to the webhook URL when given) and the managed files, as the playbook wants them. */
export function managedFiles(options: { webhookUrl?: string } = {}): ManagedFiles {
  const managed = fs.mkdtempSync("/var/lib/playform-drift-");
  fs.chmodSync(managed, 0o755);
  const formsDir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-drift-forms-"));
  const form = path.join(formsDir, MANAGED_FORM);
  fs.mkdirSync(form);
  const notify = options.webhookUrl ? `notify:\n  - on: [drift]\n    webhook: { url: "${options.webhookUrl}" }\n` : "";
  fs.writeFileSync(
    path.join(form, "form.yaml"),
    `name: ${MANAGED_FORM}
title: Managed files
description: Writes one file per host; a schedule in drift mode finds the hosts whose file was edited by hand.
playbook: playbook.yml
inventories: [inventory.ini]
fields:
  - { name: dir, label: Folder, type: text, required: true }
${notify}`,
  );
  fs.writeFileSync(path.join(form, "playbook.yml"), PLAYBOOK);
  fs.writeFileSync(
    path.join(form, "inventory.ini"),
    ["web1", "db1"].map((host) => `${host} ansible_connection=local ansible_python_interpreter="{{ ansible_playbook_python }}"\n`).join(""),
  );
  const file = (host: string) => path.join(managed, `${host}.txt`);
  const files: ManagedFiles = {
    formsDir,
    managed,
    write(host, text) {
      fs.writeFileSync(file(host), text);
      fs.chmodSync(file(host), 0o644);
    },
    read: (host) => fs.readFileSync(file(host), "utf8"),
    remove() {
      fs.rmSync(managed, { recursive: true, force: true });
      fs.rmSync(formsDir, { recursive: true, force: true });
    },
  };
  files.write("web1", WANTED);
  files.write("db1", WANTED);
  return files;
}
