/**
 * Run-to-run views of jobs: two runs compared (the idempotence question) and the trend over
 * the last runs of a form. The recaps come from cachedJobRecap (events, else text).
 */
import { isDeepStrictEqual } from "node:util";
import { DomainError } from "../errors";
import type { JobScope } from "../data/job-scope";
import { findLatestJobOfFormBefore, getJobKind, listLatestJobsOfForm } from "../data/jobs";
import { compareRecaps, isComplete, trendAcrossRuns, type RecapComparison, type RunTrend } from "../recap/compare";
import type { JobView } from "../protocol/ui-messages";
import { cachedJobRecap } from "./recap-cache";
import { requireJob } from "./access";
import { FINAL_STATUSES } from "./lifecycle";
import { optionDifferences, runOptionsOfJob, type OptionDifference, type RunOptionsView } from "./run-kind";
import { fullRunKeyOfForm, runKeyOfJob } from "./run-keys";
import { knownArtifacts } from "./artifacts";

export interface ComparedJob {
  id: number;
  status: string;
  finishedAt: string | null;
  /** How it was run (run-kind.ts); null for a job launched before plans were kept. */
  options: RunOptionsView | null;
}

export interface JobComparison {
  first: ComparedJob;
  second: ComparedJob;
  /** The options in which the two runs differ (none for a previous run but diff, verbosity, environment or values). */
  differences: OptionDifference[];
  /**
   * The keys of what the playbooks handed back (set_stats, run-wide) whose values differ, in the
   * first run's order then the second's, a key one run did not set null on its side; null when
   * either run's artifacts are not known (no events, output removed, refused over the cap).
   */
  artifacts: ArtifactDifference[] | null;
  comparison: RecapComparison;
}

export interface ArtifactDifference {
  key: string;
  first: unknown;
  second: unknown;
}

/** The run-wide artifacts of a finished job, or null when they are not known (or were refused over the cap). */
async function runArtifacts(job: JobView): Promise<Record<string, unknown> | null> {
  const known = await knownArtifacts(job);
  return known && known.error === null ? known.artifacts : null;
}

/** The keys whose values differ between two runs' artifacts (see JobComparison.artifacts). */
export function artifactDifferences(first: Record<string, unknown>, second: Record<string, unknown>): ArtifactDifference[] {
  const keys = [...new Set([...Object.keys(first), ...Object.keys(second)])];
  return keys
    .filter((key) => !(key in first && key in second && isDeepStrictEqual(first[key], second[key])))
    .map((key) => ({ key, first: key in first ? first[key] : null, second: key in second ? second[key] : null }));
}

function comparedJob(job: JobView): ComparedJob {
  return { id: job.id, status: job.status, finishedAt: job.finishedAt, options: runOptionsOfJob(job) };
}

/** How many earlier runs previousRunOf looks at, at most, for one that reached its PLAY RECAP. */
const PREVIOUS_RUN_LOOKBACK = 20;

/**
 * The latest complete run of the same form and of the same kind (run-kind.ts: playbook, tags,
 * skip tags, limit, check mode) launched before this one, or null: a finished job (success or
 * failed) whose recap reached its PLAY RECAP. A `--tags` run is compared with the last run with
 * the same tags, never with a full run. A job failed because it was killed
 * (timeout, cancel, lost RTE) has an `incomplete` recap: it did not run every task, so it is
 * skipped, as it could say nothing about idempotence. Only runs the reader may see (`scope`) count.
 * A preview ran nothing: it has no previous run to be compared with, and is never one.
 */
export async function previousRunOf(jobId: number, scope: JobScope): Promise<number | null> {
  const job = await requireJob(jobId);
  if ((await getJobKind(jobId)) === "preview") return null;
  const runKey = await runKeyOfJob(jobId);
  if (runKey === null) return null;
  let before = jobId;
  for (let i = 0; i < PREVIOUS_RUN_LOOKBACK; i++) {
    const candidate = await findLatestJobOfFormBefore(job.form, before, ["success", "failed"], scope, runKey);
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
  const [one, two] = [comparedJob(first), comparedJob(second)];
  const [resultsA, resultsB] = await Promise.all([runArtifacts(first), runArtifacts(second)]);
  return {
    first: one,
    second: two,
    differences: one.options && two.options ? optionDifferences(one.options, two.options) : [],
    artifacts: resultsA && resultsB ? artifactDifferences(resultsA, resultsB) : null,
    comparison: compareRecaps(a.recap, b.recap),
  };
}

/**
 * Over the last `last` finished full runs of the form (its own settings: no tags, limit or
 * check mode chosen at launch) that the reader may see (`scope`).
 */
export async function formTrend(formName: string, last: number, scope: JobScope): Promise<RunTrend & { form: string }> {
  const runKey = await fullRunKeyOfForm(formName);
  const jobs = runKey === null ? [] : await listLatestJobsOfForm(formName, FINAL_STATUSES, last, scope, runKey);
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
