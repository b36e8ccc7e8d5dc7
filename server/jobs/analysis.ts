/**
 * The recap analytics the API serves (docs/recap.md): a job's recap and timeline, a comparison
 * of two runs, a form's trend. Each first makes sure what it is asked about exists (404).
 */
import { DomainError } from "../errors";
import type { Recap } from "../recap/types";
import { timelineFromEvents, type Timeline } from "../recap/timeline";
import { requireForm } from "../forms/catalog";
import { requireJob } from "./access";
import { compareJobs, formTrend, previousRunOf, type JobComparison } from "./compare";
import { loadJobEvents } from "./events";
import { jobRecapFrom, type RecapSource } from "./recap";
import { cachedJobRecap } from "./recap-cache";

/** The job's recap: from `source` when given, else from its events if it has them, else from its text. */
export async function recapOfJob(jobId: number, source?: RecapSource): Promise<{ recap: Recap; source: RecapSource }> {
  const job = await requireJob(jobId);
  const result = source ? await jobRecapFrom(job.id, source) : await cachedJobRecap(job.id);
  if (!result) throw new DomainError("not_found", `job ${job.id} has no structured events (run by an RTE without the callback plugin?)`);
  return result;
}

/** Where the time of a run went, from the job's structured events. */
export async function timelineOfJob(jobId: number): Promise<Timeline> {
  const job = await requireJob(jobId);
  const events = await loadJobEvents(job.id);
  if (events.length === 0) {
    throw new DomainError(
      "not_found",
      `job ${job.id} has no structured events, so no timeline (not started yet, or run by an RTE without the callback plugin?)`,
    );
  }
  return timelineFromEvents(events);
}

/**
 * Job `jobId` compared: with job `other` (first = jobId, second = other), or with the previous
 * complete run of the same form (first = that run, second = jobId: what changed again this time?).
 * With no previous run: 404, or `{previous: null}` when `optional` (the job page's own question,
 * for which "no previous run" is an answer, not an error).
 */
export async function compareWith(
  jobId: number,
  other: number | "previous",
  options: { optional?: boolean } = {},
): Promise<JobComparison | { previous: null }> {
  if (other !== "previous") return compareJobs(jobId, other);
  const previous = await previousRunOf(jobId);
  if (previous === null) {
    await requireJob(jobId);
    if (options.optional) return { previous: null };
    throw new DomainError("not_found", `job ${jobId} has no earlier complete run of the same form`);
  }
  return compareJobs(previous, jobId);
}

/** Across the last `last` finished runs of a form: never-idempotent tasks, durations, host failure rates. */
export async function trendOfForm(name: string, last: number): ReturnType<typeof formTrend> {
  await requireForm(name);
  return formTrend(name, last);
}
