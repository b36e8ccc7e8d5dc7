import { describe, expect, it } from "vitest";
import { BWRAP_ARGS, SECRETS_FD, STATUS_FD, hiddenFolders, hiddenJobDir, privateTmpArgs, wrapPlaybook } from "../../server/rte/sandbox";

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
    expect(args.slice(2, inner)).toEqual(BWRAP_ARGS);
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
    // After BWRAP_ARGS' `--dev-bind / /`: bwrap mounts in the order given.
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
    ]);
    // A job folder elsewhere is not hidden by the private /tmp: nothing to bind again.
    const elsewhere = wrapPlaybook(playbook, "/opt/init.py", "/srv/jobs/7/.hidden", true, {
      tmpDir: "/srv/jobs/7/.playform_tmp",
      jobDir: "/srv/jobs/7",
    });
    expect(elsewhere.args.slice(elsewhere.args.lastIndexOf("--bind") + 1, elsewhere.args.indexOf("--"))).toEqual([
      "/srv/jobs/7/.playform_tmp",
      "/run/lock",
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
    expect(args.slice(2, inner)).toEqual(BWRAP_ARGS);
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
