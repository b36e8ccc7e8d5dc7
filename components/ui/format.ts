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

/**
 * The one duration format of the UI (header, recap, timeline, comparison, trend): sub-second
 * below a minute, "3.34 s", "0.91 s" (the precision profile_tasks prints); from a minute,
 * whole seconds, "1 min 05 s", "1 h 02 min 05 s". Every other duration helper goes through it.
 */
export function formatDurationSeconds(totalSeconds: number): string {
  if (!Number.isFinite(totalSeconds) || totalSeconds < 0) return "—";
  const hundredths = Math.round(totalSeconds * 100);
  if (hundredths < 6000) return `${(hundredths / 100).toFixed(2)} s`;
  const seconds = Math.round(totalSeconds);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, "0");
  return h > 0 ? `${h} h ${String(m).padStart(2, "0")} min ${s} s` : `${m} min ${s} s`;
}

/** A signed difference in the same format: "+0.40 s", "−1 min 05 s", "±0.00 s". */
export function formatDurationDelta(delta: number): string {
  if (!Number.isFinite(delta)) return "—";
  if (Math.round(delta * 100) === 0) return "±0.00 s";
  return `${delta > 0 ? "+" : "−"}${formatDurationSeconds(Math.abs(delta))}`;
}

/**
 * A recap's elapsed_sec, which is whole seconds rounded down by contract (docs/recap.md):
 * printing it as "3.00 s" or "0 s" would claim what it does not know, so below a minute it
 * reads as the interval it stands for, "3–4 s", "< 1 s". Prefer a measured figure when there
 * is one (the timeline's total from the job's events).
 */
export function formatElapsedFloor(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "—";
  const whole = Math.floor(seconds);
  if (whole >= 60) return formatDurationSeconds(whole);
  return whole === 0 ? "< 1 s" : `${whole}–${whole + 1} s`;
}

/** A difference of two whole-second elapsed_sec values: "+1 s", "±0 s", "−1 min 05 s". */
export function formatElapsedFloorDelta(delta: number): string {
  if (!Number.isFinite(delta)) return "—";
  const whole = Math.round(delta);
  if (whole === 0) return "±0 s";
  const size = Math.abs(whole);
  return `${whole > 0 ? "+" : "−"}${size >= 60 ? formatDurationSeconds(size) : `${size} s`}`;
}

/**
 * Bar heights in percent for durations side by side (null: no timing), from zero, relative to
 * the longest: two bars' heights are in the ratio of their durations. (Bars scaled to the runs'
 * range made 4.62 s and 4.63 s look 1:4; the values printed under the bars tell close runs
 * apart.) A short run keeps a sliver (4%) so it is seen.
 */
export function durationBarHeights(values: readonly (number | null)[]): (number | null)[] {
  const known = values.filter((v): v is number => v !== null && Number.isFinite(v) && v >= 0);
  if (known.length === 0) return values.map(() => null);
  const max = Math.max(...known);
  return values.map((v) => {
    if (v === null || !Number.isFinite(v) || v < 0) return null;
    if (max === 0) return 100;
    return Math.max(4, (v / max) * 100);
  });
}

/** Duration between start and end; a running job counts up to `now`. */
export function formatDuration(startIso: string | null, endIso: string | null, now: number = Date.now()): string {
  if (!startIso) return "—";
  const start = Date.parse(startIso);
  const end = endIso ? Date.parse(endIso) : now;
  if (Number.isNaN(start) || Number.isNaN(end)) return "—";
  return formatDurationSeconds(Math.max(0, (end - start) / 1000));
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
