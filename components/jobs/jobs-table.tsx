"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { isFinalStatus, type Job, type JobProgress } from "@/components/api/types";
import { useJobsProgress } from "@/components/hooks/use-job-progress";
import { useNow } from "@/components/hooks/use-now";
import { DataTable, type Column } from "@/components/ui/data-table";
import { formatDateTime, formatDuration, formatTimestamp } from "@/components/ui/format";
import { JobProgressCell } from "./job-progress";
import { JobStatusBadge } from "./job-status-badge";

/** Running jobs' progress by job id, and how many seconds old the answer is. */
interface RowProgress {
  byJob: Map<number, JobProgress>;
  ageSec: number;
}

function jobColumns(now: number, progress: RowProgress): Column<Job>[] {
  return [
    {
      key: "id",
      header: "Job",
      cell: (job) => (
        <Link href={`/jobs/${job.id}`} className="font-mono text-xs font-medium text-indigo-600 hover:underline">
          #{job.id}
        </Link>
      ),
    },
    {
      key: "form",
      header: "Form",
      className: "font-medium text-zinc-900",
      cell: (job) => (
        <>
          {job.form}
          {job.drift && (
            <span
              className="ml-2 rounded bg-orange-100 px-1.5 py-0.5 text-[11px] font-medium text-orange-900"
              title="A drift check: check mode with diffs, launched by a schedule in drift mode"
              data-testid="job-drift"
            >
              drift check
            </span>
          )}
        </>
      ),
    },
    {
      key: "status",
      header: "Status",
      cell: (job) => {
        const p = job.status === "running" ? progress.byJob.get(job.id) : undefined;
        return (
          <>
            <JobStatusBadge status={job.status} />
            {p && <JobProgressCell progress={p} ageSec={progress.ageSec} />}
          </>
        );
      },
    },
    { key: "user", header: "User", className: "text-zinc-700", cell: (job) => job.user },
    {
      key: "runner",
      header: "Runner",
      className: "font-mono text-xs text-zinc-600",
      cell: (job) => job.runner ?? <span className="text-zinc-400">—</span>,
    },
    {
      key: "created",
      header: "Created",
      className: "text-zinc-600 tabular-nums",
      // Date and time in the viewer's locale; the full timestamp on hover.
      cellProps: (job) => ({ title: formatTimestamp(job.createdAt), "data-created": job.createdAt }),
      cell: (job) => <time dateTime={job.createdAt}>{formatDateTime(job.createdAt)}</time>,
    },
    {
      key: "duration",
      header: "Duration",
      align: "right",
      className: "text-zinc-600 tabular-nums",
      cell: (job) => formatDuration(job.startedAt, job.finishedAt, now),
    },
  ];
}

export function JobsTable({ jobs }: { jobs: Job[] }) {
  const router = useRouter();
  // Running rows show a live duration.
  const now = useNow(jobs.some((job) => !isFinalStatus(job.status)));
  // One request for the progress of every running row.
  const runningIds = jobs.filter((job) => job.status === "running").map((job) => job.id);
  const progress = useJobsProgress(runningIds);
  const rowProgress: RowProgress = {
    byJob: new Map((progress.data ?? []).map((p) => [p.job, p])),
    ageSec: progress.dataUpdatedAt ? (now - progress.dataUpdatedAt) / 1000 : 0,
  };
  return (
    <DataTable
      testId="jobs-table"
      rows={jobs}
      columns={jobColumns(now, rowProgress)}
      cellClassName="px-3 py-2 whitespace-nowrap"
      row={(job) => ({
        key: job.id,
        className: "cursor-pointer hover:bg-zinc-50",
        onClick: (event) => {
          // Let real links and modified clicks (new tab) behave as links do.
          if (event.target instanceof Element && event.target.closest("a")) return;
          router.push(`/jobs/${job.id}`);
        },
        "data-job-id": job.id,
      })}
    />
  );
}
