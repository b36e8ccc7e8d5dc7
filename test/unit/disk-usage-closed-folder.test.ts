/**
 * A job's folder closed to the disk check (server/rte/disk-usage.ts). An RTE that is not root
 * runs playbooks as its own user and measures a job's folder with du as that user: a playbook
 * that wrote 20 MiB into a folder and closed it (chmod 000) hid them from du (8 KiB and one
 * unreadable entry) and passed an 8 MiB RTE_JOB_DISK_LIMIT unnoticed, and the RTE could not
 * remove the folder after the job (fourth attack on issue 34, item 7). Now the RTE opens the
 * folders its user owns again, measures them, and removes them; a folder it cannot open ends
 * the job at the second check. Run as `nobody` (setpriv), as the tests run as root.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";

const NOBODY = 65534;
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) {
    execFileSync("chmod", ["-R", "u+rwx", root]);
    fs.rmSync(root, { recursive: true, force: true });
  }
});

/** A job folder of `nobody` holding `hidden/blob` (20 MiB); `hidden` closed (0000) and owned by `owner`. */
function jobWithClosedFolder(owner: number): string {
  if (process.getuid?.() !== 0) throw new Error("this test makes folders of other users: run it as root (as CI does)");
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "disk-closed-"));
  roots.push(root);
  const job = path.join(root, "job");
  fs.mkdirSync(path.join(job, "hidden", "deeper"), { recursive: true });
  fs.writeFileSync(path.join(job, "hidden", "deeper", "blob"), Buffer.alloc(20 * 1024 * 1024, 1));
  // The jobs folder is the RTE's too: it removes a job's folder from it.
  execFileSync("chown", ["-R", `${NOBODY}:${NOBODY}`, root]);
  if (owner !== NOBODY) execFileSync("chown", [String(owner), path.join(job, "hidden")]);
  // Nested: the inner folder closed as well, so it opens only once the outer one is open.
  fs.chmodSync(path.join(job, "hidden", "deeper"), 0o000);
  fs.chmodSync(path.join(job, "hidden"), 0o000);
  return job;
}

/** watchDisk for 3 s as nobody, then the removal: the lines test/support/watch-disk-once.ts prints. */
function watchAsNobody(job: string, limit: number): string[] {
  const tsx = path.resolve(import.meta.dirname, "../../node_modules/.bin/tsx");
  const script = path.resolve(import.meta.dirname, "../support/watch-disk-once.ts");
  const command = [
    "setpriv",
    `--reuid=${NOBODY}`,
    `--regid=${NOBODY}`,
    "--clear-groups",
    "env",
    "HOME=/tmp",
    tsx,
    script,
    job,
    String(limit),
  ];
  return execFileSync(command[0]!, command.slice(1), { encoding: "utf8" }).trim().split("\n");
}

it("counts the bytes in folders the playbook closed to its own user, and removes them after the job", () => {
  const job = jobWithClosedFolder(NOBODY);
  const [verdict, removal] = watchAsNobody(job, 8 * 1024 * 1024);
  expect(verdict).toMatch(/^exceeded: the job used more than RTE_JOB_DISK_LIMIT \(8 MiB\) of the runner's disk: 20\.\d MiB/);
  expect(removal).toBe("removed");
  expect(fs.existsSync(job)).toBe(false);
}, 60_000);

it("ends the job whose folder stays closed to the disk check, rather than pass what it cannot measure", () => {
  // Owned by root: the RTE's user cannot open it again, as with a folder closed again at once.
  const job = jobWithClosedFolder(0);
  const [verdict] = watchAsNobody(job, 8 * 1024 * 1024);
  expect(verdict).toMatch(/^exceeded: the job keeps 1 folder\(s\) of its folder closed to the runner's disk check/);
}, 60_000);
