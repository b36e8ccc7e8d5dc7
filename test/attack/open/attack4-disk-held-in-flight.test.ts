/**
 * Fourth attack on issue 34, item 7: a deleted file whose only reference is a descriptor in
 * flight on a Unix socket (sent with SCM_RIGHTS, never received; the sender closed its copy
 * and unlinked the file) keeps its blocks on the runner's disk, and appears neither in
 * /proc/PID/fd (the process holds the socket only) nor in /proc/PID/maps: deletedFilesHeld
 * counts 0 for it, so a job can hold any amount of disk past RTE_JOB_DISK_LIMIT.
 * test/attack/attack4-scm-rights.py.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { deletedFilesHeld } from "../../../server/rte/disk-usage";

it("counts a deleted file held only by a descriptor in flight on a Unix socket (SCM_RIGHTS)", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "attack4-scm-"));
  const script = path.resolve(import.meta.dirname, "../attack4-scm-rights.py");
  const child = spawn("python3", [script, path.join(dir, "held"), "16", "30"], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => d.toString().includes("ready") && resolve());
      child.on("exit", (code) => reject(new Error(`exited ${code}`)));
    });
    expect(fs.readdirSync(dir)).toEqual([]);
    const held = await deletedFilesHeld(child.pid!);
    expect(held).toBeGreaterThanOrEqual(16 * 1024 * 1024);
  } finally {
    child.kill("SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
