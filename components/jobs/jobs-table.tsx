"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { isFinalStatus, type Job } from "@/components/api/types";
import { useNow } from "@/components/hooks/use-now";
import { formatDateTime, formatDuration, formatWhen } from "@/components/ui/format";
import { JobStatusBadge } from "./job-status-badge";

const TH = "px-3 py-2 text-left text-[11px] font-semibold tracking-wide text-zinc-500 uppercase";
const TD = "px-3 py-2 whitespace-nowrap";

export function JobsTable({ jobs }: { jobs: Job[] }) {
  const router = useRouter();
  // Running rows show a live duration.
  const now = useNow(jobs.some((job) => !isFinalStatus(job.status)));
  return (
    <div className="overflow-x-auto rounded-lg border border-zinc-200 bg-white shadow-xs">
      <table className="min-w-full divide-y divide-zinc-200 text-sm" data-testid="jobs-table">
        <thead className="bg-zinc-50">
          <tr>
            <th scope="col" className={TH}>
              Job
            </th>
            <th scope="col" className={TH}>
              Form
            </th>
            <th scope="col" className={TH}>
              Status
            </th>
            <th scope="col" className={TH}>
              User
            </th>
            <th scope="col" className={TH}>
              Runner
            </th>
            <th scope="col" className={TH}>
              Created
            </th>
            <th scope="col" className={`${TH} text-right`}>
              Duration
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100">
          {jobs.map((job) => (
            <tr
              key={job.id}
              className="cursor-pointer hover:bg-zinc-50"
              onClick={(event) => {
                // Let real links and modified clicks (new tab) behave as links do.
                if (event.target instanceof Element && event.target.closest("a")) return;
                router.push(`/jobs/${job.id}`);
              }}
              data-job-id={job.id}
            >
              <td className={TD}>
                <Link href={`/jobs/${job.id}`} className="font-mono text-xs font-medium text-indigo-600 hover:underline">
                  #{job.id}
                </Link>
              </td>
              <td className={`${TD} font-medium text-zinc-900`}>{job.form}</td>
              <td className={TD}>
                <JobStatusBadge status={job.status} />
              </td>
              <td className={`${TD} text-zinc-700`}>{job.user}</td>
              <td className={`${TD} font-mono text-xs text-zinc-600`}>{job.runner ?? <span className="text-zinc-400">—</span>}</td>
              <td className={`${TD} text-zinc-600 tabular-nums`} title={formatDateTime(job.createdAt)}>
                {formatWhen(job.createdAt)}
              </td>
              <td className={`${TD} text-right text-zinc-600 tabular-nums`}>{formatDuration(job.startedAt, job.finishedAt, now)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
