/** The words of a job's progress (GET /api/jobs/ID/progress) on the job page and the job list. */
import type { JobProgress } from "@/components/api/types";
import { formatDurationSeconds } from "@/components/ui/format";

export const NO_HISTORY = "no earlier run of this form to estimate from";

/**
 * What a progress answer says `ageSec` seconds after it came: the elapsed time goes on and the
 * time left counts down (never below zero) until the next answer.
 */
export function progressNow(progress: JobProgress, ageSec: number): { elapsed: number; remaining: number | null } {
  const age = Math.max(0, ageSec);
  return {
    elapsed: progress.elapsed_sec + age,
    remaining: progress.remaining_sec === null ? null : Math.max(0, progress.remaining_sec - age),
  };
}

/** "task 120 of about 600 · about 3 min 10 s left", or elapsed time only without history. */
export function progressText(progress: JobProgress, ageSec: number): string {
  const { elapsed, remaining } = progressNow(progress, ageSec);
  if (progress.basis === 0 || remaining === null) return `${NO_HISTORY} · ${formatDurationSeconds(elapsed)} elapsed`;
  const tasks =
    progress.tasks_seen === 0
      ? "no task started yet"
      : `task ${progress.tasks_seen} of about ${progress.tasks_expected ?? progress.tasks_seen}`;
  return `${tasks} · ${timeLeftText(progress, remaining)}`;
}

/** "about 3 min 10 s left"; "almost done" under a second (the local countdown too). */
export function timeLeftText(progress: JobProgress, remaining: number): string {
  if (progress.overdue) return "longer than earlier runs, almost done";
  return remaining < 1 ? "almost done" : `about ${formatDurationSeconds(remaining)} left`;
}

export function basisTitle(progress: JobProgress): string {
  if (progress.basis === 0) return NO_HISTORY;
  const range = progress.remaining_range_sec;
  const spread = range ? `; the earlier runs say ${formatDurationSeconds(range[0])} to ${formatDurationSeconds(range[1])} left` : "";
  const runs = progress.references.map((id) => `#${id}`).join(", ");
  return `Estimated from ${progress.basis} earlier complete run${progress.basis === 1 ? "" : "s"} of this form (${runs})${spread}`;
}
