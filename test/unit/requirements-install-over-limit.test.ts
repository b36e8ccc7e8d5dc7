/**
 * A requirements install stopped for its disk use (server/rte/requirements-install.ts,
 * SandboxedInstall.overLimit, which the job's install watch calls past
 * RTE_REQUIREMENTS_INSTALL_MAX_BYTES): its running command's process group ends, and the
 * install fails with that reason, not as a cancel (its waiters share a failure, never a
 * cancel). A real child process, without the sandbox: one that writes and then would run on.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { checkDisk, diskTaken } from "../../server/rte/disk-usage";
import { RequirementsInstallError, SandboxedInstall } from "../../server/rte/requirements-install";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

class Hung extends SandboxedInstall {
  start(): Promise<string[]> {
    return this.command("sh", ["-c", "head -c 3145728 /dev/urandom > big && echo $$ > pid && exec sleep 60"], "the install", true);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

it("ends the install's process group and fails it with the reason, what it wrote counted over the folder's own", async () => {
  const jobDir = fs.mkdtempSync(path.join(os.tmpdir(), "install-over-limit-"));
  dirs.push(jobDir);
  // The form's files: there before the install, not its to count.
  fs.writeFileSync(path.join(jobDir, "form-file"), Buffer.alloc(2 * 1024 * 1024, 1));
  const baseline = await diskTaken(jobDir);
  const install = new Hung({
    jobDir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    user: null,
    sandboxed: false,
    privateTmp: null,
    timeoutMs: 60_000,
    say: () => undefined,
  });
  const running = install.start();
  const pidFile = path.join(jobDir, "pid");
  for (const deadline = Date.now() + 10_000; !fs.existsSync(pidFile) || fs.readFileSync(pidFile, "utf8") === "";) {
    if (Date.now() > deadline) throw new Error("the install never started");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const pid = Number(fs.readFileSync(pidFile, "utf8"));
  const watch = {
    subject: "the install",
    setting: "RTE_REQUIREMENTS_INSTALL_MAX_BYTES",
    folder: jobDir,
    baseline,
    limit: 1024 * 1024,
    intervalSeconds: 1,
  };
  const reason = await checkDisk(watch);
  expect(reason).toMatch(
    /^the install used more than RTE_REQUIREMENTS_INSTALL_MAX_BYTES \(1 MiB\) of the runner's disk: 3\.\d MiB \(what it added to the job's folder and \/tmp 3\.\d MiB\)$/,
  );
  expect(await checkDisk({ ...watch, limit: 4 * 1024 * 1024 })).toBeNull();
  const started = Date.now();
  install.overLimit(reason!);
  await expect(running).rejects.toThrow(new RequirementsInstallError(reason!));
  // SIGTERM to the group: `sleep` ends at once, not after its 60 s.
  expect(Date.now() - started).toBeLessThan(5_000);
  expect(alive(pid)).toBe(false);
}, 30_000);
