/**
 * Cleaning up after an RTE process that died: recorded process groups are ended only while
 * they are still the job's (a reused pid is left alone), every job folder goes (RTE_JOBS_DIR,
 * and the work dir's where older versions kept them) with every hidden extravars file, but what
 * a form asked to keep and the file cache stay.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadRteEnv, type RteEnv } from "../../server/rte/env";
import { RUN_ID_VARIABLE, RunningJobs, cleanUpAfterPreviousRun, recordedGroup, type RunningRecord } from "../../server/rte/leftovers";
import { bootId, groupMembers, processInfo } from "../../server/rte/process-group";

let dir: string;
let env: RteEnv;
let logs: string[];
const groups: number[] = [];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-leftovers-"));
  env = loadRteEnv({
    RTE_WORK_DIR: path.join(dir, "work"),
    RTE_SPOOL_PATH: path.join(dir, "spool"),
    RTE_JOBS_DIR: path.join(dir, "jobs"),
    RTE_KILL_GRACE_SECONDS: "1",
  });
  logs = [];
});
afterEach(() => {
  for (const group of groups.splice(0)) {
    try {
      process.kill(-group, "SIGKILL");
    } catch {
      // Gone.
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A detached shell leading its own group, with a child in the background; both sleep. */
function group(extraEnv: Record<string, string> = {}): ChildProcess {
  const child = spawn("sh", ["-c", "sleep 60 & wait"], { detached: true, stdio: "ignore", env: { ...process.env, ...extraEnv } });
  groups.push(child.pid!);
  return child;
}

async function membersOf(pgid: number, count: number): Promise<number[]> {
  for (let i = 0; i < 100; i++) {
    const members = groupMembers(pgid)!;
    if (members.length >= count) return members;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`group ${pgid} never had ${count} members`);
}

const record = (overrides: Partial<RunningRecord>): RunningRecord => ({
  jobId: 1,
  runId: "run-1",
  keepExtravars: false,
  pgid: null,
  leaderStartTime: null,
  bootId: bootId(),
  ...overrides,
});

describe("recordedGroup", () => {
  it("is the job's when its leader is the recorded process (same start time)", async () => {
    const leader = group();
    await membersOf(leader.pid!, 2);
    const verdict = recordedGroup(record({ pgid: leader.pid!, leaderStartTime: processInfo(leader.pid!)!.startTime }));
    expect(verdict.ours).toBe(true);
  });

  it("is not when the pid was reused (another start time, no run id): such a group is left alone", async () => {
    const unrelated = group();
    await membersOf(unrelated.pid!, 2);
    expect(recordedGroup(record({ pgid: unrelated.pid!, leaderStartTime: "1" }))).toEqual({
      ours: false,
      why: `process group ${unrelated.pid} now belongs to other processes: left alone`,
    });
  });

  it("is the job's when the leader is gone but a member carries the job's run id", async () => {
    const leader = group({ [RUN_ID_VARIABLE]: "run-77" });
    const members = await membersOf(leader.pid!, 2);
    process.kill(leader.pid!, "SIGKILL");
    await new Promise((resolve) => leader.once("exit", resolve));
    expect(groupMembers(leader.pid!)).toEqual(members.filter((pid) => pid !== leader.pid));
    expect(recordedGroup(record({ pgid: leader.pid!, leaderStartTime: "1", runId: "run-77" })).ours).toBe(true);
    expect(recordedGroup(record({ pgid: leader.pid!, leaderStartTime: "1", runId: "run-78" })).ours).toBe(false);
  });

  it("is gone after a reboot, or when nothing of it lives", () => {
    expect(recordedGroup(record({ pgid: 123456, bootId: "another-boot" }))).toEqual({ ours: false, why: "the machine rebooted since" });
    expect(recordedGroup(record({ pgid: 2 ** 22 + 1 }))).toEqual({ ours: false, why: "it is gone" });
    expect(recordedGroup(record({ pgid: null }))).toEqual({ ours: false, why: "its playbook had not started" });
  });
});

describe("cleanUpAfterPreviousRun", () => {
  it("ends the recorded groups that are the jobs', spares a reused one, and removes what the jobs left", async () => {
    const ours = group({ [RUN_ID_VARIABLE]: "run-1" });
    const unrelated = group();
    const ourMembers = await membersOf(ours.pid!, 2);
    const unrelatedMembers = await membersOf(unrelated.pid!, 2);

    const work = env.workDir;
    const running = new RunningJobs(path.join(work, "running"));
    running.record(record({ jobId: 1, pgid: ours.pid!, leaderStartTime: processInfo(ours.pid!)!.startTime }));
    running.record(record({ jobId: 2, runId: "run-2", pgid: unrelated.pid!, leaderStartTime: "1" }));
    running.record(record({ jobId: 3, runId: "run-3", keepExtravars: true }));
    fs.mkdirSync(path.join(env.jobsDir, "1", "roles"), { recursive: true });
    fs.writeFileSync(path.join(env.jobsDir, "1", ".playform_ssh_key_1"), "KEY");
    fs.writeFileSync(path.join(env.jobsDir, "1", ".playform_hidden_extravars_1.json"), '{"pw":"secret"}');
    fs.mkdirSync(path.join(env.jobsDir, "9"), { recursive: true });
    fs.writeFileSync(path.join(env.jobsDir, "rte.lock"), "{}"); // the lock of the RTE cleaning up
    fs.mkdirSync(path.join(work, "jobs", "7"), { recursive: true }); // where older versions kept job folders
    fs.mkdirSync(path.join(work, "extravars"), { recursive: true });
    for (const id of [1, 2, 3]) {
      fs.writeFileSync(path.join(work, "extravars", `.extravars_${id}_hidden.json`), '{"pw":"secret"}');
      fs.writeFileSync(path.join(work, "extravars", `extravars_${id}.json`), "{}");
    }
    fs.writeFileSync(path.join(work, "extravars", "extravars_8.json"), "{}"); // kept by a finished job's form
    fs.mkdirSync(env.cacheDir, { recursive: true });
    fs.writeFileSync(path.join(env.cacheDir, "a".repeat(64)), "cached");
    fs.writeFileSync(path.join(env.cacheDir, `${"b".repeat(64)}.123.tmp`), "half");

    await cleanUpAfterPreviousRun(env, (line) => logs.push(line));

    for (const pid of ourMembers) expect(processInfo(pid)?.zombie ?? true).toBe(true);
    expect(groupMembers(ours.pid!)).toEqual([]);
    expect(groupMembers(unrelated.pid!)!.sort()).toEqual(unrelatedMembers.sort());
    expect(fs.readdirSync(env.jobsDir)).toEqual(["rte.lock"]);
    expect(fs.readdirSync(path.join(work, "jobs"))).toEqual([]);
    expect(fs.readdirSync(path.join(work, "extravars")).sort()).toEqual(["extravars_3.json", "extravars_8.json"]);
    expect(fs.readdirSync(env.cacheDir)).toEqual(["a".repeat(64)]);
    expect(fs.readdirSync(path.join(work, "running"))).toEqual([]);
    expect(logs.join("\n")).toMatch(/job 1 was running when this RTE last stopped and its playbook still runs/);
    expect(logs.join("\n")).toMatch(new RegExp(`job 2 .*process group ${unrelated.pid} now belongs to other processes: left alone`));
    for (const folder of [work, path.join(work, "extravars"), env.cacheDir]) {
      expect(fs.statSync(folder).mode & 0o777).toBe(0o700);
    }
  });
});
