/**
 * What the analytics across runs need of one finished run, read from its events once: per
 * task whether it ran, the hosts on which it changed and its time (the idempotence report,
 * the report across runs), and what the playbook handed back (set_stats: the artifacts).
 *
 * A kubespray run stores ~20,000 events; reading them for 20 runs on every request would take
 * seconds. The summary is small, so it is kept in memory per finished job: a bounded LRU keyed
 * by job id and the job's lastSeq. A finished job's events do not change, except when a late
 * item arrives (a runner's end after an app-side abandon); that moves lastSeq, so the entry is
 * not reused. Each app node has its own cache; a miss costs one read of the job's events.
 */
import { taskChangesFromEvents, type TaskChanges } from "../recap/idempotence";
import { artifactsFromEvents, type JobArtifacts } from "./artifacts";
import { loadJobEvents } from "./events";
import { FinishedJobCache } from "./job-cache";

export interface RunSummary {
  tasks: TaskChanges[];
  artifacts: JobArtifacts;
}

/** More than the largest idempotence report (200 runs), so one report's runs stay cached. */
const SUMMARY_CACHE_SIZE = 256;

async function readSummary(jobId: number): Promise<RunSummary | null> {
  const events = await loadJobEvents(jobId);
  return events.length > 0 ? { tasks: taskChangesFromEvents(events), artifacts: artifactsFromEvents(events) } : null;
}

const summaries = new FinishedJobCache(SUMMARY_CACHE_SIZE, readSummary);

/** The summary of finished job `jobId` at `lastSeq`; null when the job has no events. */
export function runSummaryOf(jobId: number, lastSeq: number): Promise<RunSummary | null> {
  return summaries.get(jobId, lastSeq);
}

/** Cache hits and misses (misses read a job's events), for tests and the logs. */
export const runSummaryCacheStats = summaries.stats;

/** Empties the per-job cache (tests). */
export function clearRunSummaryCache(): void {
  summaries.clear();
}
