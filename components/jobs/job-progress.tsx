"use client";

import type { JobProgress } from "@/components/api/types";
import { cx } from "@/components/ui/cx";
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
  const left =
    progress.overdue || remaining < 1 ? "almost done (longer than earlier runs)" : `about ${formatDurationSeconds(remaining)} left`;
  return `${tasks} · ${left}`;
}

function basisTitle(progress: JobProgress): string {
  if (progress.basis === 0) return NO_HISTORY;
  const range = progress.remaining_range_sec;
  const spread = range ? `; the earlier runs say ${formatDurationSeconds(range[0])} to ${formatDurationSeconds(range[1])} left` : "";
  const runs = progress.references.map((id) => `#${id}`).join(", ");
  return `Estimated from ${progress.basis} earlier complete run${progress.basis === 1 ? "" : "s"} of this form (${runs})${spread}`;
}

/** A bar: the fraction done, or a slow pulse when there is nothing to estimate from. */
export function ProgressBar({ fraction, className }: { fraction: number | null; className?: string }) {
  return (
    <div
      className={cx("h-1.5 overflow-hidden rounded-full bg-zinc-100", className)}
      role="progressbar"
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={fraction === null ? undefined : Math.round(fraction * 100)}
    >
      {fraction === null ? (
        <div className="h-full w-full animate-pulse bg-indigo-200" />
      ) : (
        <div
          className="h-full rounded-full bg-indigo-500 transition-[width] duration-700"
          style={{ width: `${Math.round(fraction * 1000) / 10}%` }}
        />
      )}
    </div>
  );
}

/** The job page's progress row of a running job. */
export function JobProgressRow({ progress, ageSec }: { progress: JobProgress | undefined; ageSec: number }) {
  return (
    <div className="border-t border-zinc-100 px-5 py-3" data-testid="job-progress">
      <ProgressBar fraction={progress?.fraction ?? null} />
      <p
        className="mt-1.5 text-xs text-zinc-600 tabular-nums"
        title={progress ? basisTitle(progress) : undefined}
        data-testid="job-progress-text"
      >
        {progress ? progressText(progress, ageSec) : "Estimating progress…"}
      </p>
    </div>
  );
}

/** The job list's small bar under a running job's status. */
export function JobProgressCell({ progress, ageSec }: { progress: JobProgress; ageSec: number }) {
  const { remaining } = progressNow(progress, ageSec);
  const history = progress.basis > 0 && remaining !== null;
  return (
    <div className="mt-1 w-32" title={`${progressText(progress, ageSec)}. ${basisTitle(progress)}`} data-testid="job-row-progress">
      <ProgressBar fraction={progress.fraction} className="h-1" />
      <div className="mt-0.5 text-[11px] text-zinc-500 tabular-nums">
        {history
          ? `${progress.tasks_seen}/~${progress.tasks_expected ?? progress.tasks_seen} · ${progress.overdue || remaining < 1 ? "almost done" : `~${formatDurationSeconds(remaining)} left`}`
          : `no history · ${formatDurationSeconds(progressNow(progress, ageSec).elapsed)}`}
      </div>
    </div>
  );
}
