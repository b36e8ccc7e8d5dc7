"use client";

import type { JobProgress } from "@/components/api/types";
import { cx } from "@/components/ui/cx";
import { formatDurationSeconds } from "@/components/ui/format";
import { basisTitle, progressNow, progressText, timeLeftText } from "./progress-text";

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
          ? `${progress.tasks_seen}/~${progress.tasks_expected ?? progress.tasks_seen} · ${progress.overdue ? "almost done" : timeLeftText(progress, remaining).replace("about ", "~")}`
          : `no history · ${formatDurationSeconds(progressNow(progress, ageSec).elapsed)}`}
      </div>
    </div>
  );
}
