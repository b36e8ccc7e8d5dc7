import path from "node:path";
import { scopeWhere, type JobScope } from "./job-scope";
import { getDb } from "./db";
import type { RunOptions } from "../forms/run-options";
import type { ManifestEntry } from "../protocol/rte-messages";
import { jobEnvironmentSchema, jobPlanViewSchema, type JobEnvironment, type JobPlanView } from "../protocol/ui-messages";

/** The statuses a job can be stored with; which moves between them are allowed is server/jobs/lifecycle.ts. */
export type JobStatus = "approval" | "queued" | "running" | "success" | "failed" | "aborted" | "abandoned" | "rejected";

export interface JobView {
  id: number;
  form: string;
  status: JobStatus;
  statusReason: string | null;
  exitCode: number | null;
  runner: string | null;
  /** The environment it was dispatched to run in, with its versions; null before that (or before environments). */
  environment: JobEnvironment | null;
  user: string;
  values: Record<string, unknown>;
  /** Run options chosen at launch ({} when the form's own settings applied). */
  runOptions: RunOptions;
  abortRequested: boolean;
  /** Who approved or rejected the job (forms that require approval). */
  decidedBy: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  lastSeq: number;
  lines: number;
  /** The job this one repeats (Run again), if any. */
  relaunchOf: number | null;
  /** When retention removed the job's output (ISO 8601); null while it is kept. */
  outputPurgedAt: string | null;
  /** The runner cut a stream of the output at PROCESS_MAX_BUFFER: the stored output is partial. */
  outputTruncated: boolean;
  /** The Git source and commit the job's files came from (server/sources); null for the forms folder. */
  source: { name: string; commit: string } | null;
  /** What launched the job when no person did: a schedule (server/schedules). */
  launchedBy: { schedule: number } | null;
  /** A drift check (a schedule in drift mode, server/recap/drift.ts). */
  drift: boolean;
  /** What the job runs, frozen at launch (server/jobs/plan.ts); null for jobs launched before plans. */
  plan: JobPlanView | null;
}

/** The relations a JobView needs (server/data/job-list.ts reads jobs the same way). */
export const jobInclude = { runner: { select: { name: true } }, user: { select: { username: true } } } as const;

type JobRow = {
  id: number;
  formName: string;
  status: JobStatus;
  statusReason: string | null;
  exitCode: number | null;
  values: unknown;
  runOptions: unknown;
  abortRequested: boolean;
  decidedBy: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  lastSeq: number;
  lines: number;
  relaunchOfId: number | null;
  outputPurgedAt: Date | null;
  outputTruncated: boolean;
  sourceName: string | null;
  sourceCommit: string | null;
  scheduleId: number | null;
  drift: boolean;
  plan: unknown;
  environment: unknown;
  runner: { name: string } | null;
  user: { username: string };
};

/** The shown part of a stored plan (the stored one also holds the form definition and folder). */
function planViewOf(plan: unknown): JobPlanView | null {
  if (plan === null || plan === undefined) return null;
  const parsed = jobPlanViewSchema.safeParse(plan);
  return parsed.success ? parsed.data : null;
}

export function toView(row: JobRow): JobView {
  return {
    id: row.id,
    form: row.formName,
    status: row.status,
    statusReason: row.statusReason,
    exitCode: row.exitCode,
    runner: row.runner?.name ?? null,
    environment: jobEnvironmentSchema.nullable().catch(null).parse(row.environment ?? null),
    user: row.user.username,
    values: (row.values ?? {}) as Record<string, unknown>,
    runOptions: (row.runOptions ?? {}) as RunOptions,
    abortRequested: row.abortRequested,
    decidedBy: row.decidedBy,
    createdAt: row.createdAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    finishedAt: row.finishedAt?.toISOString() ?? null,
    lastSeq: row.lastSeq,
    lines: row.lines,
    relaunchOf: row.relaunchOfId,
    outputPurgedAt: row.outputPurgedAt?.toISOString() ?? null,
    outputTruncated: row.outputTruncated,
    source: row.sourceName && row.sourceCommit ? { name: row.sourceName, commit: row.sourceCommit } : null,
    launchedBy: row.scheduleId === null ? null : { schedule: row.scheduleId },
    drift: row.drift,
    plan: planViewOf(row.plan),
  };
}

export interface NewJob {
  formId: string;
  formName: string;
  userId: string;
  runnerId: string | null;
  values: Record<string, unknown>;
  /** Extravars without the password fields' values. */
  extravars: Record<string, unknown>;
  /** The password fields' extravars: stored only sealed (see createJob). */
  secretExtravars?: Record<string, unknown>;
  manifest: ManifestEntry[];
  runOptions: RunOptions;
  /** "run" when not given. */
  kind?: JobKind;
  /** The job this one repeats (Run again). */
  relaunchOfId?: number | null;
  /** The Git source and commit of the form's files at launch. */
  sourceName?: string | null;
  sourceCommit?: string | null;
  /** The schedule that launched it. */
  scheduleId?: number | null;
  /** A drift check (server/recap/drift.ts). */
  drift?: boolean;
  /** What it runs, frozen now (server/jobs/plan.ts); launches always give one. */
  plan?: unknown;
  /** What the run is comparable with (server/jobs/run-kind.ts); null for a preview. */
  runKey?: string | null;
  /** The launch's Idempotency-Key and the hash of what it asked for (unique per user: server/jobs/launch.ts). */
  idempotencyKey?: string | null;
  idempotencyHash?: string | null;
}

/**
 * "run": the playbook runs. "preview": `ansible-playbook --list-tasks --list-tags` (the form
 * page's Preview), kept out of the job list, progress, trends and comparisons: every query that
 * serves those filters on RUN_KIND.
 */
export type JobKind = "run" | "preview";
export const RUN_KIND = "run" satisfies JobKind;

/**
 * Stores a new job. Its password extravars are stored only as `seal` turns them into (sealed
 * with the new job's id, which is why the insert and the update are one transaction): the
 * plain values never reach the database, not even for a moment.
 */
export async function createJob(
  input: NewJob & { status: JobStatus; statusReason: string | null; queuedAt: Date | null },
  seal?: (jobId: number, secrets: Record<string, unknown>) => string,
): Promise<number> {
  const data = {
    formId: input.formId,
    formName: input.formName,
    userId: input.userId,
    runnerId: input.runnerId,
    status: input.status,
    statusReason: input.statusReason,
    queuedAt: input.queuedAt,
    values: input.values as object,
    extravars: input.extravars as object,
    manifest: input.manifest as object[],
    runOptions: input.runOptions as object,
    kind: input.kind ?? RUN_KIND,
    relaunchOfId: input.relaunchOfId ?? null,
    sourceName: input.sourceName ?? null,
    sourceCommit: input.sourceCommit ?? null,
    scheduleId: input.scheduleId ?? null,
    drift: input.drift ?? false,
    ...(input.plan === undefined ? {} : { plan: input.plan as object }),
    runKey: input.runKey ?? null,
    idempotencyKey: input.idempotencyKey ?? null,
    idempotencyHash: input.idempotencyHash ?? null,
    // A new job's chunks are numbered by line as they are stored (server/data/job-output.ts).
    outputIndexed: true,
  };
  const secrets = input.secretExtravars ?? {};
  if (Object.keys(secrets).length === 0) return (await getDb().job.create({ data, select: { id: true } })).id;
  if (!seal) throw new Error("a job's password values are stored sealed, and no seal was given");
  return getDb().$transaction(async (tx) => {
    const { id } = await tx.job.create({ data, select: { id: true } });
    await tx.job.update({ where: { id }, data: { secretExtravars: seal(id, secrets) } });
    return id;
  });
}

/** The job a user launched with an Idempotency-Key, if any: its id, when, and the hash of what it asked for. */
export async function findJobByIdempotencyKey(
  userId: string,
  key: string,
): Promise<{ id: number; createdAt: Date; idempotencyHash: string | null } | null> {
  return getDb().job.findUnique({
    where: { userId_idempotencyKey: { userId, idempotencyKey: key } },
    select: { id: true, createdAt: true, idempotencyHash: true },
  });
}

/**
 * Frees an expired Idempotency-Key for a new launch: only while the job still holds it and was
 * created before `before` (two requests freeing it at once both succeed harmlessly).
 */
export async function releaseIdempotencyKey(id: number, before: Date): Promise<void> {
  await getDb().job.updateMany({ where: { id, createdAt: { lt: before } }, data: { idempotencyKey: null, idempotencyHash: null } });
}

/** Jobs that may still run (waiting, queued, running), with what they hold of their extravars. */
export async function findUnfinishedJobExtravars(): Promise<
  {
    id: number;
    status: JobStatus;
    extravars: Record<string, unknown>;
    secretExtravars: string | null;
    formDefinition: unknown;
  }[]
> {
  const rows = await getDb().job.findMany({
    where: { status: { in: ["approval", "queued", "running"] } },
    select: { id: true, status: true, extravars: true, secretExtravars: true, form: { select: { definition: true } } },
  });
  return rows.map((r) => ({
    id: r.id,
    status: r.status,
    extravars: (r.extravars ?? {}) as Record<string, unknown>,
    secretExtravars: r.secretExtravars,
    formDefinition: r.form.definition,
  }));
}

/** Replaces a job's extravars and sealed password extravars while its status is still `whileStatus`. */
export async function replaceJobExtravars(
  jobId: number,
  whileStatus: JobStatus,
  extravars: Record<string, unknown>,
  secretExtravars: string | null,
): Promise<boolean> {
  const result = await getDb().job.updateMany({
    where: { id: jobId, status: whileStatus },
    data: { extravars: extravars as object, secretExtravars },
  });
  return result.count > 0;
}

export async function getJobView(id: number): Promise<JobView | null> {
  const row = await getDb().job.findUnique({ where: { id }, include: jobInclude });
  return row ? toView(row) : null;
}

/** The job's kind ("run" or "preview"), or null when there is no such job. */
export async function getJobKind(id: number): Promise<JobKind | null> {
  const row = await getDb().job.findUnique({ where: { id }, select: { kind: true } });
  return row ? (row.kind === "preview" ? "preview" : RUN_KIND) : null;
}

export async function getJobForDispatch(id: number) {
  const row = await getDb().job.findUnique({ where: { id }, include: { form: true, runner: { select: { name: true } } } });
  return row ? atItsCommit(row) : null;
}

/**
 * A job of a Git source reads its files from the checkout of the commit it was launched at
 * (`<cache>/<source>/<commit>/…`, immutable), not the form's current one: a sync between launch
 * and dispatch must not change what it runs (server/sources/sync.ts keeps those checkouts).
 */
function atItsCommit<T extends { sourceCommit: string | null; form: { sourceDir: string; sourceCommit: string | null } }>(row: T): T {
  const { sourceCommit } = row;
  const formCommit = row.form.sourceCommit;
  if (!sourceCommit || !formCommit || sourceCommit === formCommit) return row;
  const marker = `${path.sep}${formCommit}${path.sep}`;
  const at = row.form.sourceDir.lastIndexOf(marker);
  if (at < 0) return row;
  const sourceDir = `${row.form.sourceDir.slice(0, at)}${path.sep}${sourceCommit}${path.sep}${row.form.sourceDir.slice(at + marker.length)}`;
  return { ...row, form: { ...row.form, sourceDir } };
}

/** A job row with its form: what the dispatcher needs to build a dispatch message. */
export type JobWithForm = NonNullable<Awaited<ReturnType<typeof getJobForDispatch>>>;

/** Where a job is: its runner, the instance it was dispatched to, its status. */
export interface JobPlacement {
  id: number;
  runnerId: string | null;
  instanceId: string | null;
  status: JobStatus;
  /** Whether the runner's end item is stored (the runner, not the app, ended the job). */
  endStored: boolean;
}

export async function findJobPlacements(ids: readonly number[]): Promise<JobPlacement[]> {
  if (ids.length === 0) return [];
  const rows = await getDb().job.findMany({
    where: { id: { in: [...ids] } },
    select: { id: true, runnerId: true, instanceId: true, status: true, _count: { select: { chunks: { where: { kind: "end" } } } } },
  });
  return rows.map((r) => ({ id: r.id, runnerId: r.runnerId, instanceId: r.instanceId, status: r.status, endStored: r._count.chunks > 0 }));
}

/** Queued jobs no node has taken yet and nobody asked to abort, oldest first. */
export async function listJobsToDispatch(limit: number): Promise<JobWithForm[]> {
  const rows = await getDb().job.findMany({
    where: { status: "queued", dispatchedAt: null, abortRequested: false, runnerId: { not: null } },
    orderBy: { id: "asc" },
    take: limit,
    include: { form: true, runner: { select: { name: true } } },
  });
  return rows.map(atItsCommit);
}

/** Ids of queued jobs someone asked to abort, whether a dispatch of theirs is unanswered or not. */
export async function listQueuedJobsToAbort(): Promise<number[]> {
  const rows = await getDb().job.findMany({ where: { status: "queued", abortRequested: true }, select: { id: true } });
  return rows.map((r) => r.id);
}

/**
 * Ids of queued jobs that joined the queue before `cutoff`, dispatched or not: a dispatch that
 * is never answered must not stop the queue timeout.
 */
export async function listJobsQueuedBefore(cutoff: Date): Promise<number[]> {
  const rows = await getDb().job.findMany({
    where: { status: "queued", queuedAt: { lt: cutoff } },
    select: { id: true },
  });
  return rows.map((r) => r.id);
}

/**
 * Takes a queued job for one runner instance: only one node wins, because only a job still
 * queued, not dispatched and not being aborted is updated. Returns the dispatch time when this
 * call took it, else null.
 */
export async function markJobDispatched(jobId: number, instanceId: string, environment?: JobEnvironment): Promise<Date | null> {
  const dispatchedAt = new Date();
  const result = await getDb().job.updateMany({
    where: { id: jobId, status: "queued", dispatchedAt: null, abortRequested: false },
    // The environment it is sent to run in, with that instance's versions: what it ran in once claimed.
    data: { dispatchedAt, instanceId, statusReason: null, ...(environment ? { environment } : {}) },
  });
  return result.count > 0 ? dispatchedAt : null;
}

/**
 * Undoes one markJobDispatched for a job still queued (its claim was refused or unanswered):
 * only that dispatch, so a later one (by another node, after the unanswered-dispatch rule put
 * the job back) stays as it is.
 */
export async function returnJobToQueue(jobId: number, dispatch: { instanceId: string; dispatchedAt: Date }): Promise<void> {
  await getDb().job.updateMany({
    where: { id: jobId, status: "queued", instanceId: dispatch.instanceId, dispatchedAt: dispatch.dispatchedAt },
    data: { dispatchedAt: null, instanceId: null },
  });
}

/**
 * Puts back in the queue every job whose dispatch, sent before `before`, was never answered:
 * it is still queued (a claim moves it to running). Any node may do it, and only a dispatch
 * older than `before` is undone (a conditional update), so a fresh one never is.
 */
export async function returnUnansweredDispatches(before: Date): Promise<{ id: number; instanceId: string | null }[]> {
  const db = getDb();
  const stale = await db.job.findMany({
    where: { status: "queued", dispatchedAt: { lt: before } },
    select: { id: true, instanceId: true },
  });
  const returned: { id: number; instanceId: string | null }[] = [];
  for (const job of stale) {
    const result = await db.job.updateMany({
      where: { id: job.id, status: "queued", dispatchedAt: { lt: before } },
      data: { dispatchedAt: null, instanceId: null },
    });
    if (result.count > 0) returned.push(job);
  }
  return returned;
}

/** Sets why a queued job waits; returns false when it is no longer queued. */
export async function setQueuedJobReason(jobId: number, reason: string): Promise<boolean> {
  const result = await getDb().job.updateMany({ where: { id: jobId, status: "queued" }, data: { statusReason: reason } });
  return result.count > 0;
}

/** Running jobs someone asked to abort, with where they run. */
export async function listRunningJobsToCancel(): Promise<{ id: number; runnerId: string | null; instanceId: string | null }[]> {
  return getDb().job.findMany({
    where: { abortRequested: true, status: "running" },
    select: { id: true, runnerId: true, instanceId: true },
  });
}

/** Ids of the jobs running on one runner instance (dispatched before `dispatchedBefore`, when given). */
export async function listRunningJobsOnInstance(runnerId: string, instanceId: string, dispatchedBefore?: Date): Promise<number[]> {
  const rows = await getDb().job.findMany({
    where: {
      status: "running",
      runnerId,
      instanceId,
      ...(dispatchedBefore ? { dispatchedAt: { lt: dispatchedBefore } } : {}),
    },
    select: { id: true },
  });
  return rows.map((r) => r.id);
}

/**
 * The latest run (not a preview) of a form, launched before `beforeId`, whose status is one of
 * `statuses`, of the kind `runKey` (server/jobs/run-kind.ts).
 */
export async function findLatestJobOfFormBefore(
  formName: string,
  beforeId: number,
  statuses: readonly JobStatus[],
  scope: JobScope,
  runKey: string,
): Promise<number | null> {
  const row = await getDb().job.findFirst({
    where: { AND: [{ formName, runKey, kind: RUN_KIND, id: { lt: beforeId }, status: { in: [...statuses] } }, scopeWhere(scope)] },
    orderBy: { id: "desc" },
    select: { id: true },
  });
  return row?.id ?? null;
}

/** The last `limit` runs (not previews) of a form of the kind `runKey` whose status is one of `statuses`, newest first. */
export async function listLatestJobsOfForm(
  formName: string,
  statuses: readonly JobStatus[],
  limit: number,
  scope: JobScope,
  runKey: string,
): Promise<{ id: number; status: JobStatus; startedAt: Date | null; finishedAt: Date | null; lastSeq: number; environment: JobEnvironment | null }[]> {
  const rows = await getDb().job.findMany({
    where: { AND: [{ formName, runKey, kind: RUN_KIND, status: { in: [...statuses] } }, scopeWhere(scope)] },
    orderBy: { id: "desc" },
    take: limit,
    select: { id: true, status: true, startedAt: true, finishedAt: true, lastSeq: true, environment: true },
  });
  return rows.map((row) => ({ ...row, environment: jobEnvironmentSchema.nullable().catch(null).parse(row.environment ?? null) }));
}

/**
 * The last `limit` successful runs (not previews) of a form before job `beforeId`, newest first, with the seq
 * of their last stored item (a late item changes it, so what was derived from them is stale).
 */
export async function listSuccessfulRunsOfFormBefore(
  formName: string,
  beforeId: number,
  limit: number,
  runKey: string,
): Promise<{ id: number; lastSeq: number }[]> {
  return getDb().job.findMany({
    where: { formName, runKey, kind: RUN_KIND, id: { lt: beforeId }, status: "success" },
    orderBy: { id: "desc" },
    take: limit,
    select: { id: true, lastSeq: true },
  });
}

/**
 * Status, form and last stored seq of jobs (those that exist), for the progress of a job or of
 * the job list's rows (`runsOnly`: previews left out, as the list leaves them out).
 */
export async function listJobProgressStates(
  ids: readonly number[],
  scope: JobScope,
  runsOnly: boolean,
): Promise<{ id: number; formName: string; status: JobStatus; lastSeq: number; startedAt: Date | null; finishedAt: Date | null }[]> {
  return getDb().job.findMany({
    where: { AND: [{ id: { in: [...ids] }, ...(runsOnly ? { kind: RUN_KIND } : {}) }, scopeWhere(scope)] },
    select: { id: true, formName: true, status: true, lastSeq: true, startedAt: true, finishedAt: true },
  });
}

/** A job's status and cached recap (see jobs/recap-cache.ts), or null when there is no such job. */
export async function findCachedRecap(
  jobId: number,
): Promise<{ status: JobStatus; recap: unknown; recapSource: string | null; outputPurgedAt: Date | null } | null> {
  return getDb().job.findUnique({ where: { id: jobId }, select: { status: true, recap: true, recapSource: true, outputPurgedAt: true } });
}

/** What retention kept of a job's artifacts when it removed the output (Job.artifacts), or null. */
export async function findKeptArtifacts(jobId: number): Promise<unknown> {
  return (await getDb().job.findUnique({ where: { id: jobId }, select: { artifacts: true } }))?.artifacts ?? null;
}

/** Keeps a finished job's artifacts before retention removes the events they are read from. */
export async function storeKeptArtifacts(jobId: number, artifacts: object): Promise<void> {
  await getDb().job.update({ where: { id: jobId }, data: { artifacts } });
}

/** Caches a job's recap, unless its status changed since it was read as `whileStatus`. */
export async function storeCachedRecap(jobId: number, whileStatus: JobStatus, recap: object, source: string): Promise<void> {
  await getDb().job.updateMany({ where: { id: jobId, status: whileStatus }, data: { recap, recapSource: source } });
}

export interface JobTransitionFields {
  /** Erases the sealed password extravars (a job that runs or ended needs them no more). */
  secretExtravars?: null;
  statusReason?: string | null;
  exitCode?: number | null;
  queuedAt?: Date;
  startedAt?: Date;
  finishedAt?: Date;
  decidedBy?: string;
  decidedAt?: Date;
  /** The runner's end said a stream of the output was cut at PROCESS_MAX_BUFFER. */
  outputTruncated?: boolean;
}

/**
 * Moves a job to status `to` if its status is still one of `from`, in one conditional update:
 * of two racing changes exactly one applies. Returns whether this one did. Which moves are
 * allowed is the job lifecycle's business (server/jobs/lifecycle.ts), not storage's.
 */
export async function transitionJob(
  jobId: number,
  from: readonly JobStatus[],
  to: JobStatus,
  fields: JobTransitionFields = {},
  /** Only while the job is dispatched to this instance. */
  onInstance?: string,
): Promise<boolean> {
  const result = await getDb().job.updateMany({
    where: { id: jobId, status: { in: [...from] }, ...(onInstance !== undefined ? { instanceId: onInstance } : {}) },
    data: { ...fields, status: to },
  });
  return result.count > 0;
}

/** Sets a job's abort flag if its status is one of `whileIn`; returns whether it did. */
export async function markAbortRequested(jobId: number, whileIn: readonly JobStatus[]): Promise<boolean> {
  const result = await getDb().job.updateMany({ where: { id: jobId, status: { in: [...whileIn] } }, data: { abortRequested: true } });
  return result.count > 0;
}

/** Records when a running job's playbook started; returns false when it is not running. */
export async function setRunningJobStartedAt(jobId: number, at: Date): Promise<boolean> {
  const result = await getDb().job.updateMany({ where: { id: jobId, status: "running" }, data: { startedAt: at } });
  return result.count > 0;
}

/**
 * How many jobs are in each status (statuses without jobs are left out): one grouped count,
 * which the status index answers without reading the jobs. For the metrics' scrape.
 */
export async function countJobsByStatus(): Promise<Partial<Record<JobStatus, number>>> {
  const rows = await getDb().job.groupBy({ by: ["status"], _count: { _all: true } });
  return Object.fromEntries(rows.map((row) => [row.status, row._count._all]));
}

/** When the job that has waited longest in the queue joined it; null with an empty queue. */
export async function oldestQueuedAt(): Promise<Date | null> {
  const job = await getDb().job.findFirst({
    where: { status: "queued", queuedAt: { not: null } },
    orderBy: { queuedAt: "asc" },
    select: { queuedAt: true },
  });
  return job?.queuedAt ?? null;
}

/** When a job joined the queue (null: no such job, or it never did). */
export async function findJobQueuedAt(jobId: number): Promise<Date | null> {
  const job = await getDb().job.findUnique({ where: { id: jobId }, select: { queuedAt: true } });
  return job?.queuedAt ?? null;
}

/** A run's kind (server/jobs/run-kind.ts) and what it is computed from. */
export interface RunKeyFacts {
  id: number;
  formName: string;
  runKey: string | null;
  plan: unknown;
  runOptions: unknown;
  manifest: unknown;
  form: { definition: unknown; sourceDir: string };
}

/** A run's key and plan (null: no such job, or a preview). */
export async function getRunKeyFacts(id: number): Promise<RunKeyFacts | null> {
  const row = await getDb().job.findFirst({
    where: { id, kind: RUN_KIND },
    select: { id: true, formName: true, runKey: true, plan: true, runOptions: true, manifest: true, form: { select: { definition: true, sourceDir: true } } },
  });
  return row;
}

/** Runs stored before run keys existed (runKey null), the oldest first, at most `limit`, after id `afterId`. */
export async function listRunsWithoutRunKey(afterId: number, limit: number): Promise<RunKeyFacts[]> {
  return getDb().job.findMany({
    where: { kind: RUN_KIND, runKey: null, id: { gt: afterId } },
    orderBy: { id: "asc" },
    take: limit,
    select: { id: true, formName: true, runKey: true, plan: true, runOptions: true, manifest: true, form: { select: { definition: true, sourceDir: true } } },
  });
}

/** Stores the run keys found for runs that had none (a key set meanwhile is kept). */
export async function setRunKeys(keys: readonly { id: number; runKey: string }[]): Promise<void> {
  if (keys.length === 0) return;
  await getDb().$transaction(keys.map(({ id, runKey }) => getDb().job.updateMany({ where: { id, runKey: null }, data: { runKey } })));
}
