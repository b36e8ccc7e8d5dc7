/**
 * Run-to-run views of jobs: two runs compared (the idempotence question) and the trend over
 * the last runs of a form. The recaps come from cachedJobRecap (events, else text).
 */
import { DomainError } from "../errors";
import { findLatestJobOfFormBefore, listLatestJobsOfForm } from "../data/jobs";
import { compareRecaps, trendAcrossRuns, type RecapComparison, type RunTrend } from "../recap/compare";
import { cachedJobRecap } from "./recap-cache";
import { requireJob } from "./access";
import { FINAL_STATUSES } from "./lifecycle";

export interface JobComparison {
  first: { id: number; status: string; finishedAt: string | null };
  second: { id: number; status: string; finishedAt: string | null };
  comparison: RecapComparison;
}

/** The latest finished job of the same form launched before this one, or null. */
export async function previousRunOf(jobId: number): Promise<number | null> {
  const job = await requireJob(jobId);
  // Only runs that ran to completion (success or failed) are compared.
  return findLatestJobOfFormBefore(job.form, jobId, ["success", "failed"]);
}

export async function compareJobs(firstId: number, secondId: number): Promise<JobComparison> {
  if (firstId === secondId) throw new DomainError("bad_request", "compare two different jobs");
  const [first, second] = await Promise.all([requireJob(firstId), requireJob(secondId)]);
  const [a, b] = await Promise.all([cachedJobRecap(firstId), cachedJobRecap(secondId)]);
  return {
    first: { id: first.id, status: first.status, finishedAt: first.finishedAt },
    second: { id: second.id, status: second.status, finishedAt: second.finishedAt },
    comparison: compareRecaps(a.recap, b.recap),
  };
}

export async function formTrend(formName: string, last: number): Promise<RunTrend & { form: string }> {
  const jobs = await listLatestJobsOfForm(formName, FINAL_STATUSES, last);
  const runs = [];
  for (const job of jobs.reverse()) {
    runs.push({
      id: String(job.id),
      startedAt: job.startedAt?.toISOString(),
      finishedAt: job.finishedAt?.toISOString(),
      recap: (await cachedJobRecap(job.id)).recap,
    });
  }
  return { form: formName, ...trendAcrossRuns(runs) };
}
