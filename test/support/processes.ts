/**
 * What tests need to know about real processes on this machine, read from /proc: parents,
 * process groups, and whether a process still runs. A zombie (exited, not yet reaped, e.g. an
 * orphan whose new parent is a container's init that never reaps) counts as gone: it runs no
 * code and holds nothing but its process table entry.
 */
import fs from "node:fs";

interface ProcStat {
  state: string;
  ppid: number;
  pgrp: number;
}

function readStat(pid: number): ProcStat | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // The fields after the command name, which is in parentheses and may contain spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0]!, ppid: Number(fields[1]), pgrp: Number(fields[2]) };
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
  return stat !== null && stat.state !== "Z";
}

/** The process group of a running process, or null when it is gone. */
export function processGroupOf(pid: number): number | null {
  const stat = readStat(pid);
  return stat && stat.state !== "Z" ? stat.pgrp : null;
}

/** Running (non-zombie) members of a process group. */
export function processGroupMembers(pgid: number): number[] {
  return allPids().filter((pid) => {
    const stat = readStat(pid);
    return stat !== null && stat.state !== "Z" && stat.pgrp === pgid;
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
