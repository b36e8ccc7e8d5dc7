/**
 * Attack 8 on issue 34: without the sandbox, the copy that takes an install's tree into the cache
 * (copyTree, server/rte/requirements-cache.ts; ObtainOptions.copy) reads the tree by path as the
 * RTE's user (root). A process of the install's user that the leftover search does not find
 * (installProcesses, server/rte/install-leftovers.ts: its environment cleared, so no run id; cwd
 * `/`; no descriptor kept in the job folder: it works by path with rename() only) swaps an
 * installed file between a regular file and a symbolic link to a file only root may read. When
 * the swap falls between cpSync's lstat (a regular file) and its copyFileSync (which follows the
 * link), the copy holds the root-only file's bytes as a regular file; seal() then makes it the
 * RTE's, 0644: readable by every playbook that uses the entry. docs/security.md says such a
 * process "can reach the job's old tree only, not the entry".
 *
 * Fixed: copyTree (now server/rte/copy-tree.ts) opens each file O_NOFOLLOW|O_NONBLOCK and reads
 * only what fstat of that descriptor says is a regular file; folders through their descriptors.
 * This test on the code before the fix: 71 of 3,000 copies held the root-only bytes.
 *
 * Seen on the code of the attack (`npx tsx test/attack/attack8-copy-race.ts`, root, the swapper as
 * playform-run, uid 999): the swapper is not found by installProcesses; 6 of 2,000 copies of a
 * one-file tree and 5 of 1,000 of a four-file tree held the root-only file's bytes as a regular
 * file (and 4 and 13 copies failed on the swap: ENOENT/EINVAL, the install then fails).
 * Needs root and the user playform-run (skipped otherwise).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { installProcesses } from "../../server/rte/install-leftovers";
import { copyTree } from "../../server/rte/copy-tree";

const SWAPPER = path.resolve(import.meta.dirname, "../attack/attack8-copy-race.py");
const COPIES = 3000;
const passwd = fs.readFileSync("/etc/passwd", "utf8");
const user = Number(/^playform-run:[^:]*:(\d+):/m.exec(passwd)?.[1] ?? NaN);
const root = process.getuid?.() === 0 && Number.isInteger(user);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack8-race-"));

afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

it.skipIf(!root)(
  "a leftover swapping an installed file for a link to a root-only file never gets that file's bytes into the copy",
  async () => {
    fs.chmodSync(scratch, 0o755);
    const secret = path.join(scratch, "root-only");
    fs.writeFileSync(secret, "runner-secret-bytes", { mode: 0o600 });
    const job = path.join(scratch, "job");
    const tree = path.join(job, "venv");
    fs.mkdirSync(tree, { recursive: true });
    fs.chownSync(job, user, user);
    fs.chownSync(tree, user, user);
    const swapper = spawn("/usr/bin/python3", [SWAPPER, tree, secret, "1"], {
      uid: user,
      gid: user,
      env: {} as NodeJS.ProcessEnv,
      cwd: "/",
      detached: true,
      stdio: "ignore",
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const found = installProcesses(job, "the-install-run-id", user).includes(swapper.pid!);
      let stolen = 0;
      let failed = 0;
      for (let i = 0; i < COPIES; i++) {
        const to = path.join(scratch, `copy-${i}`);
        try {
          await copyTree(tree, to);
          const file = path.join(to, "f000.txt");
          if (fs.lstatSync(file).isFile() && fs.readFileSync(file, "utf8") === "runner-secret-bytes") stolen++;
        } catch {
          failed++;
        }
        fs.rmSync(to, { recursive: true, force: true });
      }
      expect({ found, stolen, failed }).toEqual({ found: expect.any(Boolean), stolen: 0, failed: expect.any(Number) });
    } finally {
      process.kill(-swapper.pid!, "SIGKILL");
    }
  },
  300_000,
);
