/**
 * Builds ansible-playbook log text with the real geometry of the default callback and of
 * ansible.posix.profile_tasks (79 display columns), so targeted tests read like real logs.
 */
import type { HostCounter } from "../../../server/recap/types";

const COLUMNS = 79;

/** `TASK [name] ****…` as display.banner prints it: 80 characters wide, at least 3 stars. */
export function banner(head: string): string {
  const msg = `${head} `;
  return msg + "*".repeat(Math.max(3, COLUMNS + 1 - msg.length));
}

/** profile_tasks' per-task / summary timestamp line, e.g. cumulative `0:00:07.562`. */
export function stamp(cumulative: string, delta = "0:00:00.100"): string {
  const msg = `Monday 30 November 2026  06:37:35 +0000 (${delta})       ${cumulative} `;
  return `${msg}${"*".repeat(Math.max(3, COLUMNS - msg.length))} `;
}

/** `{0:-<70}{1:->9}` as profile_tasks formats an entry. */
export function entry(name: string, seconds: number): string {
  return `${name} `.padEnd(COLUMNS - 9, "-") + ` ${seconds.toFixed(2)}s`.padStart(9, "-");
}

/** The -vv path line printed after an entry: `path:line ` padded with dashes to the width. */
export function pathLine(path: string): string {
  return `${path} `.padEnd(COLUMNS, "-");
}

export function summary(cumulative: string, lines: string[], opts: { posix2?: boolean } = {}): string[] {
  const head = opts.posix2 ? ["", banner("TASKS RECAP")] : [];
  return [...head, stamp(cumulative), `${"=".repeat(79)} `, ...lines];
}

export function recapRow(host: string, counts: Partial<Record<HostCounter, number>> = {}): string {
  const c = { ok: 0, changed: 0, unreachable: 0, failed: 0, skipped: 0, rescued: 0, ignored: 0, ...counts };
  const cell = (k: HostCounter): string => `${k}=${c[k]}`.padEnd(k === "ok" ? 7 : k.length + 5, " ");
  const keys: HostCounter[] = ["ok", "changed", "unreachable", "failed", "skipped", "rescued", "ignored"];
  return `${host.padEnd(26)} : ${keys.map(cell).join(" ")}`;
}

export function playRecap(rows: string[]): string[] {
  return [banner("PLAY RECAP"), ...rows, ""];
}

export function log(lines: string[]): string {
  return `${lines.join("\n")}\n`;
}

export type LogFormat = "2.9" | "2.14" | "2.17";

/**
 * A message as Ansible's log file (log_path) holds it: its first line prefixed with the time
 * (`at` seconds after 2026-11-30 16:20:00 local time), pid, user and logger, its other lines
 * as they are. The prefix differs by ansible-core version:
 *   2.9: `… p=PID u=USER |  MSG`, 2.10-2.16: `… n=ansible | MSG`, 2.17+: `… n=ansible INFO| MSG`.
 */
export function logged(
  at: number,
  message: string,
  opts: { pid?: number; user?: string; format?: LogFormat; level?: string; logger?: string } = {},
): string {
  const t = new Date(Date.UTC(2026, 10, 30, 16, 20, 0) + Math.round(at * 1000));
  const p2 = (n: number, w = 2): string => String(n).padStart(w, "0");
  const stamp =
    `${t.getUTCFullYear()}-${p2(t.getUTCMonth() + 1)}-${p2(t.getUTCDate())} ` +
    `${p2(t.getUTCHours())}:${p2(t.getUTCMinutes())}:${p2(t.getUTCSeconds())},${p2(t.getUTCMilliseconds(), 3)}`;
  const who = `p=${opts.pid ?? 1989} u=${opts.user ?? "root"}`;
  const format = opts.format ?? "2.14";
  const prefix =
    format === "2.9"
      ? `${stamp} ${who} |  `
      : `${stamp} ${who} n=${opts.logger ?? "ansible"} ${format === "2.17" ? `${opts.level ?? "INFO"}|` : "|"} `;
  return prefix + message;
}

/** A whole log file from `[seconds, message]` pairs (a message may span several lines). */
export function logFile(entries: Array<[number, string]>, opts: Parameters<typeof logged>[2] = {}): string {
  return `${entries.map(([at, message]) => logged(at, message, opts)).join("\n")}\n`;
}
