/**
 * Ends what a requirements install left running, before its folder is taken into the cache.
 *
 * Each install command's process group ends with it (requirements-install.ts), and under
 * bubblewrap everything of the install dies with its pid namespace. Without the sandbox
 * (RTE_SANDBOX=none, or no working bwrap) a process that left the group (setsid: a package's
 * build backend, a role's hook) outlives the install: it could hold a descriptor on a file it
 * installed and write through it once the RTE has sealed the entry (attack 7). The cache copies
 * every install (RequirementsCache.store: the descriptor stays on the job's old file); this ends the
 * writers too, so nothing of the install runs while its tree is read and copied.
 *
 * Which processes: those whose environment carries the job's run id (PLAYFORM_RUN_ID, inherited by
 * all the install started; the playbook has not started yet), and those of the install's user
 * whose working folder, root or an open descriptor lies in the job's folder (a process may clear
 * its environment). Never the RTE itself. Another job's processes of the same user have their own
 * folder and run id. A process that cleared its environment and holds nothing in the job folder
 * is not found: it can only reach the job's folder by path, which the copy leaves behind.
 */
import fs from "node:fs";
import path from "node:path";
import { RUN_ID_VARIABLE } from "./leftovers";
import { RequirementsInstallError } from "./requirements-install";

/** Rounds of look-and-kill: a process found may have forked meanwhile. */
const ROUNDS = 20;
const ROUND_PAUSE_MS = 50;

/** Whether `target` (a /proc link's text) names the job folder or something inside it. */
function inside(target: string, folder: string): boolean {
  return target === folder || target.startsWith(`${folder}/`);
}

function readLink(link: string): string {
  try {
    return fs.readlinkSync(link);
  } catch {
    return "";
  }
}

/** The pids of the install's processes still running (see the header); [] without /proc. */
export function installProcesses(jobDir: string, runId: string, uid: number): number[] {
  const folder = path.resolve(jobDir);
  const marker = `${RUN_ID_VARIABLE}=${runId}\0`;
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const proc = `/proc/${entry}`;
    let owner: number;
    try {
      owner = fs.statSync(proc).uid;
    } catch {
      continue;
    }
    let environ = "";
    try {
      environ = fs.readFileSync(`${proc}/environ`, "latin1");
    } catch {
      // Gone, or not ours to read.
    }
    if (environ.includes(marker)) {
      found.push(pid);
      continue;
    }
    if (owner !== uid) continue;
    if (inside(readLink(`${proc}/cwd`), folder) || inside(readLink(`${proc}/root`), folder)) {
      found.push(pid);
      continue;
    }
    let fds: string[] = [];
    try {
      fds = fs.readdirSync(`${proc}/fd`);
    } catch {
      // Gone.
    }
    if (fds.some((fd) => inside(readLink(`${proc}/fd/${fd}`), folder))) found.push(pid);
  }
  return found;
}

/**
 * SIGKILLs the install's leftover processes (installProcesses) until none is found; returns how
 * many were ended. Throws when some are still found after every round (the install then fails:
 * its tree is not taken in while something of it may still write).
 */
export async function endInstallLeftovers(jobDir: string, runId: string, uid: number): Promise<number> {
  let ended = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const pids = installProcesses(jobDir, runId, uid);
    if (pids.length === 0) return ended;
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
        ended += 1;
      } catch {
        // Gone already.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, ROUND_PAUSE_MS));
  }
  const left = installProcesses(jobDir, runId, uid);
  if (left.length === 0) return ended;
  throw new RequirementsInstallError(`processes left by the requirements install did not end: ${left.join(", ")}`);
}
