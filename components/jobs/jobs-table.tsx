"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { isFinalStatus, type Job } from "@/components/api/types";
import { useNow } from "@/components/hooks/use-now";
import { DataTable, type Column } from "@/components/ui/data-table";
import { formatDateTime, formatDuration, formatTimestamp } from "@/components/ui/format";
import { JobStatusBadge } from "./job-status-badge";

function jobColumns(now: number): Column<Job>[] {
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
    { key: "form", header: "Form", className: "font-medium text-zinc-900", cell: (job) => job.form },
    { key: "status", header: "Status", cell: (job) => <JobStatusBadge status={job.status} /> },
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
  return (
    <DataTable
      testId="jobs-table"
      rows={jobs}
      columns={jobColumns(now)}
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
