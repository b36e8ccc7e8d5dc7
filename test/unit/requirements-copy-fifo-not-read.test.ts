/**
 * Attack 8 on issue 34: without the sandbox, copyTree (server/rte/requirements-cache.ts,
 * ObtainOptions.copy) filters FIFOs out by an lstat, then cpSync lstats the path again and calls
 * copyFileSync, which opens it following links. A process of the install's user that the
 * leftover search does not find (environment cleared, cwd `/`, nothing kept open in the job
 * folder) swaps an installed file between a regular file and a symbolic link to a FIFO of its
 * own: when the swap falls between the lstat and the open, copyFileSync waits for a writer that
 * never comes. It is synchronous, in the RTE's only thread: every job of the runner, its
 * heartbeats and its link to the app stop with it, for good.
 *
 * Fixed: copyTree (now server/rte/copy-tree.ts) is asynchronous and opens files
 * O_NOFOLLOW|O_NONBLOCK, reading only a regular file (fstat of the descriptor). This test on the
 * code before the fix: stopped at copy 194, not done after 120 s.
 *
 * Seen on the code of the attack: the copy loop (attack8-copy-loop.ts, copyTree of a one-file tree, as
 * root, the swapper as playform-run) stopped at copy 561, 2.7 s in (a first try), and at copy 6 in
 * this test (not done after 120 s). Needs root and the user playform-run (skipped otherwise).
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";

const ATTACK = path.resolve(import.meta.dirname, "../attack");
const COPIES = 5000;
const passwd = fs.readFileSync("/etc/passwd", "utf8");
const user = Number(/^playform-run:[^:]*:(\d+):/m.exec(passwd)?.[1] ?? NaN);
const root = process.getuid?.() === 0 && Number.isInteger(user);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack8-fifo-"));

afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

it.skipIf(!root)(
  "a leftover swapping an installed file for a link to a FIFO does not stop the copy",
  async () => {
    fs.chmodSync(scratch, 0o755);
    const job = path.join(scratch, "job");
    const tree = path.join(job, "venv");
    fs.mkdirSync(tree, { recursive: true });
    fs.chownSync(job, user, user);
    fs.chownSync(tree, user, user);
    const fifo = path.join(job, "fifo");
    execFileSync("mkfifo", [fifo]);
    fs.chownSync(fifo, user, user);
    const swapper = spawn("/usr/bin/python3", [path.join(ATTACK, "attack8-copy-race.py"), tree, fifo, "1"], {
      uid: user,
      gid: user,
      env: {} as NodeJS.ProcessEnv,
      cwd: "/",
      detached: true,
      stdio: "ignore",
    });
    const copier = spawn(process.execPath, ["--import", "tsx", path.join(ATTACK, "attack8-copy-loop.ts"), tree, scratch, String(COPIES)], {
      detached: true,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let last = "";
    copier.stdout.on("data", (data: Buffer) => {
      last = data.toString("utf8").trim().split("\n").at(-1) ?? last;
    });
    try {
      const ended = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 120_000);
        copier.on("exit", () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      expect({ ended, last }).toEqual({ ended: true, last: "done" });
    } finally {
      for (const child of [copier, swapper]) {
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          // Gone.
        }
      }
    }
  },
  180_000,
);
