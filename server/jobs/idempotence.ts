/**
 * The idempotence report of a form (server/recap/idempotence.ts) over its last finished runs.
 *
 * A kubespray run stores ~20,000 events; reading them for 20 runs on every request would
 * take seconds. What the report needs of one run (per task: ran, hosts that changed) is small,
 * so it is kept in memory per finished job: a bounded LRU keyed by job id and the job's
 * lastSeq. A finished job's events do not change, except when a late item arrives (a runner's
 * end after an app-side abandon); that moves lastSeq, so the entry is not reused (the recap
 * cache is cleared by the same event). Each app node has its own cache; a miss costs one read
 * of the job's events. Recaps come from the persisted recap cache (cachedJobRecap).
 */
import type { JobScope } from "../data/job-scope";
import { listLatestJobsOfForm } from "../data/jobs";
import { idempotenceReport, isCompleteRun, taskChangesFromEvents, type IdempotenceReport, type TaskChanges } from "../recap/idempotence";
import { loadJobEvents } from "./events";
import { FinishedJobCache } from "./job-cache";
import { FINAL_STATUSES } from "./lifecycle";
import { cachedJobRecap } from "./recap-cache";
import { fullRunKeyOfForm } from "./run-keys";

/** More than the largest report (200 runs), so one report's runs stay cached. */
const SUMMARY_CACHE_SIZE = 256;

async function readTaskChanges(jobId: number): Promise<TaskChanges[] | null> {
  const events = await loadJobEvents(jobId);
  return events.length > 0 ? taskChangesFromEvents(events) : null;
}

/** Job id (while its lastSeq stays) → the run's task changes; null when the job has no events. */
const summaries = new FinishedJobCache(SUMMARY_CACHE_SIZE, readTaskChanges);

/** Cache hits and misses (misses read a job's events), for tests and the logs. */
export const idempotenceCacheStats = summaries.stats;

/** Empties the per-job cache (tests). */
export function clearIdempotenceCache(): void {
  summaries.clear();
}

/**
 * Over the last `last` finished runs of a form (oldest first): incomplete ones are counted
 * and skipped before any event is read. Only runs the reader may see (`scope`) count.
 */
export async function formIdempotence(
  formName: string,
  last: number,
  scope: JobScope,
): Promise<IdempotenceReport & { form: string; last: number }> {
  // Full runs only: a --tags, --limit or --check run would show tasks or hosts as not run.
  const runKey = await fullRunKeyOfForm(formName);
  const jobs = runKey === null ? [] : (await listLatestJobsOfForm(formName, FINAL_STATUSES, last, scope, runKey)).reverse();
  const runs = [];
  for (const job of jobs) {
    const { recap } = await cachedJobRecap(job.id);
    const complete = isCompleteRun({ recap, jobStatus: job.status });
    runs.push({
      id: String(job.id),
      finishedAt: job.finishedAt?.toISOString(),
      recap,
      jobStatus: job.status,
      tasks: complete ? await summaries.get(job.id, job.lastSeq) : null,
    });
  }
  return { form: formName, last, ...idempotenceReport(runs) };
}
