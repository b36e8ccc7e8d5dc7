"use client";

import Link from "next/link";
import { ApiError } from "@/components/api/client";
import { isFinalStatus, type Job, type JobFileValue, type JobPermissions } from "@/components/api/types";
import { useJob, useJobPermissions } from "@/components/hooks/use-job";
import { useHydrated } from "@/components/hooks/use-hydrated";
import { useJobLines } from "@/components/hooks/use-job-lines";
import { useJobRecap } from "@/components/hooks/use-job-recap";
import { ApprovalPanel } from "@/components/jobs/approval-panel";
import { FailedBeforeTasks } from "@/components/jobs/failed-before-tasks";
import { JobArtifactsPanel } from "@/components/jobs/job-artifacts";
import { JobComparisonPanel } from "@/components/jobs/job-comparison";
import { JobHeader } from "@/components/jobs/job-header";
import { JobPlan } from "@/components/jobs/job-plan";
import { JobNotifications } from "@/components/jobs/job-notifications";
import { JobRecap } from "@/components/jobs/job-recap";
import { JobTimeline } from "@/components/jobs/job-timeline";
import { JobValues } from "@/components/jobs/job-values";
import { OutputPane } from "@/components/jobs/output-pane";
import { OutputTruncatedBanner } from "@/components/jobs/output-truncated";
import { Panel } from "@/components/ui/panel";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/states";

/** `initial`: the job and permissions the server page read, shown at once (no "Loading job…" round trip). */
export function JobClient({
  jobId,
  initial,
  files = {},
}: {
  jobId: number;
  initial?: { job: Job; permissions: JobPermissions };
  /** The uploaded files the job's file fields name, by field (their values are upload ids). */
  files?: Record<string, JobFileValue>;
}) {
  const job = useJob(jobId, { initialData: initial?.job });
  // Seeds the permissions the header's buttons read (same query key).
  useJobPermissions(jobId, initial?.permissions);
  const final = job.data ? isFinalStatus(job.data.status) : false;
  // Started beside the job query, not after it: output shows as soon as it is there.
  const output = useJobLines(jobId, job.data ? { lines: job.data.lines, final } : undefined);
  const purgedAt = job.data?.outputPurgedAt ?? null;
  // A run that printed no play (a syntax error, a missing inventory: ansible-playbook stopped
  // before its first task) has no timeline: the page does not ask for one (it would answer
  // 404, retried), and a failed one says where it stopped. The recap (same query as its panel)
  // comes from the events or, without them, the text, so it always knows the plays.
  const recap = useJobRecap(jobId, final);
  const played = recap.data ? recap.data.plays.length > 0 : undefined;
  const hydrated = useHydrated();

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
            <EmptyState title={`Output removed by retention${hydrated ? ` on ${new Date(purgedAt).toLocaleString()}` : ""}`}>
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
          <JobValues values={job.data.values} runOptions={job.data.runOptions} files={files} />
          {job.data.plan && job.data.status !== "approval" && (
            <Panel title="What it runs" className="mt-6">
              <JobPlan job={job.data} />
            </Panel>
          )}
        </div>
      </div>
      {final && job.data.status === "failed" && played === false && !purgedAt && <FailedBeforeTasks jobId={jobId} />}
      {final && <JobRecap jobId={jobId} timeline={played === true} />}
      {final && !purgedAt && played === true && <JobArtifactsPanel jobId={jobId} />}
      {final && !purgedAt && played === true && <JobTimeline jobId={jobId} />}
      {final && <JobComparisonPanel jobId={jobId} />}
      <JobNotifications jobId={jobId} status={job.data.status} />
    </div>
  );
}
