/** Display helpers for timestamps and durations; all take ISO strings as the API sends them. */

const dateTime = new Intl.DateTimeFormat(undefined, {
  year: "numeric",
  month: "short",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
});

const fullDateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "full", timeStyle: "long" });

const timeOnly = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
const dayAndTime = new Intl.DateTimeFormat(undefined, { month: "short", day: "2-digit", hour: "2-digit", minute: "2-digit" });
const dayAndYear = new Intl.DateTimeFormat(undefined, { year: "numeric", month: "short", day: "2-digit" });

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "—" : dateTime.format(date);
}

/**
 * Everything there is to know about a moment, for a title attribute: the long local form with
 * the weekday and time zone, then the exact UTC timestamp ("Monday 30 November 2026 at
 * 14:03:07 CET (2026-11-30T13:03:07.412Z)").
 */
export function formatTimestamp(iso: string | null | undefined): string {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : `${fullDateTime.format(date)} (${date.toISOString()})`;
}

/**
 * As short as still unambiguous: the time for today, day and time this year, the date
 * before that. Dense tables stay readable; the full timestamp goes in a title attribute.
 */
export function formatWhen(iso: string | null | undefined, now: Date = new Date()): string {
  if (!iso) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "—";
  if (date.toDateString() === now.toDateString()) return timeOnly.format(date);
  if (date.getFullYear() === now.getFullYear()) return dayAndTime.format(date);
  return dayAndYear.format(date);
}

export function formatSeconds(totalSeconds: number): string {
  if (!Number.isFinite(totalSeconds) || totalSeconds < 0) return "—";
  if (totalSeconds < 10) return `${totalSeconds.toFixed(1)}s`;
  const seconds = Math.round(totalSeconds);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, "0")}m ${String(s).padStart(2, "0")}s`;
  if (m > 0) return `${m}m ${String(s).padStart(2, "0")}s`;
  return `${s}s`;
}

/**
 * A recap's elapsed_sec: whole seconds by contract (docs/recap.md, the floor of the run's
 * time), so "2s", never "2.0s", which would claim a precision the number does not have.
 */
export function formatElapsed(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "—";
  return seconds < 10 ? `${Math.floor(seconds)}s` : formatSeconds(seconds);
}

/** A signed difference of two elapsed_sec values: "+3s", "−1m 05s", "±0s". */
export function formatElapsedDelta(delta: number): string {
  if (!Number.isFinite(delta)) return "—";
  if (delta === 0) return "±0s";
  return `${delta > 0 ? "+" : "−"}${formatElapsed(Math.abs(delta))}`;
}

/** Duration between start and end; a running job counts up to `now`. */
export function formatDuration(startIso: string | null, endIso: string | null, now: number = Date.now()): string {
  if (!startIso) return "—";
  const start = Date.parse(startIso);
  const end = endIso ? Date.parse(endIso) : now;
  if (Number.isNaN(start) || Number.isNaN(end)) return "—";
  return formatSeconds(Math.max(0, (end - start) / 1000));
}

/**
 * A task's time as the profile_tasks callback prints it ("0.02s", "2.61s", "75.32s"): with
 * one decimal most quick tasks would read "0.0s", and the numbers would not match the log.
 */
export function formatTaskSeconds(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "—";
  return `${seconds.toFixed(2)}s`;
}

/** A signed difference in seconds, "+1.25s" / "−0.40s" / "±0.00s", task-timing precision. */
export function formatSecondsDelta(delta: number): string {
  if (!Number.isFinite(delta)) return "—";
  const rounded = Math.round(delta * 100) / 100;
  if (rounded === 0) return "±0.00s";
  return `${rounded > 0 ? "+" : "−"}${Math.abs(rounded).toFixed(2)}s`;
}

/** "just now", "42s ago", "5m ago", "3h ago", "2d ago": for heartbeats and last-seen times. */
export function formatAgo(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return "never";
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return "—";
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (seconds < 5) return "just now";
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86_400)}d ago`;
}

/** Milliseconds since `iso`, or null when there is no such time. */
export function ageMs(iso: string | null | undefined, now: number = Date.now()): number | null {
  if (!iso) return null;
  const at = Date.parse(iso);
  return Number.isNaN(at) ? null : now - at;
}

/** "812 B", "14.2 KB", "3.1 MB": file sizes in the units people expect (1 KB = 1024 B). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "—";
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
