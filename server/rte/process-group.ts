/**
 * A playbook's process group, and the end of it.
 *
 * ansible-playbook runs detached, leading its own process group, and everything it starts
 * (workers, ssh, modules, what a `shell` task leaves in the background) is in that group unless
 * it leaves on purpose (setsid: `async` tasks, daemons). The RTE ends the group, not the leader:
 * the leader exiting says nothing about its children, which may ignore SIGTERM or have been
 * started in the background of a successful task.
 *
 * Liveness is asked of the group (kill(-pgid, 0)), then, where /proc exists, refined: a group
 * whose only members are zombies is gone. Zombies matter when the RTE is PID 1 of a container
 * (orphans are re-parented to it and Node never reaps them); they hold no resources and cannot
 * be killed anyway.
 */
import fs from "node:fs";

export interface ProcessInfo {
  pid: number;
  /** The parent's pid (field 4). */
  ppid: number;
  pgid: number;
  /** Start time in clock ticks since boot (/proc/<pid>/stat field 22): with the boot id, identifies a process across pid reuse. */
  startTime: string;
  zombie: boolean;
}

const HAS_PROC = fs.existsSync("/proc/self/stat");

/** /proc/<pid>/stat, or null when the process is gone or /proc is missing. */
export function processInfo(pid: number): ProcessInfo | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may itself contain spaces or ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (state), fields[1] field 4 (ppid), fields[2] field 5 (pgrp), fields[19] field 22 (starttime).
  const state = fields[0] ?? "";
  return { pid, ppid: Number(fields[1]), pgid: Number(fields[2]), startTime: fields[19] ?? "", zombie: state === "Z" || state === "X" };
}

/** This boot's id: start times are only comparable within one boot. */
export function bootId(): string | null {
  try {
    return fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    return null;
  }
}

/** Living (non-zombie) members of a process group, or null when /proc is not available. */
export function groupMembers(pgid: number): number[] | null {
  if (!HAS_PROC) return null;
  const members: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (entry.charCodeAt(0) > 57) continue; // not a pid: "self", "sys", ...
    const info = processInfo(Number(entry));
    if (info && info.pgid === pgid && !info.zombie) members.push(info.pid);
  }
  return members;
}

/** Whether anything of the group still lives. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    // EPERM: members exist that this user may not signal (a setuid helper); they are alive.
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
  }
  const members = groupMembers(pgid);
  return members === null || members.length > 0;
}

export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // Gone already, or nothing in it this user may signal: the liveness check tells.
  }
}

const POLL_MS = 50;
/** After SIGKILL, how long the kernel gets to tear the group down before we report it stuck. */
const AFTER_KILL_MS = 5_000;

/** Whether the group ends within `ms` (polled every POLL_MS), without being signalled. */
export async function goneWithin(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!groupAlive(pgid)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

export interface TerminateResult {
  /** Nothing of the group lives any more. */
  gone: boolean;
  /** Members alive when it started (empty when the group was already gone or /proc is missing). */
  found: number[];
  /** SIGKILL was needed. */
  killed: boolean;
}

/**
 * SIGTERM to the group, then SIGKILL to the group once `graceMs` have passed with anything of
 * it still alive; resolves when the group is gone (or, if even SIGKILL cannot end it, after a
 * few more seconds, with gone: false).
 */
export async function terminateGroup(pgid: number, graceMs: number): Promise<TerminateResult> {
  if (!groupAlive(pgid)) return { gone: true, found: [], killed: false };
  const found = groupMembers(pgid) ?? [];
  signalGroup(pgid, "SIGTERM");
  if (await goneWithin(pgid, graceMs)) return { gone: true, found, killed: false };
  signalGroup(pgid, "SIGKILL");
  return { gone: await goneWithin(pgid, AFTER_KILL_MS), found, killed: true };
}

/**
 * Lowers the CPU priority of a process's session's autogroup by `nice` below the RTE's own,
 * where the kernel groups sessions (Linux with /proc/sys/kernel/sched_autogroup_enabled = 1,
 * processes in the root CPU cgroup): there the CPU is first shared between sessions, and a
 * process's own niceness only weighs against the other processes of its session. A playbook
 * leads a session of its own (detached), so without this a niced playbook still gets as much
 * CPU as the whole RTE. The autogroup is the session's: everything the playbook has started or
 * will start shares it, so when this happens does not matter.
 *
 * Resolves with null when done or not applicable (no autogroups, the process gone), else with
 * why it failed. Without CAP_SYS_ADMIN the kernel allows one autogroup change per 100 ms on the
 * whole machine (EAGAIN): retried for a while.
 */
export async function setAutogroupNice(pid: number, nice: number): Promise<string | null> {
  if (nice === 0 || !autogroupsEnabled()) return null;
  const target = Math.min(19, (autogroupNice(process.pid) ?? 0) + nice);
  const startTime = processInfo(pid)?.startTime;
  const deadline = Date.now() + AUTOGROUP_RETRY_MS;
  for (;;) {
    // Retries are later: the pid must still be the playbook's, not a new process's.
    if (startTime === undefined || processInfo(pid)?.startTime !== startTime) return null;
    try {
      fs.writeFileSync(`/proc/${pid}/autogroup`, String(target));
      return null;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ESRCH") return null;
      if (code !== "EAGAIN" || Date.now() >= deadline) return code ?? String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 100));
  }
}

const AUTOGROUP_RETRY_MS = 10_000;

function autogroupsEnabled(): boolean {
  try {
    return fs.readFileSync("/proc/sys/kernel/sched_autogroup_enabled", "utf8").trim() === "1";
  } catch {
    return false;
  }
}

/** The niceness of a process's autogroup ("/autogroup-42 nice 5"), or null. */
export function autogroupNice(pid: number): number | null {
  try {
    const match = / nice (-?\d+)/.exec(fs.readFileSync(`/proc/${pid}/autogroup`, "utf8"));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}
