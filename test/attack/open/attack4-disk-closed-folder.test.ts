/**
 * Fourth attack on issue 34, item 7: an RTE that is not root runs playbooks as its own user
 * (docs/security.md), and measures a job's folder with du as that user. A playbook that
 * writes 20 MiB into a directory and then closes it (chmod 000) hides them from du: du
 * reports 8 KiB (and one unreadable entry, which watchDisk ignores), and the job passes an
 * 8 MiB RTE_JOB_DISK_LIMIT unnoticed. Run here as `nobody` (setpriv) when the tests run as root.
 * test/attack/attack4-du-hidden.ts.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";

it("fails a job whose bytes are in a directory it closed to its own user (chmod 000), the RTE running as that user", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "attack4-closed-"));
  fs.chmodSync(root, 0o755);
  const job = path.join(root, "job");
  fs.mkdirSync(path.join(job, "hidden"), { recursive: true });
  fs.writeFileSync(path.join(job, "hidden", "blob"), Buffer.alloc(20 * 1024 * 1024, 1));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync("chown", ["-R", "65534:65534", job]);
  fs.chmodSync(path.join(job, "hidden"), 0o000);
  try {
    const tsx = path.resolve(import.meta.dirname, "../../../node_modules/.bin/tsx");
    const script = path.resolve(import.meta.dirname, "../attack4-du-hidden.ts");
    const command = [tsx, script, job, String(8 * 1024 * 1024)];
    const out = asRoot
      ? execFileSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "env", "HOME=/tmp", ...command], { encoding: "utf8" })
      : execFileSync(command[0]!, command.slice(1), { encoding: "utf8" });
    expect(out.trim()).toMatch(/^exceeded/);
  } finally {
    fs.chmodSync(path.join(job, "hidden"), 0o755);
    fs.rmSync(root, { recursive: true, force: true });
  }
}, 60_000);
