/**
 * Attack 9 on issue 34: without the sandbox, removing a job's folder as root follows a link a
 * leftover of the job swaps in, and removes files of a root-only folder.
 *
 * removeTree (server/rte/disk-usage.ts) is `fs.promises.rm(dir, {recursive: true})`: Node 20's
 * rimraf goes by path (lstat, rmdir, readdir, then lstat and unlink of `dir/sub/name` for each
 * name). With `RTE_SANDBOX=none` a process the playbook started with `setsid` outlives the job
 * (docs/security.md: not ended with the job) and keeps the job's user and group, so it may
 * rename things in the job's folder (root:<job group> 0770) while the RTE removes it after the
 * job (job-run.ts) or after an inventory listing (inventory-list.ts: any viewer of a form starts
 * one). It swaps a folder `d` of the job, which holds files named as those of a root-only folder,
 * for a link to that folder and back (attack9-rm-race.py, by path, no descriptor): each
 * `unlink(job/d/name)` that falls while `d` is the link removes the root-only folder's file.
 * Under bwrap no process of the job outlives it (its pid namespace ends).
 *
 * Seen with `npx tsx test/attack/attack9-rm-race.ts 200`: root's files removed in 7 of 200 runs
 * (and removeTree failed in 145 on the swap). This test: the job folder root:<the playbook
 * user's group> 0770 as the RTE hands it over, the swapper as playform-run with that group.
 * Needs root and the user playform-run (skipped otherwise). Failed before the fix (8 of 300).
 * Fixed: removeTree removes through descriptors (folders opened O_DIRECTORY|O_NOFOLLOW through
 * their parent's, unlink and rmdir under `/proc/self/fd/N/`), never by a path the swapper changes.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { removeTree } from "../../server/rte/disk-usage";

const SWAPPER = path.resolve(import.meta.dirname, "../attack/attack9-rm-race.py");
const RUNS = 300;
const FILES = 20;
const passwd = fs.readFileSync("/etc/passwd", "utf8");
const match = /^playform-run:[^:]*:(\d+):(\d+):/m.exec(passwd);
const root = process.getuid?.() === 0 && match !== null;
const [uid, gid] = match ? [Number(match[1]), Number(match[2])] : [NaN, NaN];
const scratch = fs.mkdtempSync(path.join("/var/tmp", "playform-attack9-rm-"));

afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

it.skipIf(!root)(
  "removing a job's folder never removes a file outside it, whatever a leftover of the job renames",
  async () => {
    fs.chmodSync(scratch, 0o755);
    const rootOnly = path.join(scratch, "root-only");
    fs.mkdirSync(rootOnly, { mode: 0o700 });
    const job = path.join(scratch, "job");
    let removedIn = 0;
    for (let run = 0; run < RUNS; run++) {
      for (let i = 0; i < FILES; i++) fs.writeFileSync(path.join(rootOnly, `f${i}`), "root's\n", { mode: 0o600 });
      fs.rmSync(job, { recursive: true, force: true });
      fs.mkdirSync(path.join(job, "d"), { recursive: true });
      for (let i = 0; i < FILES; i++) fs.writeFileSync(path.join(job, "d", `f${i}`), "the job's\n");
      // As handOver leaves a job's folder: the RTE's, open to the job's group.
      fs.chownSync(job, 0, gid);
      fs.chmodSync(job, 0o770);
      fs.chownSync(path.join(job, "d"), uid, gid);
      const swapper = spawn(
        "setpriv",
        [`--reuid=${uid}`, `--regid=${gid}`, "--clear-groups", "/usr/bin/python3", SWAPPER, job, rootOnly, "5"],
        { stdio: "ignore" },
      );
      const exited = new Promise((resolve) => swapper.once("exit", resolve));
      // The swapper's Python has started and is swapping.
      await new Promise((resolve) => setTimeout(resolve, 100));
      await removeTree(job).catch(() => undefined);
      swapper.kill("SIGKILL");
      await exited;
      if (fs.readdirSync(rootOnly).length < FILES) removedIn++;
    }
    expect(removedIn, `runs in which a file of the root-only folder was removed, of ${RUNS}`).toBe(0);
  },
  300_000,
);
