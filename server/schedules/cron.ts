/**
 * A schedule's cron expression and time zone (croner): 5 fields (minute hour day-of-month month
 * day-of-week) or 6 with seconds first. Read in the schedule's IANA time zone, so "0 9 * * 1-5"
 * in Europe/Paris stays at 9:00 local time across daylight saving changes; a local time the
 * change skips (02:30 on the spring-forward night) runs at the first instant after the gap.
 * Day of month and day of week both restricted: a day matching either runs, as in classic cron
 * (croner's legacyMode, its default).
 */
import { Cron } from "croner";

/** How many coming run times a schedule shows. */
export const NEXT_RUNS = 5;

/** A cron's problems, by field (`cron`, `timezone`), or null when both are fine. */
export function cronProblems(cron: string, timezone: string): Record<string, string> | null {
  const problems: Record<string, string> = {};
  if (!isTimeZone(timezone)) problems.timezone = `"${timezone}" is not a known IANA time zone (e.g. UTC, Europe/Paris)`;
  const fields = cron.trim().split(/\s+/).filter(Boolean);
  if (fields.length !== 5 && fields.length !== 6) {
    problems.cron = `must have 5 fields (minute hour day month weekday) or 6 with seconds first; "${cron}" has ${fields.length}`;
  } else {
    try {
      const parsed = schedule(cron, isTimeZone(timezone) ? timezone : "UTC");
      if (parsed.nextRun() === null) problems.cron = "never runs: no date matches it";
    } catch (error) {
      problems.cron = `is not a valid cron expression: ${cronMessage(error)}`;
    }
  }
  return Object.keys(problems).length > 0 ? problems : null;
}

/** The next `count` run times strictly after `after`; the expression and zone must have passed cronProblems. */
export function nextRuns(cron: string, timezone: string, after: Date, count = NEXT_RUNS): Date[] {
  return schedule(cron, timezone).nextRuns(count, after);
}

/** The first run time strictly after `after`, or null when none comes. */
export function nextRun(cron: string, timezone: string, after: Date): Date | null {
  return schedule(cron, timezone).nextRun(after);
}

/** How many coming runs the shortest gap of a cron is measured over (minimumGapSeconds). */
export const GAP_RUNS = 25;

/**
 * The shortest gap, in seconds, between the next GAP_RUNS run times after `after` (null when it
 * runs at most once). Measured rather than read from the fields: "0,30 * * * * *" and
 * "59 23 * * *" plus "0 0 * * *" patterns alike, and 25 runs cover the tight pairs a pattern
 * repeats every hour, day or week.
 */
export function minimumGapSeconds(cron: string, timezone: string, after: Date): number | null {
  const runs = nextRuns(cron, timezone, after, GAP_RUNS);
  let smallest: number | null = null;
  for (let i = 1; i < runs.length; i++) {
    const gap = (runs[i]!.getTime() - runs[i - 1]!.getTime()) / 1000;
    if (smallest === null || gap < smallest) smallest = gap;
  }
  return smallest;
}

function schedule(cron: string, timezone: string): Cron {
  // paused: a pattern holder, never a timer; the scheduler loop decides when ticks run.
  return new Cron(cron.trim(), { timezone, mode: "5-or-6-parts", paused: true });
}

function isTimeZone(timezone: string): boolean {
  if (timezone.trim() === "" || timezone !== timezone.trim()) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/** croner's message without its class prefix ("CronPattern: Invalid value for minute: 61"). */
function cronMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^Cron\w*:\s*/, "");
}
