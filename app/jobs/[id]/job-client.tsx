"use client";

import Link from "next/link";
import { ApiError } from "@/components/api/client";
import { isFinalStatus, type Job, type JobPermissions } from "@/components/api/types";
import { useJob, useJobPermissions } from "@/components/hooks/use-job";
import { useJobLines } from "@/components/hooks/use-job-lines";
import { ApprovalPanel } from "@/components/jobs/approval-panel";
import { JobComparisonPanel } from "@/components/jobs/job-comparison";
import { JobHeader } from "@/components/jobs/job-header";
import { JobNotifications } from "@/components/jobs/job-notifications";
import { JobRecap } from "@/components/jobs/job-recap";
import { JobTimeline } from "@/components/jobs/job-timeline";
import { JobValues } from "@/components/jobs/job-values";
import { OutputPane } from "@/components/jobs/output-pane";
import { OutputTruncatedBanner } from "@/components/jobs/output-truncated";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/states";

/** `initial`: the job and permissions the server page read, shown at once (no "Loading job…" round trip). */
export function JobClient({ jobId, initial }: { jobId: number; initial?: { job: Job; permissions: JobPermissions } }) {
  const job = useJob(jobId, { initialData: initial?.job });
  // Seeds the permissions the header's buttons read (same query key).
  useJobPermissions(jobId, initial?.permissions);
  const final = job.data ? isFinalStatus(job.data.status) : false;
  // Started beside the job query, not after it: output shows as soon as it is there.
  const output = useJobLines(jobId, job.data ? { lines: job.data.lines, final } : undefined);
  const purgedAt = job.data?.outputPurgedAt ?? null;

  if (job.isPending) return <LoadingState label="Loading job…" />;
  // A failed refresh (the app restarting, the network gone for a moment) keeps the page as it
  // is: the output pane says it is reconnecting and polls, and the next refresh catches up.
  if (!job.data) {
    if (job.error instanceof ApiError && job.error.status === 404) {
      return (
        <EmptyState title={`Job #${jobId} does not exist`}>
          <Link href="/jobs" className="text-indigo-600 hover:underline">
            Back to the job list
          </Link>
        </EmptyState>
      );
    }
    return <ErrorState error={job.error} onRetry={() => void job.refetch()} />;
  }

  return (
    <div className="space-y-6">
      <JobHeader job={job.data} />
      {job.data.status === "approval" && <ApprovalPanel job={job.data} />}
      <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-4">
        <div className="min-w-0 lg:col-span-3">
          {/* Keyed by job: another job starts with its own scroll position, search and follow mode. */}
          {purgedAt ? (
            <EmptyState title={`Output removed by retention on ${new Date(purgedAt).toLocaleString()}`}>
              The recap below was kept; the output lines and the timeline are gone.
            </EmptyState>
          ) : (
            <>
              <OutputTruncatedBanner job={job.data} />
              <OutputPane key={jobId} jobId={jobId} output={output} status={job.data.status} final={final} />
            </>
          )}
        </div>
        <div className="min-w-0">
          <JobValues values={job.data.values} runOptions={job.data.runOptions} />
        </div>
      </div>
      {final && <JobRecap jobId={jobId} />}
      {final && !purgedAt && <JobTimeline jobId={jobId} />}
      {final && <JobComparisonPanel jobId={jobId} />}
      <JobNotifications jobId={jobId} status={job.data.status} />
    </div>
  );
}
