/**
 * The idempotence report of a form (server/recap/idempotence.ts) over its last finished runs:
 * each run's tasks come from its cached summary (server/jobs/run-summary.ts), its recap from
 * the persisted recap cache (cachedJobRecap).
 */
import type { JobScope } from "../data/job-scope";
import { listLatestJobsOfForm } from "../data/jobs";
import { idempotenceReport, isCompleteRun, type IdempotenceReport } from "../recap/idempotence";
import { FINAL_STATUSES } from "./lifecycle";
import { cachedJobRecap } from "./recap-cache";
import { fullRunKeyOfForm } from "./run-keys";
import { runSummaryOf } from "./run-summary";
import type { JobEnvironment } from "../protocol/ui-messages";

/** "k8s (ansible-core 2.18.1)": what tells two environments apart in the report. */
function environmentLabel(environment: JobEnvironment): string {
  return environment.ansibleCore ? `${environment.name} (ansible-core ${environment.ansibleCore})` : environment.name;
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
      tasks: complete ? ((await runSummaryOf(job.id, job.lastSeq))?.tasks ?? null) : null,
      environment: job.environment ? environmentLabel(job.environment) : null,
    });
  }
  return { form: formName, last, ...idempotenceReport(runs) };
}
