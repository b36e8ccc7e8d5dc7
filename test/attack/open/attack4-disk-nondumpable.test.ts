/**
 * Fourth attack on issue 34, item 7: an RTE that is not root runs playbooks as its own user and
 * reads their /proc/PID/fd and maps as that user. A playbook process that holds a deleted file
 * open and calls prctl(PR_SET_DUMPABLE, 0) makes those entries root's: deletedFilesHeld counts
 * 0 bytes for it (16 MiB when the same process stays dumpable), so the job keeps any amount of
 * disk past RTE_JOB_DISK_LIMIT. Run here as `nobody` (setpriv) when the tests run as root.
 * test/attack/attack4-nondumpable.py, attack4-held-as.ts.
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";

it("counts a deleted file held open by a non-dumpable process of the playbook, the RTE running as the playbook's user", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "attack4-nondumpable-"));
  fs.chmodSync(dir, 0o777);
  const asRoot = process.getuid?.() === 0;
  const as = (command: string[]) =>
    asRoot ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "env", "HOME=/tmp", ...command] : command;
  const python = fs.existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  const [program, ...args] = as([
    python,
    path.resolve(import.meta.dirname, "../attack4-nondumpable.py"),
    path.join(dir, "held"),
    "16",
    "30",
  ]);
  const child = spawn(program!, args, { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const pid = await new Promise<number>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => {
        const found = /ready (\d+)/.exec(d.toString());
        if (found) resolve(Number(found[1]));
      });
      child.on("exit", (code) => reject(new Error(`exited ${code}`)));
    });
    expect(fs.readdirSync(dir)).toEqual([]);
    const [tsx, ...rest] = as([
      path.resolve(import.meta.dirname, "../../../node_modules/.bin/tsx"),
      path.resolve(import.meta.dirname, "../attack4-held-as.ts"),
      String(pid),
    ]);
    const held = Number(execFileSync(tsx!, rest, { encoding: "utf8" }).trim());
    expect(held).toBeGreaterThanOrEqual(16 * 1024 * 1024);
  } finally {
    child.kill("SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
