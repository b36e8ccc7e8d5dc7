"use client";

import Link from "next/link";
import { isFinalStatus, type JobStatus } from "@/components/api/types";
import { useJobs } from "@/components/hooks/use-jobs";
import { formatDuration, formatTimestamp, formatWhen } from "@/components/ui/format";
import { JobStatusBadge } from "./job-status-badge";

/** Runs a report may take: finished ones that ran (a preview is never in the job list). */
export function canReport(status: JobStatus): boolean {
  return isFinalStatus(status) && status !== "rejected";
}

/**
 * The last few runs of one form, finished or not, newest first: the top of the form page's
 * runs panel (components/forms/form-trend.tsx), above the trend of the finished ones. With
 * `pick`, the last 20, each finished one with a box to pick it for a report.
 */
export function RecentJobs({ form, pick }: { form: string; pick?: { picked: ReadonlySet<number>; toggle: (id: number) => void } }) {
  const jobs = useJobs({ form, limit: pick ? 20 : 5 });
  return jobs.isPending ? (
    <p className="text-sm text-zinc-500">Loading…</p>
  ) : jobs.isError ? (
    <p className="text-sm text-red-700">Could not load recent runs.</p>
  ) : jobs.data.jobs.length === 0 ? (
    <p className="text-sm text-zinc-500">Not run yet: launch the form and its runs show up here.</p>
  ) : (
    <ul className="-mx-2 divide-y divide-zinc-100" data-testid="recent-runs">
      {jobs.data.jobs.map((job) => {
        const row = (
          <>
            <span className="w-12 font-mono text-xs text-zinc-500">#{job.id}</span>
            <JobStatusBadge status={job.status} />
            <span className="truncate text-xs text-zinc-500">{job.user}</span>
            <span className="ml-auto text-xs text-zinc-500 tabular-nums" title={formatTimestamp(job.createdAt)}>
              {formatWhen(job.createdAt)} · {formatDuration(job.startedAt, job.finishedAt)}
            </span>
          </>
        );
        if (!pick) {
          return (
            <li key={job.id}>
              <Link href={`/jobs/${job.id}`} className="flex items-center gap-3 rounded px-2 py-1.5 text-sm hover:bg-zinc-50">
                {row}
              </Link>
            </li>
          );
        }
        const reportable = canReport(job.status);
        return (
          <li key={job.id}>
            <label
              className="flex items-center gap-3 rounded px-2 py-1.5 text-sm hover:bg-zinc-50 has-disabled:opacity-60"
              title={reportable ? undefined : "Not finished: a report takes finished runs"}
            >
              <input
                type="checkbox"
                checked={pick.picked.has(job.id)}
                disabled={!reportable}
                onChange={() => pick.toggle(job.id)}
                aria-label={`Pick run #${job.id}`}
              />
              {row}
            </label>
          </li>
        );
      })}
    </ul>
  );
}
