/**
 * What an RTE that died without cleaning up (kill -9, OOM, a node crash) leaves behind, and
 * how the next start ends it.
 *
 * While a job runs, the RTE keeps a small record in <work>/running/<job>.json: written before
 * the job's files are laid out, completed with the playbook's process group right after the
 * spawn, removed once the group is gone and the files are. At start, under the lock (so no
 * living RTE uses this work dir), the RTE ends every recorded group that is still the one it
 * recorded, then removes every job folder (RTE_JOBS_DIR; each holds its job's extravars and ssh
 * key), the extravars files older versions kept in the work dir (unless the form keeps them),
 * half-written cache files and the records. The spool is left alone: what it holds is still
 * delivered.
 *
 * "Still the one it recorded": a pid, hence a process group id, can be reused once the group
 * is gone. A group is only signalled when one of its living members is the recorded leader
 * (same pid, same start time, same boot) or carries the job's run id in its environment
 * (PLAYFORM_RUN_ID, inherited by everything the playbook starts).
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { RteEnv } from "./env";
import { LOCK_FILE } from "./instance-lock";
import { PRIVATE_FILE_MODE, ensurePrivateDir } from "./private-fs";
import { bootId, groupMembers, processInfo, terminateGroup } from "./process-group";

/** Inherited by every process of a job's playbook: how a later start recognises them. */
export const RUN_ID_VARIABLE = "PLAYFORM_RUN_ID";

export interface RunningRecord {
  jobId: number;
  runId: string;
  keepExtravars: boolean;
  /** The playbook's process group (its leader's pid); null until it is spawned. */
  pgid: number | null;
  leaderStartTime: string | null;
  bootId: string | null;
}

export function newRunId(): string {
  return randomBytes(16).toString("hex");
}

/** The records of the jobs running on this RTE, one small file each. */
export class RunningJobs {
  constructor(private readonly dir: string) {
    ensurePrivateDir(dir);
  }

  /** Written durably (temp file, fsync, rename) before the step it protects goes ahead. */
  record(record: RunningRecord): void {
    const file = this.file(record.jobId);
    const temp = `${file}.tmp`;
    const fd = fs.openSync(temp, "w", PRIVATE_FILE_MODE);
    try {
      fs.writeSync(fd, JSON.stringify(record));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
  }

  forget(jobId: number): void {
    fs.rmSync(this.file(jobId), { force: true });
  }

  list(): RunningRecord[] {
    const records: RunningRecord[] = [];
    for (const entry of fs.readdirSync(this.dir)) {
      if (!/^\d+\.json$/.test(entry)) continue;
      try {
        records.push(JSON.parse(fs.readFileSync(path.join(this.dir, entry), "utf8")) as RunningRecord);
      } catch {
        // Torn by the crash: the job had not started its playbook yet (the record is written
        // whole, by rename, before the spawn), so there is no group to end.
      }
    }
    return records;
  }

  clear(): void {
    for (const entry of fs.readdirSync(this.dir)) fs.rmSync(path.join(this.dir, entry), { force: true });
  }

  private file(jobId: number): string {
    return path.join(this.dir, `${jobId}.json`);
  }
}

function environOf(pid: number): string | null {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, "latin1");
  } catch {
    return null;
  }
}

export type GroupVerdict = { ours: true; members: number[] } | { ours: false; why: string };

/** Whether the recorded group still exists and is the one the record describes. */
export function recordedGroup(record: RunningRecord): GroupVerdict {
  if (record.pgid === null) return { ours: false, why: "its playbook had not started" };
  const boot = bootId();
  if (record.bootId && boot && record.bootId !== boot) return { ours: false, why: "the machine rebooted since" };
  const members = groupMembers(record.pgid);
  if (members === null) return { ours: false, why: "this system has no /proc to tell whether the group is still the job's: left alone" };
  if (members.length === 0) return { ours: false, why: "it is gone" };
  const marker = `${RUN_ID_VARIABLE}=${record.runId}\0`;
  const ours = members.some(
    (pid) =>
      (pid === record.pgid && record.leaderStartTime !== null && processInfo(pid)?.startTime === record.leaderStartTime) ||
      (environOf(pid)?.includes(marker) ?? false),
  );
  return ours ? { ours: true, members } : { ours: false, why: `process group ${record.pgid} now belongs to other processes: left alone` };
}

/**
 * Ends what a previous RTE process on this work dir left running and removes what it left on
 * disk. Call it holding the work dir's lock, before accepting jobs.
 */
export async function cleanUpAfterPreviousRun(env: RteEnv, log: (message: string) => void): Promise<void> {
  const running = new RunningJobs(path.join(env.workDir, "running"));
  const records = running.list();
  await Promise.all(
    records.map(async (record) => {
      const verdict = recordedGroup(record);
      if (!verdict.ours) {
        log(`job ${record.jobId} was running when this RTE last stopped; its process group: ${verdict.why}`);
        return;
      }
      log(
        `job ${record.jobId} was running when this RTE last stopped and its playbook still runs ` +
          `(process group ${record.pgid}, ${verdict.members.length} process(es)): ending it`,
      );
      const { gone, killed } = await terminateGroup(record.pgid!, env.RTE_KILL_GRACE_SECONDS * 1000);
      log(
        `job ${record.jobId}: process group ${record.pgid} ${gone ? "ended" : "still alive after SIGKILL"}` +
          (killed ? ` (SIGKILL after ${env.RTE_KILL_GRACE_SECONDS}s)` : ""),
      );
    }),
  );

  const removed: string[] = [];
  const remove = (target: string) => {
    if (!fs.existsSync(target)) return;
    fs.rmSync(target, { recursive: true, force: true });
    removed.push(target.startsWith(env.workDir + path.sep) ? path.relative(env.workDir, target) : target);
  };
  // Where job folders were before RTE_JOBS_DIR (an RTE upgraded after a crash still has them).
  const oldJobsDir = path.join(env.workDir, "jobs");
  const extravarsDir = path.join(env.workDir, "extravars");
  for (const dir of [extravarsDir, env.cacheDir]) ensurePrivateDir(dir);
  // Job folders hold the playbook's files, its extravars and the ssh key; every one left is a
  // dead job's (the jobs folder is this RTE's alone: it holds its lock). The requirements cache is
  // kept (its own start removes its half-done installs: requirements-cache.ts).
  if (fs.existsSync(env.jobsDir)) {
    const requirements = path.relative(env.jobsDir, env.requirementsDir);
    for (const entry of fs.readdirSync(env.jobsDir))
      if (entry !== LOCK_FILE && entry !== requirements) remove(path.join(env.jobsDir, entry));
  }
  if (fs.existsSync(oldJobsDir)) {
    for (const entry of fs.readdirSync(oldJobsDir)) remove(path.join(oldJobsDir, entry));
  }
  // Hidden extravars files (kept here by older versions) hold passwords and secret variables:
  // none may outlive its job.
  for (const entry of fs.readdirSync(extravarsDir))
    if (/^\.extravars_\d+_hidden\.json$/.test(entry)) remove(path.join(extravarsDir, entry));
  for (const record of records) if (!record.keepExtravars) remove(path.join(extravarsDir, `extravars_${record.jobId}.json`));
  // A cache file being written when the RTE died (the complete ones are kept).
  for (const entry of fs.readdirSync(env.cacheDir)) if (entry.endsWith(".tmp")) remove(path.join(env.cacheDir, entry));
  running.clear();
  if (removed.length > 0) log(`removed what the previous RTE process left in ${env.workDir} and ${env.jobsDir}: ${removed.join(", ")}`);
}
