/**
 * Run-to-run views of jobs: two runs compared (the idempotence question) and the trend over
 * the last runs of a form. The recaps come from cachedJobRecap (events, else text).
 */
import { DomainError } from "../errors";
import type { JobScope } from "../data/job-scope";
import { findLatestJobOfFormBefore, getJobKind, listLatestJobsOfForm } from "../data/jobs";
import { compareRecaps, isComplete, trendAcrossRuns, type RecapComparison, type RunTrend } from "../recap/compare";
import { cachedJobRecap } from "./recap-cache";
import { requireJob } from "./access";
import { FINAL_STATUSES } from "./lifecycle";

export interface JobComparison {
  first: { id: number; status: string; finishedAt: string | null };
  second: { id: number; status: string; finishedAt: string | null };
  comparison: RecapComparison;
}

/** How many earlier runs previousRunOf looks at, at most, for one that reached its PLAY RECAP. */
const PREVIOUS_RUN_LOOKBACK = 20;

/**
 * The latest complete run of the same form launched before this one, or null: a finished job
 * (success or failed) whose recap reached its PLAY RECAP. A job failed because it was killed
 * (timeout, cancel, lost RTE) has an `incomplete` recap: it did not run every task, so it is
 * skipped, as it could say nothing about idempotence. Only runs the reader may see (`scope`) count.
 * A preview ran nothing: it has no previous run to be compared with, and is never one.
 */
export async function previousRunOf(jobId: number, scope: JobScope): Promise<number | null> {
  const job = await requireJob(jobId);
  if ((await getJobKind(jobId)) === "preview") return null;
  let before = jobId;
  for (let i = 0; i < PREVIOUS_RUN_LOOKBACK; i++) {
    const candidate = await findLatestJobOfFormBefore(job.form, before, ["success", "failed"], scope);
    if (candidate === null) return null;
    if (isComplete((await cachedJobRecap(candidate)).recap)) return candidate;
    before = candidate;
  }
  return null;
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

/** Over the last `last` finished runs of the form that the reader may see (`scope`). */
export async function formTrend(formName: string, last: number, scope: JobScope): Promise<RunTrend & { form: string }> {
  const jobs = await listLatestJobsOfForm(formName, FINAL_STATUSES, last, scope);
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
