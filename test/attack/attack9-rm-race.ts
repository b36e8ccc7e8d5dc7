/**
 * Attack 9: removeTree (server/rte/disk-usage.ts: fs.promises.rm, recursive, by path) of a job's
 * folder as root, while a process of the playbook user left by the job (RTE_SANDBOX=none: a
 * `setsid` child outlives the job, documented) swaps a folder of it for a link to a root-only
 * folder (attack9-rm-race.py). Counts the runs in which a file of the root-only folder was
 * removed. Usage: npx tsx test/attack/attack9-rm-race.ts [runs] (root, user playform-run).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { removeTree } from "../../server/rte/disk-usage";

const runs = Number(process.argv[2] ?? 500);
const passwd = fs.readFileSync("/etc/passwd", "utf8");
const match = /^playform-run:[^:]*:(\d+):(\d+):/m.exec(passwd);
if (!match || process.getuid?.() !== 0) throw new Error("needs root and the user playform-run");
const [uid, gid] = [Number(match[1]), Number(match[2])];
const scratch = fs.mkdtempSync(path.join("/var/tmp", "playform-attack9-rm-"));
fs.chmodSync(scratch, 0o755);
const victim = path.join(scratch, "root-only");
fs.mkdirSync(victim, { mode: 0o700 });
const job = path.join(scratch, "job");

let removed = 0;
let failed = 0;
const main = async () => {
  for (let run = 0; run < runs; run++) {
    for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(victim, `canary-${i}`), "root's\n");
    fs.rmSync(job, { recursive: true, force: true });
    fs.mkdirSync(path.join(job, "d"), { recursive: true });
    for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(job, "d", `canary-${i}`), "job's\n");
    fs.chownSync(job, uid, gid);
    fs.chownSync(path.join(job, "d"), uid, gid);
    const swapper = spawn(
      "setpriv",
      [
        `--reuid=${uid}`,
        `--regid=${gid}`,
        "--clear-groups",
        "/usr/bin/python3",
        path.join(import.meta.dirname, "attack9-rm-race.py"),
        job,
        victim,
        "5",
      ],
      { stdio: "ignore" },
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    try {
      await removeTree(job);
    } catch {
      failed++;
    }
    const exited = new Promise((resolve) => (swapper.exitCode !== null ? resolve(null) : swapper.once("exit", resolve)));
    swapper.kill("SIGKILL");
    await exited;
    const left = fs.readdirSync(victim).length;
    if (left < 20) removed++;
    if (run % 50 === 0) console.log(`run ${run}: runs with root's files removed ${removed}, removeTree failed ${failed}`);
  }
  console.log(`${runs} runs: root's files removed in ${removed}, removeTree failed in ${failed}`);
  fs.rmSync(scratch, { recursive: true, force: true });
};
main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
