/**
 * What tests need to know about real processes on this machine, read from /proc: parents,
 * process groups, and whether a process still runs. A zombie (exited, not yet reaped, e.g. an
 * orphan whose new parent is a container's init that never reaps) counts as gone: it runs no
 * code and holds nothing but its process table entry.
 */
import fs from "node:fs";
import { processInfo } from "../../server/rte/process-group";

/** /proc/<pid>/stat as the RTE reads it (server/rte/process-group.ts); null when the process is gone. */
function readStat(pid: number): { zombie: boolean; ppid: number; pgrp: number } | null {
  const info = processInfo(pid);
  return info && { zombie: info.zombie, ppid: info.ppid, pgrp: info.pgid };
}

function allPids(): number[] {
  return fs
    .readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number);
}

/** True while the process exists and is not a zombie. */
export function isRunningProcess(pid: number): boolean {
  const stat = readStat(pid);
  return stat !== null && !stat.zombie;
}

/** The process group of a running process, or null when it is gone. */
export function processGroupOf(pid: number): number | null {
  const stat = readStat(pid);
  return stat && !stat.zombie ? stat.pgrp : null;
}

/** Running (non-zombie) members of a process group. */
export function processGroupMembers(pgid: number): number[] {
  return allPids().filter((pid) => {
    const stat = readStat(pid);
    return stat !== null && !stat.zombie && stat.pgrp === pgid;
  });
}

/** Direct children of a process (running or not yet reaped). */
export function childPids(parent: number): number[] {
  return allPids().filter((pid) => readStat(pid)?.ppid === parent);
}

/** Every descendant of a process, depth first. */
export function descendantPids(ancestor: number): number[] {
  const found: number[] = [];
  const visit = (pid: number) => {
    for (const child of childPids(pid)) {
      found.push(child);
      visit(child);
    }
  };
  visit(ancestor);
  return found;
}

/** The command line of a process ("" when it is gone). */
export function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "";
  }
}

/** SIGKILL to a whole process group; nothing when it is already gone. */
export function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // Already gone.
  }
}
