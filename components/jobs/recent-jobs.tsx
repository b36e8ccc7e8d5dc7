"use client";

import Link from "next/link";
import { useJobs } from "@/components/hooks/use-jobs";
import { formatDuration, formatTimestamp, formatWhen } from "@/components/ui/format";
import { JobStatusBadge } from "./job-status-badge";

/**
 * The last few runs of one form, finished or not, newest first: the top of the form page's
 * runs panel (components/forms/form-trend.tsx), above the trend of the finished ones.
 */
export function RecentJobs({ form }: { form: string }) {
  const jobs = useJobs({ form, limit: 5 });
  return jobs.isPending ? (
    <p className="text-sm text-zinc-500">Loading…</p>
  ) : jobs.isError ? (
    <p className="text-sm text-red-700">Could not load recent runs.</p>
  ) : jobs.data.jobs.length === 0 ? (
    <p className="text-sm text-zinc-500">Not run yet: launch the form and its runs show up here.</p>
  ) : (
    <ul className="-mx-2 divide-y divide-zinc-100" data-testid="recent-runs">
      {jobs.data.jobs.map((job) => (
        <li key={job.id}>
          <Link href={`/jobs/${job.id}`} className="flex items-center gap-3 rounded px-2 py-1.5 text-sm hover:bg-zinc-50">
            <span className="w-12 font-mono text-xs text-zinc-500">#{job.id}</span>
            <JobStatusBadge status={job.status} />
            <span className="truncate text-xs text-zinc-500">{job.user}</span>
            <span className="ml-auto text-xs text-zinc-500 tabular-nums" title={formatTimestamp(job.createdAt)}>
              {formatWhen(job.createdAt)} · {formatDuration(job.startedAt, job.finishedAt)}
            </span>
          </Link>
        </li>
      ))}
    </ul>
  );
}
