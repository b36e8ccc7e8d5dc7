import type { Job } from "@/components/api/types";

/**
 * Above the output of a job whose runner stopped storing it at PROCESS_MAX_BUFFER (the job's
 * outputTruncated): the status says how the playbook ended, this says the output shown is not
 * all it printed, so a `success` with a cut log is never read as the whole story.
 */
export function OutputTruncatedBanner({ job }: { job: Pick<Job, "outputTruncated" | "lines"> }) {
  if (!job.outputTruncated) return null;
  return (
    <p
      role="status"
      className="mb-3 rounded-md border border-amber-300 bg-amber-50 px-4 py-2 text-sm text-amber-900"
      data-testid="output-truncated"
    >
      <span className="font-semibold">Output truncated:</span> the runner stopped storing this job&apos;s output at its size limit
      (PROCESS_MAX_BUFFER). The {job.lines.toLocaleString("en-GB")} lines below are all that was kept; the playbook ran on to its end, and
      its status is that of the whole run.
    </p>
  );
}
