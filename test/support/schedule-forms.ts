/**
 * Forms for the schedule tests, written into a fresh folder: `sched-sleep` sleeps `seconds`
 * and prints the length of its password field (so a test sees the sealed value arrive),
 * `sched-approval` waits for approval (its jobs stay "going" without running anything, cheap
 * on CPU), and `sched-choice` has a select whose options a test changes to break a saved value.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const INVENTORY = 'localhost ansible_connection=local ansible_python_interpreter="{{ ansible_playbook_python }}"\n';

const PLAYBOOK = `- name: Scheduled
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Sleep
      ansible.builtin.command: "sleep {{ seconds | default(0) }}"
      changed_when: false
    - name: Tell
      ansible.builtin.debug:
        msg: "secret length {{ (secret | default('')) | length }}"
`;

const FORMS: Record<string, string> = {
  "sched-sleep": `name: sched-sleep
title: Scheduled sleep
playbook: playbook.yml
inventories: [inventory.ini]
fields:
  - { name: seconds, type: number, integer: true, min: 0, max: 60, default: 0 }
  - { name: secret, type: password }
`,
  "sched-approval": `name: sched-approval
title: Scheduled, needs approval
playbook: playbook.yml
inventories: [inventory.ini]
requiresApproval: true
`,
  "sched-choice": `name: sched-choice
title: Scheduled choice
playbook: playbook.yml
inventories: [inventory.ini]
requiresApproval: true
fields:
  - { name: mode, type: select, required: true, options: [alpha, beta] }
`,
};

export function writeScheduleForms(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-schedule-forms-"));
  for (const [name, yaml] of Object.entries(FORMS)) {
    fs.mkdirSync(path.join(dir, name));
    fs.writeFileSync(path.join(dir, name, "form.yaml"), yaml);
    fs.writeFileSync(path.join(dir, name, "playbook.yml"), PLAYBOOK);
    fs.writeFileSync(path.join(dir, name, "inventory.ini"), INVENTORY);
  }
  return dir;
}

/** Rewrites a form's form.yaml (the test then re-imports the forms). */
export function rewriteForm(dir: string, name: string, change: (yaml: string) => string): void {
  const file = path.join(dir, name, "form.yaml");
  fs.writeFileSync(file, change(fs.readFileSync(file, "utf8")));
}

/** The jobs a schedule launched, from the database: id, status and when each was created (ms). */
export const SCHEDULE_JOBS_SQL = 'SELECT id, status, "createdAt" AS "createdAt" FROM "Job" WHERE "scheduleId" = $1 ORDER BY id';

export function createdMs(value: unknown): number {
  return value instanceof Date ? value.getTime() : typeof value === "number" ? value : new Date(String(value)).getTime();
}
