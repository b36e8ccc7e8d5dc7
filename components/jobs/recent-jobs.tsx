"use client";

import Link from "next/link";
import { useJobs } from "@/components/hooks/use-jobs";
import { formatDuration, formatTimestamp, formatWhen } from "@/components/ui/format";
import { Panel } from "@/components/ui/panel";
import { JobStatusBadge } from "./job-status-badge";

/** The last few runs of one form, beside its launch form. */
export function RecentJobs({ form }: { form: string }) {
  const jobs = useJobs({ form, limit: 5 });
  return (
    <Panel
      title="Recent runs"
      bodyClassName="p-0"
      actions={
        <Link href={`/jobs?form=${encodeURIComponent(form)}`} className="text-xs text-indigo-600 hover:underline">
          All runs
        </Link>
      }
    >
      {jobs.isPending ? (
        <p className="px-4 py-3 text-sm text-zinc-500">Loading…</p>
      ) : jobs.isError ? (
        <p className="px-4 py-3 text-sm text-red-700">Could not load recent runs.</p>
      ) : jobs.data.jobs.length === 0 ? (
        <p className="px-4 py-3 text-sm text-zinc-500">Not run yet.</p>
      ) : (
        <ul className="divide-y divide-zinc-100">
          {jobs.data.jobs.map((job) => (
            <li key={job.id}>
              <Link href={`/jobs/${job.id}`} className="flex items-center gap-3 px-4 py-2 text-sm hover:bg-zinc-50">
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
      )}
    </Panel>
  );
}
