/**
 * `become` (sudo) on the runner itself, under the sandbox and without it (docs/security.md,
 * "become on the runner"). The real app, an RTE as root running playbooks as playform-run (as CI
 * runs it), Debian's sudo, and a sudoers rule letting playform-run become root, the runner a
 * form needing root on itself would have:
 * - under bubblewrap sudo refuses to start (no_new_privs, which bwrap always sets): the task
 *   fails with sudo's words, which blame "a container", and the runner says what they mean here,
 *   in the output and as the job's reason;
 * - the same job on an RTE with RTE_SANDBOX=none runs its task as root.
 * Needs Debian's sudo (scripts/test-all.sh installs it): without it the test fails saying so.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BECOME_REFUSED_NOTE } from "../../server/rte/sandbox";
import { RteHarness } from "../support/rte-harness";

const RUNNER = "becomerun";
const SUDO = "/usr/bin/sudo";
const SUDOERS = "/etc/sudoers.d/playform-test-become";
const hasSudo = fs.existsSync(SUDO) && process.getuid?.() === 0;
const forms = fs.mkdtempSync(path.join(os.tmpdir(), "playform-become-forms-"));
const h = new RteHarness(forms, RUNNER);

const PLAYBOOK = `- name: Needs root on the runner
  hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - name: As root
      ansible.builtin.command: id -u
      become: true
      register: root
      changed_when: false
    - name: Say who
      ansible.builtin.debug:
        msg: "become-uid={{ root.stdout }}"
`;

describe("become on the runner itself", () => {
  beforeAll(async () => {
    if (!hasSudo) throw new Error(`${SUDO} is not installed: apt-get install sudo (scripts/test-all.sh does)`);
    fs.mkdirSync(path.join(forms, "become-root"));
    fs.writeFileSync(
      path.join(forms, "become-root", "form.yaml"),
      `name: become-root\ntitle: become on the runner\nplaybook: playbook.yml\nrunner: ${RUNNER}\n`,
    );
    fs.writeFileSync(path.join(forms, "become-root", "playbook.yml"), PLAYBOOK);
    fs.chmodSync(forms, 0o755);
    fs.writeFileSync(SUDOERS, "playform-run ALL=(ALL) NOPASSWD: ALL\n", { mode: 0o440 });
    await h.start();
  }, 120_000);

  afterAll(async () => {
    fs.rmSync(SUDOERS, { force: true });
    await h.stop();
    fs.rmSync(forms, { recursive: true, force: true });
  });

  it("fails under the sandbox with sudo's words and the runner's explanation; runs as root without it", async () => {
    const sandboxed = h.startRte({ instanceId: "become-0", ...h.dirs("become-0") });
    await h.waitForRteOutput(sandboxed, /pid namespace of their own \(bubblewrap\)/, 60_000);
    await h.waitForRteOutput(sandboxed, /connected to http/, 60_000);
    const refused = await h.api.launch("become-root");
    const job = await h.api.waitForEnd(refused);
    const out = await h.api.output(refused);
    expect(job.status, out).toBe("failed");
    expect(out).toContain('The \\"no new privileges\\" flag is set, which prevents sudo from running as root');
    expect(out).toContain(BECOME_REFUSED_NOTE);
    // Said once, after sudo's words.
    expect(out.split(BECOME_REFUSED_NOTE)).toHaveLength(2);
    expect(out.indexOf(BECOME_REFUSED_NOTE)).toBeGreaterThan(out.indexOf("no new privileges"));
    expect(job.statusReason).toBe(BECOME_REFUSED_NOTE);
    expect(out).not.toContain("become-uid=");

    await h.kill(sandboxed, { groups: true });
    const plain = h.startRte({ instanceId: "become-1", ...h.dirs("become-1"), env: { RTE_SANDBOX: "none" } });
    await h.waitForRteOutput(plain, /connected to http/, 60_000);
    const allowed = await h.api.launch("become-root");
    const job2 = await h.api.waitForEnd(allowed);
    const out2 = await h.api.output(allowed);
    expect(job2.status, `${job2.statusReason}\n${out2}`).toBe("success");
    expect(out2).toContain("become-uid=0");
    expect(out2).not.toContain(BECOME_REFUSED_NOTE);
  }, 300_000);
});
