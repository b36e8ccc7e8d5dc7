import { execa } from "execa";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EMPTY_ANSIBLE_CONFIG, installConfigEnv, runnerAnsibleConfig } from "../../server/rte/install-config";

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A job folder holding a form's ansible.cfg naming its own Galaxy server, and a pip.conf where pip looks with HOME there. */
function jobWithFormConfig(): string {
  const job = fs.mkdtempSync(path.join(os.tmpdir(), "playform-install-config-"));
  temps.push(job);
  fs.writeFileSync(path.join(job, "ansible.cfg"), "[galaxy]\nserver = http://127.0.0.1:9/form/\n");
  fs.mkdirSync(path.join(job, ".config", "pip"), { recursive: true });
  fs.writeFileSync(path.join(job, ".config", "pip", "pip.conf"), "[global]\nindex-url = http://127.0.0.1:9/form-simple/\n");
  return job;
}

describe("installConfigEnv", () => {
  it("without a configuration of the runner's, pins an empty file of the RTE's that ansible takes instead of the form's ansible.cfg", async () => {
    const job = jobWithFormConfig();
    const { env, note } = installConfigEnv(job, {}, null, null);
    if (fs.existsSync("/etc/ansible/ansible.cfg")) return; // the runner's own file is then pinned (next test)
    expect(note).toBeNull();
    expect(env.ANSIBLE_CONFIG).toBe(path.join(job, EMPTY_ANSIBLE_CONFIG));
    expect(fs.readFileSync(env.ANSIBLE_CONFIG, "utf8")).toBe("");
    expect(fs.statSync(env.ANSIBLE_CONFIG).mode & 0o777).toBe(0o444);
    const seen = await execa("ansible", ["--version"], { cwd: job, env: { ...process.env, ...env }, reject: false });
    expect(seen.stdout).toContain(`config file = ${env.ANSIBLE_CONFIG}`);
    // /dev/null would not do: ansible refuses it.
    const devNull = await execa("ansible", ["--version"], {
      cwd: job,
      env: { ...process.env, ANSIBLE_CONFIG: "/dev/null" },
      reject: false,
    });
    expect(devNull.exitCode).not.toBe(0);
    // Made anew for each install: a file left there is replaced.
    expect(installConfigEnv(job, {}, null, null).env.ANSIBLE_CONFIG).toBe(env.ANSIBLE_CONFIG);
  });

  it("pins the RTE's ANSIBLE_CONFIG (a folder standing for its ansible.cfg) when the install can read it", () => {
    const job = jobWithFormConfig();
    const runner = fs.mkdtempSync(path.join(os.tmpdir(), "playform-runner-config-"));
    temps.push(runner);
    fs.writeFileSync(path.join(runner, "ansible.cfg"), "[defaults]\n", { mode: 0o644 });
    expect(installConfigEnv(job, { ANSIBLE_CONFIG: path.join(runner, "ansible.cfg") }, null, null)).toEqual({
      env: { ANSIBLE_CONFIG: path.join(runner, "ansible.cfg"), PIP_CONFIG_FILE: os.devNull },
      note: null,
    });
    expect(installConfigEnv(job, { ANSIBLE_CONFIG: runner }, null, null).env.ANSIBLE_CONFIG).toBe(path.join(runner, "ansible.cfg"));
    // Run as the RTE's own user, its ~/.ansible.cfg is the runner's too (a playbook user's HOME is the job folder).
    fs.writeFileSync(path.join(runner, ".ansible.cfg"), "[defaults]\n");
    expect(runnerAnsibleConfig({}, true, runner)).toBe(path.join(runner, ".ansible.cfg"));
    expect(runnerAnsibleConfig({}, false, runner)).not.toBe(path.join(runner, ".ansible.cfg"));
  });

  it("falls back to the empty file, saying why, when the install could not read the runner's file (ansible would take ./ansible.cfg)", () => {
    const job = jobWithFormConfig();
    const runner = fs.mkdtempSync(path.join(os.tmpdir(), "playform-runner-config-"));
    temps.push(runner);
    fs.chmodSync(runner, 0o755);
    const file = path.join(runner, "ansible.cfg");
    fs.writeFileSync(file, "[defaults]\n", { mode: 0o600 });
    const other = { uid: 54_321, gid: 54_321 };
    const unreadable = installConfigEnv(job, { ANSIBLE_CONFIG: file }, other, null);
    expect(unreadable.env.ANSIBLE_CONFIG).toBe(path.join(job, EMPTY_ANSIBLE_CONFIG));
    expect(unreadable.note).toContain(`the runner's ${file} cannot be read by the install`);
    fs.chmodSync(file, 0o644);
    expect(installConfigEnv(job, { ANSIBLE_CONFIG: file }, other, null).env.ANSIBLE_CONFIG).toBe(file);
    // Under the private /tmp the sandbox hides it.
    const hidden = installConfigEnv(job, { ANSIBLE_CONFIG: file }, other, { tmpDir: path.join(job, ".playform_tmp"), jobDir: job });
    expect(hidden.env.ANSIBLE_CONFIG).toBe(path.join(job, EMPTY_ANSIBLE_CONFIG));
    expect(installConfigEnv(job, { ANSIBLE_CONFIG: path.join(runner, "missing.cfg") }, null, null).note).toContain("cannot be read");
  });

  it("pins pip to no configuration file unless the runner set PIP_CONFIG_FILE: a pip.conf in the job folder is not read", async () => {
    const job = jobWithFormConfig();
    const { env } = installConfigEnv(job, {}, null, null);
    expect(env.PIP_CONFIG_FILE).toBe(os.devNull);
    expect(installConfigEnv(job, { PIP_CONFIG_FILE: "/etc/pip-runner.conf" }, null, null).env.PIP_CONFIG_FILE).toBe("/etc/pip-runner.conf");
    const list = (extra: Record<string, string>) =>
      execa("/usr/bin/python3", ["-m", "pip", "config", "list"], {
        cwd: job,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: job, ...extra },
        reject: false,
      });
    expect((await list({})).stdout).toContain("form-simple"); // what pip would read without the pin
    const pinned = await list({ PIP_CONFIG_FILE: env.PIP_CONFIG_FILE });
    expect(pinned.stdout).not.toContain("form-simple");
  });
});
