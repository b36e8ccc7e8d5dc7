/**
 * The recap analytics the API serves (docs/recap.md): a job's recap and timeline, a comparison
 * of two runs, a form's trend and idempotence report. Each first makes sure what it is asked
 * about exists (404).
 */
import { DomainError } from "../errors";
import type { JobScope } from "../data/job-scope";
import type { Recap } from "../recap/types";
import { timelineFromEvents, type Timeline } from "../recap/timeline";
import { idempotenceCsv } from "../recap/idempotence";
import { requireForm } from "../forms/catalog";
import { outputGone } from "../retention/settings";
import { requireJob } from "./access";
import { compareJobs, formTrend, previousRunOf, type JobComparison } from "./compare";
import { formIdempotence } from "./idempotence";
import { loadJobEvents } from "./events";
import { jobRecapFrom, type RecapSource } from "./recap";
import { cachedJobRecap } from "./recap-cache";

/** The job's recap: from `source` when given, else from its events if it has them, else from its text. */
export async function recapOfJob(jobId: number, source?: RecapSource): Promise<{ recap: Recap; source: RecapSource }> {
  const job = await requireJob(jobId);
  // The output a source would be read from is gone: only the cached recap is left.
  if (source && job.outputPurgedAt) throw outputGone(job.id, job.outputPurgedAt);
  const result = source ? await jobRecapFrom(job.id, source) : await cachedJobRecap(job.id);
  if (!result) throw new DomainError("not_found", `job ${job.id} has no structured events (run by an RTE without the callback plugin?)`);
  // The runner cut the output: whatever the recap was read from, it says it is partial.
  return job.outputTruncated ? { ...result, recap: { ...result.recap, output_truncated: true } } : result;
}

/** Where the time of a run went, from the job's structured events. */
export async function timelineOfJob(jobId: number): Promise<Timeline> {
  const job = await requireJob(jobId);
  if (job.outputPurgedAt) throw outputGone(job.id, job.outputPurgedAt);
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
 * for which "no previous run" is an answer, not an error). The caller checked the reader may see
 * both jobs; the previous run is the previous one they may see (`scope`).
 */
export async function compareWith(
  jobId: number,
  other: number | "previous",
  scope: JobScope,
  options: { optional?: boolean } = {},
): Promise<JobComparison | { previous: null }> {
  if (other !== "previous") return compareJobs(jobId, other);
  const previous = await previousRunOf(jobId, scope);
  if (previous === null) {
    await requireJob(jobId);
    if (options.optional) return { previous: null };
    throw new DomainError("not_found", `job ${jobId} has no earlier complete run of the same form`);
  }
  return compareJobs(previous, jobId);
}

/** Across the last `last` finished runs of a form: never-idempotent tasks, durations, host failure rates. */
export async function trendOfForm(name: string, last: number, scope: JobScope): ReturnType<typeof formTrend> {
  await requireForm(name);
  return formTrend(name, last, scope);
}

/** Across the last `last` finished runs of a form: how often each task changed, on which hosts, first and last run. */
export async function idempotenceReportOfForm(name: string, last: number, scope: JobScope): ReturnType<typeof formIdempotence> {
  await requireForm(name);
  return formIdempotence(name, last, scope);
}

/** The idempotence report as a file to download: CSV (one row per task) or the JSON report. */
export async function idempotenceExportOfForm(
  name: string,
  last: number,
  format: "csv" | "json",
  scope: JobScope,
): Promise<{ body: string; contentType: string; filename: string }> {
  const report = await idempotenceReportOfForm(name, last, scope);
  return format === "csv"
    ? { body: idempotenceCsv(report), contentType: "text/csv; charset=utf-8", filename: `${name}-idempotence.csv` }
    : {
        body: JSON.stringify(report, null, 2) + "\n",
        contentType: "application/json; charset=utf-8",
        filename: `${name}-idempotence.json`,
      };
}
