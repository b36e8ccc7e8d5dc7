/**
 * Progress and time left of a job (docs/recap.md, "Progress of a running job"): the running
 * job's tasks so far against the timelines of the form's last complete successful runs.
 *
 * Cheap enough for many watchers polling a big job:
 * - The earlier runs are finished, so what is derived from their events is kept in memory per
 *   job (bounded, least recently used first out) and read again only if the job got a late
 *   item since (its lastSeq moved).
 * - A running job's events are read once: each look reads only the event chunks stored after
 *   the last one it saw and feeds them to a TaskStartTracker, which keeps the task starts only.
 *   Looks at the same job at the same moment share one read.
 */
import { ALL_JOBS, type JobScope } from "../data/job-scope";
import { DomainError } from "../errors";
import { listEventChunksAfter } from "../data/job-output";
import { listJobProgressStates, listSuccessfulRunsOfFormBefore } from "../data/jobs";
import { parsePlayformEvent, type PlayformEvent } from "../recap/events";
import {
  estimateProgress,
  finishedProgress,
  prepareReference,
  TaskStartTracker,
  type PreparedReference,
  type ProgressEstimate,
} from "../recap/progress";
import { timelineFromEvents } from "../recap/timeline";
import type { JobStatus } from "../protocol/ui-messages";
import { loadJobEvents } from "./events";
import { FinishedJobCache, Lru } from "./job-cache";
import { isFinalStatus } from "./lifecycle";
import { runKeyOfJob } from "./run-keys";

export interface JobProgress extends ProgressEstimate {
  job: number;
  status: JobStatus;
  /** The earlier runs the estimate stands on, newest first. */
  references: number[];
}

/** How many earlier complete runs an estimate uses, at most. */
export const PROGRESS_REFERENCE_RUNS = 5;
/** How many earlier successful runs are looked at to find them. */
const REFERENCE_LOOKBACK = 10;
/** Finished jobs whose derived timeline stays in memory. */
const FINISHED_CACHE_SIZE = 200;
/**
 * A running job that sent no event at all this long after it started has a runner without the
 * callback plugin: it is placed by the time since it started instead.
 */
const NO_EVENTS_GRACE_SEC = 30;
/** Running jobs whose task starts stay in memory (a job leaves it when it ends). */
const RUNNING_CACHE_SIZE = 100;

interface FinishedRun {
  tasks: number;
  elapsedSec: number;
  /** Null unless the run is complete (reached its playbook end) and has a time axis. */
  reference: PreparedReference | null;
}

async function readFinishedRun(jobId: number): Promise<FinishedRun> {
  const timeline = timelineFromEvents(await loadJobEvents(jobId));
  const lastEnd = Math.max(0, ...timeline.tasks.map((t) => t.end_sec));
  return {
    tasks: timeline.tasks.length,
    elapsedSec: timeline.total_sec ?? lastEnd,
    reference: timeline.total_sec === null ? null : prepareReference(timeline),
  };
}

/** What a finished job's events say, from memory unless it changed since. */
const finished = new FinishedJobCache(FINISHED_CACHE_SIZE, readFinishedRun);

/** The form's last complete successful runs of the same kind (run-kind.ts) before job `jobId`, newest first. */
async function referencesBefore(form: string, jobId: number): Promise<{ id: number; reference: PreparedReference }[]> {
  const out: { id: number; reference: PreparedReference }[] = [];
  const runKey = await runKeyOfJob(jobId);
  if (runKey === null) return out;
  for (const job of await listSuccessfulRunsOfFormBefore(form, jobId, REFERENCE_LOOKBACK, runKey)) {
    const { reference } = await finished.get(job.id, job.lastSeq);
    if (reference) out.push({ id: job.id, reference });
    if (out.length === PROGRESS_REFERENCE_RUNS) break;
  }
  return out;
}

interface Following {
  afterSeq: number;
  tracker: TaskStartTracker;
  /** When the chunk with the latest events was stored (app clock, ms); null before any. */
  lastStoredAt: number | null;
  inflight: Promise<void> | null;
}

const running = new Lru<number, Following>(RUNNING_CACHE_SIZE);

async function catchUp(jobId: number, state: Following): Promise<void> {
  for (const chunk of await listEventChunksAfter(jobId, state.afterSeq)) {
    const events: PlayformEvent[] = [];
    for (const raw of chunk.events) {
      const parsed = parsePlayformEvent(raw);
      if (parsed.kind === "event") events.push(parsed.event);
    }
    state.tracker.feed(events);
    state.afterSeq = chunk.seq;
    if (events.length > 0) state.lastStoredAt = chunk.storedAt.getTime();
  }
}

/** The running job's task starts, up to date: only chunks stored since the last look are read. */
async function followed(jobId: number): Promise<Following> {
  let state = running.get(jobId);
  if (!state) {
    state = { afterSeq: 0, tracker: new TaskStartTracker(), lastStoredAt: null, inflight: null };
    running.set(jobId, state);
  }
  if (!state.inflight) {
    const s = state;
    s.inflight = catchUp(jobId, s).finally(() => {
      s.inflight = null;
    });
  }
  await state.inflight;
  return state;
}

interface ProgressState {
  id: number;
  formName: string;
  status: JobStatus;
  lastSeq: number;
  startedAt: Date | null;
}

async function progressFrom(job: ProgressState, now: number): Promise<JobProgress> {
  if (isFinalStatus(job.status)) {
    running.delete(job.id);
    const run = await finished.get(job.id, job.lastSeq);
    return { job: job.id, status: job.status, ...finishedProgress(run.tasks, run.elapsedSec), references: [] };
  }
  const [state, references] = await Promise.all([followed(job.id), referencesBefore(job.formName, job.id)]);
  const tracker = state.tracker;
  // Time since the first task: the events' own clock up to the last event, then the app's
  // clock since that event was stored (the runner's clock may differ from the app's).
  const sinceStored = state.lastStoredAt === null ? 0 : Math.max(0, now - state.lastStoredAt) / 1000;
  let elapsed = tracker.startedAt === null ? 0 : tracker.eventSpan + sinceStored;
  const sinceStart = job.startedAt === null ? 0 : Math.max(0, now - job.startedAt.getTime()) / 1000;
  if (state.lastStoredAt === null && sinceStart > NO_EVENTS_GRACE_SEC) elapsed = sinceStart;
  const estimate = estimateProgress(
    references.map((r) => r.reference),
    { tasks: tracker.tasks(), elapsed_sec: elapsed },
  );
  return { job: job.id, status: job.status, ...estimate, references: references.map((r) => r.id) };
}

/** The progress of one job (the caller checked the reader may see it); 404 when there is none. */
export async function progressOfJob(jobId: number): Promise<JobProgress> {
  const [job] = await listJobProgressStates([jobId], ALL_JOBS, false);
  if (!job) throw new DomainError("not_found", `no job ${jobId}`);
  return progressFrom(job, Date.now());
}

/**
 * The progress of each of these jobs that exists and the reader may see (`scope`), in the order
 * asked (the job list's running rows). Previews are left out, as the list leaves them out.
 */
export async function progressOfJobs(jobIds: readonly number[], scope: JobScope): Promise<JobProgress[]> {
  const jobs = new Map((await listJobProgressStates(jobIds, scope, true)).map((j) => [j.id, j]));
  const now = Date.now();
  const out: JobProgress[] = [];
  for (const id of new Set(jobIds)) {
    const job = jobs.get(id);
    if (job) out.push(await progressFrom(job, now));
  }
  return out;
}
