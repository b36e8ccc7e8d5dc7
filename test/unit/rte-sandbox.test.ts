import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  BWRAP_ARGS,
  SECRETS_FD,
  STATUS_FD,
  ansibleStateInJob,
  becomeRefusedWatch,
  bwrapArgs,
  chooseSandbox,
  hiddenFolders,
  hiddenJobDir,
  ownUserAnsibleTmp,
  preparePrivateTmp,
  privateTmpArgs,
  reachableBy,
  runnerFolders,
  wrapPlaybook,
} from "../../server/rte/sandbox";

const playbook = { file: "ansible-playbook", args: ["-e", "@/jobs/1/.hidden", "site.yml"] };

describe("wrapPlaybook", () => {
  it("without bubblewrap: playbook-init.py hands the secrets over, then becomes ansible-playbook", () => {
    expect(wrapPlaybook(playbook, "/opt/init.py", "/jobs/1/.hidden", false)).toEqual({
      file: "python3",
      args: [
        "/opt/init.py",
        "--secrets-fd",
        String(SECRETS_FD),
        "--secrets-fifo",
        "/jobs/1/.hidden",
        "--",
        "ansible-playbook",
        ...playbook.args,
      ],
    });
  });

  it("with bubblewrap: bwrap ignores SIGTERM, dies with the RTE, and playbook-init.py is PID 1 reporting on fd 4", () => {
    const { file, args } = wrapPlaybook(playbook, "/opt/init.py", "/jobs/1/.hidden", true);
    expect(file).toBe("env");
    expect(args.slice(0, 2)).toEqual(["--ignore-signal=TERM", "bwrap"]);
    expect(BWRAP_ARGS).toEqual(expect.arrayContaining(["--unshare-pid", "--unshare-ipc", "--die-with-parent", "--as-pid-1"]));
    const inner = args.indexOf("--");
    // /dev read-only last (a tmpfs of the playbook's user no disk check counts: attack 6).
    expect(args.slice(2, inner)).toEqual([...BWRAP_ARGS, "--remount-ro", "/dev"]);
    expect(args.slice(inner + 1)).toEqual([
      "python3",
      "/opt/init.py",
      "--init",
      String(STATUS_FD),
      "--secrets-fd",
      String(SECRETS_FD),
      "--secrets-fifo",
      "/jobs/1/.hidden",
      "--",
      "ansible-playbook",
      ...playbook.args,
    ]);
  });

  it("with a private /tmp: the job's folder stands in for /tmp, /var/tmp, /dev/shm and /run/lock, the job folder is bound again", () => {
    const tmp = { tmpDir: "/tmp/playform-jobs-1/7/.playform_tmp", jobDir: "/tmp/playform-jobs-1/7" };
    const { args } = wrapPlaybook(playbook, "/opt/init.py", "/tmp/playform-jobs-1/7/.hidden", true, tmp);
    const inner = args.indexOf("--");
    // After BWRAP_ARGS' `--ro-bind / /`: bwrap mounts in the order given.
    expect(args.slice(2, 2 + BWRAP_ARGS.length)).toEqual(BWRAP_ARGS);
    expect(args.slice(2 + BWRAP_ARGS.length, inner)).toEqual([
      "--bind",
      tmp.tmpDir,
      "/tmp",
      "--bind",
      tmp.tmpDir,
      "/var/tmp",
      "--bind",
      tmp.tmpDir,
      "/dev/shm",
      "--bind",
      tmp.tmpDir,
      "/run/lock",
      "--bind",
      tmp.jobDir,
      tmp.jobDir,
      // After the binds: /dev/shm, a mount of its own, stays writable.
      "--remount-ro",
      "/dev",
    ]);
    // A job folder elsewhere is not hidden by the private /tmp: nothing to bind again.
    const elsewhere = wrapPlaybook(playbook, "/opt/init.py", "/srv/jobs/7/.hidden", true, {
      tmpDir: "/srv/jobs/7/.playform_tmp",
      jobDir: "/srv/jobs/7",
    });
    expect(elsewhere.args.slice(elsewhere.args.lastIndexOf("--bind") - 2, elsewhere.args.indexOf("--"))).toEqual([
      "/srv/jobs/7/.playform_tmp",
      "/run/lock",
      "--bind",
      "/srv/jobs/7",
      "/srv/jobs/7",
      "--remount-ro",
      "/dev",
    ]);
    // A folder this machine does not have is not mounted over (bwrap would have to create it).
    expect(privateTmpArgs(tmp, (folder) => folder !== "/run/lock")).not.toContain("/run/lock");
    // Without bwrap there is no private /tmp to give.
    expect(wrapPlaybook(playbook, "/opt/init.py", "/srv/jobs/7/.hidden", false, tmp).args).not.toContain("--bind");
  });

  it("binds Playform's own folders again, read-only, when it runs from under /tmp (a clone in /tmp)", () => {
    const tmp = {
      tmpDir: "/srv/jobs/7/.playform_tmp",
      jobDir: "/srv/jobs/7",
      readOnly: hiddenFolders(["/tmp/ci/playform/server/rte/ansible", "/tmp/ci/playform/server/rte/ansible/callback_plugins", "/opt/x"]),
    };
    expect(tmp.readOnly).toEqual(["/tmp/ci/playform/server/rte/ansible"]);
    const args = privateTmpArgs(tmp, () => true);
    expect(args.slice(-3)).toEqual(["--ro-bind", "/tmp/ci/playform/server/rte/ansible", "/tmp/ci/playform/server/rte/ansible"]);
  });

  it("reads the system only: the runner's folders are hidden, the job's folder and its /tmp are what it may write", () => {
    expect(BWRAP_ARGS.slice(0, 7)).toEqual(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]);
    expect(BWRAP_ARGS).not.toContain("--dev-bind");
    const hidden = runnerFolders({
      spoolDir: "/var/lib/rte/spool",
      workDir: "/var/lib/rte/work",
      stateDir: "/var/lib/rte/state",
      jobsDir: "/srv/jobs",
      requirementsDir: "/srv/jobs/.requirements",
    });
    expect(hidden).toEqual(expect.arrayContaining(["/var/lib/rte/spool", "/var/lib/rte/work", "/var/lib/rte/state", "/srv/jobs"]));
    const tmp = { tmpDir: "/srv/jobs/7/.playform_tmp", jobDir: "/srv/jobs/7", hidden: ["/var/lib/rte/spool", "/srv/jobs"], readOnly: [] };
    const args = privateTmpArgs(tmp, () => true);
    // Hidden first, then the private /tmp, then the job's folder again over the hidden jobs folder.
    expect(args.slice(0, 4)).toEqual(["--tmpfs", "/var/lib/rte/spool", "--tmpfs", "/srv/jobs"]);
    expect(args.slice(-3)).toEqual(["--bind", "/srv/jobs/7", "/srv/jobs/7"]);
    // Nothing else is writable: every --bind is the job's folder or its /tmp.
    const sources = args.flatMap((arg, i) => (arg === "--bind" ? [args[i + 1]] : []));
    expect(new Set(sources)).toEqual(new Set(["/srv/jobs/7/.playform_tmp", "/srv/jobs/7"]));
    // Playform's own folders under a hidden one come back read-only.
    expect(hiddenFolders(["/srv/jobs/env/bin", "/opt/x", "/tmp/ci/ansible"], ["/srv/jobs"])).toEqual(["/srv/jobs/env/bin"]);
  });

  it("hides each runner folder the playbook's user can reach, once, and none the private /tmp hides anyway", () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), "sandbox-hide-"));
    try {
      fs.chmodSync(base, 0o755);
      const jobDir = path.join(base, "jobs", "7");
      fs.mkdirSync(jobDir, { recursive: true });
      for (const dir of ["spool", "work/cache", "closed/state"]) fs.mkdirSync(path.join(base, dir), { recursive: true });
      fs.chmodSync(path.join(base, "closed"), 0o700);
      const at = (...parts: string[]) => path.join(base, ...parts);
      const folders = [at("spool"), at("work"), at("work/cache"), at("closed/state"), at("not-made-yet"), at("jobs")];
      const who = { uid: 65534, gid: 65534 };
      // Under the private /tmp, all of them are hidden by it: no tmpfs needed.
      expect(preparePrivateTmp(jobDir, true, "on", [], folders, who).privateTmp?.hidden).toBeUndefined();
      fs.rmSync(at("jobs/7/.playform_tmp"), { recursive: true });
      // With the runner's /tmp: the work dir once (its cache is in it); not a folder closed to
      // the user (bwrap, as the user, could not find it), nor one not made yet.
      expect(preparePrivateTmp(jobDir, true, "off", [], folders, who).privateTmp?.hidden).toEqual([at("spool"), at("work"), at("jobs")]);
      fs.rmSync(at("jobs/7/.playform_tmp"), { recursive: true });
      expect(reachableBy(at("closed/state"), who)).toBe(false);
      // The RTE's own user (null) reaches what it can stat.
      expect(preparePrivateTmp(jobDir, true, "off", [], folders, null).privateTmp?.hidden).toEqual([
        at("spool"),
        at("work"),
        at("closed/state"),
        at("jobs"),
      ]);
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });

  it("run as the RTE's own user: the job's .ansible/tmp is bound over the read-only ~/.ansible/tmp", () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), "sandbox-home-"));
    try {
      const tmp = { tmpDir: path.join(base, "jobs/7/.playform_tmp"), jobDir: path.join(base, "jobs/7"), runnerTmp: true };
      const binds = ownUserAnsibleTmp(tmp, path.join(base, "home"));
      expect(binds).toEqual([{ from: path.join(base, "jobs/7/.ansible/tmp"), to: path.join(base, "home/.ansible/tmp") }]);
      // Both made, or bwrap could not mount one over the other.
      expect(fs.statSync(path.join(base, "home/.ansible/tmp")).isDirectory()).toBe(true);
      expect(privateTmpArgs({ ...tmp, binds }, () => false).slice(-3)).toEqual(["--bind", binds[0]!.from, binds[0]!.to]);
      // A home the private /tmp hides has no such folder to bind over.
      expect(ownUserAnsibleTmp({ ...tmp, runnerTmp: false }, "/tmp/some-home")).toEqual([]);
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });

  it("with RTE_PLAYBOOK_PRIVATE_TMP=off: the runner's temp folders writable, a jobs folder in them still hidden", () => {
    const tmp = { tmpDir: "/tmp/jobs/7/.playform_tmp", jobDir: "/tmp/jobs/7", runnerTmp: true, hidden: ["/tmp/jobs"] };
    expect(privateTmpArgs(tmp, () => true)).toEqual([
      ...["/tmp", "/var/tmp", "/dev/shm", "/run/lock"].flatMap((mount) => ["--bind", mount, mount]),
      "--tmpfs",
      "/tmp/jobs",
      "--bind",
      "/tmp/jobs/7",
      "/tmp/jobs/7",
    ]);
  });

  it("network: false gives the playbook a network namespace of its own (loopback only)", () => {
    const { args } = wrapPlaybook(playbook, "/opt/init.py", "/jobs/1/.hidden", true, null, [], false);
    expect(args.slice(2, args.indexOf("--"))).toEqual([...BWRAP_ARGS, "--unshare-net", "--remount-ro", "/dev"]);
    expect(wrapPlaybook(playbook, "/opt/init.py", "/jobs/1/.hidden", true).args).not.toContain("--unshare-net");
  });

  it("a playbook run as the RTE's own user writes ansible's state in its job folder, not the read-only HOME", () => {
    expect(ansibleStateInJob("/srv/jobs/7", {})).toEqual({
      ANSIBLE_LOCAL_TEMP: "/srv/jobs/7/.ansible/tmp",
      ANSIBLE_SSH_CONTROL_PATH_DIR: "/srv/jobs/7/.ansible/cp",
      ANSIBLE_PERSISTENT_CONTROL_PATH_DIR: "/srv/jobs/7/.ansible/pc",
      ANSIBLE_GALAXY_CACHE_DIR: "/srv/jobs/7/.ansible/galaxy_cache",
    });
    // The runner's own choice stands.
    expect(ansibleStateInJob("/srv/jobs/7", { ANSIBLE_SSH_CONTROL_PATH_DIR: "/run/cp" })).not.toHaveProperty(
      "ANSIBLE_SSH_CONTROL_PATH_DIR",
    );
  });

  it("hiddenJobDir: where the job folder's mount point lies in the private /tmp", () => {
    expect(hiddenJobDir("/tmp/playform-jobs-1/7")).toBe("playform-jobs-1/7");
    expect(hiddenJobDir("/var/tmp/jobs/7")).toBe("jobs/7");
    expect(hiddenJobDir("/tmpfoo/jobs/7")).toBeNull();
    expect(hiddenJobDir("/srv/jobs/7")).toBeNull();
  });

  it("an inventory listing: the same bwrap and PID 1, without secrets (no FIFO)", () => {
    const listing = { file: "ansible-inventory", args: ["-i", "/jobs/inventory-1/hosts.yml", "--list"] };
    const { file, args } = wrapPlaybook(listing, "/opt/init.py", null, true);
    expect(file).toBe("env");
    const inner = args.indexOf("--");
    // /dev read-only last (a tmpfs of the playbook's user no disk check counts: attack 6).
    expect(args.slice(2, inner)).toEqual([...BWRAP_ARGS, "--remount-ro", "/dev"]);
    expect(args.slice(inner + 1)).toEqual([
      "python3",
      "/opt/init.py",
      "--init",
      String(STATUS_FD),
      "--",
      "ansible-inventory",
      ...listing.args,
    ]);
    expect(wrapPlaybook(listing, "/opt/init.py", null, false)).toEqual({
      file: "python3",
      args: ["/opt/init.py", "--", "ansible-inventory", ...listing.args],
    });
  });
});

describe("becomeRefusedWatch", () => {
  const refusal = 'sudo: The "no new privileges" flag is set, which prevents sudo from running as root.\n';
  it("finds sudo's refusal once, as printed, JSON-escaped in a task result, or split across chunks", () => {
    const printed = becomeRefusedWatch();
    expect(printed("TASK [command] ***\n")).toBe(false);
    expect(printed(refusal)).toBe(true);
    expect(printed(refusal)).toBe(false);
    const escaped = becomeRefusedWatch();
    expect(escaped(`fatal: [localhost]: FAILED! => ${JSON.stringify({ module_stderr: refusal })}\n`)).toBe(true);
    const split = becomeRefusedWatch();
    const at = refusal.indexOf("privileges");
    expect(split(refusal.slice(0, at))).toBe(false);
    expect(split(refusal.slice(at))).toBe(true);
    expect(becomeRefusedWatch()("a task that says no new privileges on its own\n")).toBe(false);
  });
});

describe("chooseSandbox", () => {
  const ok = { exitCode: 0, said: "" };
  const procRefused = { exitCode: 1, said: "bwrap: Can't mount proc on /newroot/proc: Operation not permitted\n" };
  it("takes the whole sandbox when it starts, without trying the runner's /proc", () => {
    expect(chooseSandbox(ok, null)).toEqual({ sandboxed: true, why: null });
  });

  it("takes the runner's /proc when the kernel refused only a new one, and says what was refused", () => {
    expect(chooseSandbox(procRefused, ok)).toEqual({
      sandboxed: "runner-proc",
      why: "bwrap: Can't mount proc on /newroot/proc: Operation not permitted",
    });
    // RTE_SANDBOX_PROC=runner: the whole sandbox was not tried.
    expect(chooseSandbox(null, ok)).toEqual({ sandboxed: "runner-proc", why: null });
  });

  it("has no sandbox when bwrap fails for anything but /proc, or with the runner's /proc too", () => {
    expect(chooseSandbox({ exitCode: 127, said: "" }, null)).toEqual({ sandboxed: false, why: "bwrap is not installed" });
    const noUserns = { exitCode: 1, said: "bwrap: No permissions to creating new namespace\n" };
    expect(chooseSandbox(noUserns, null)).toEqual({ sandboxed: false, why: "bwrap: No permissions to creating new namespace" });
    // Only a /proc refusal is worth the second probe; it not run (a caller's mistake) still means none.
    expect(chooseSandbox(procRefused, null).sandboxed).toBe(false);
    const failed = chooseSandbox(procRefused, { exitCode: 1, said: "bwrap: Can't bind mount /oldroot/proc\n" });
    expect(failed.sandboxed).toBe(false);
    expect(failed.why).toContain("with the runner's /proc: bwrap: Can't bind mount /oldroot/proc");
    expect(chooseSandbox(null, { exitCode: 127, said: "" })).toEqual({ sandboxed: false, why: "bwrap is not installed" });
  });

  it("has no sandbox when, with the runner's /proc, the playbook reaches the RTE's /proc/PID/root", () => {
    const reached = chooseSandbox(procRefused, { exitCode: 42, said: "" });
    expect(reached.sandboxed).toBe(false);
    expect(reached.why).toMatch(/reaches the runner's files through the RTE's \/proc\/PID\/root/);
  });
});

describe("bwrapArgs", () => {
  it("binds the runner's /proc read-only in place of a new one in the runner-proc mode, and changes nothing else", () => {
    expect(bwrapArgs(true)).toEqual(BWRAP_ARGS);
    const runnerProc = bwrapArgs("runner-proc");
    expect(runnerProc.slice(0, 8)).toEqual(["--ro-bind", "/", "/", "--dev", "/dev", "--ro-bind", "/proc", "/proc"]);
    expect(runnerProc).not.toContain("--proc");
    expect(runnerProc.slice(8)).toEqual(BWRAP_ARGS.slice(7));
    const { args } = wrapPlaybook(playbook, "/opt/init.py", null, "runner-proc");
    expect(args.slice(2, args.indexOf("--"))).toEqual([...runnerProc, "--remount-ro", "/dev"]);
  });
});
