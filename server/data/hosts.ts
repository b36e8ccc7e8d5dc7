/**
 * Hosts as the runs saw them: one HostRun row per host of a finished run (schema.prisma), written
 * from the job's recap by server/jobs/hosts.ts, read by /api/hosts.
 *
 * - Written whole per job: a job's rows are replaced in one transaction, together with the job's
 *   `hostsRecorded` flag, and only while the job's status and last stored item are still the
 *   ones its recap was read at (items arriving later clear the flag; the catch-up writes again).
 * - Read in the reader's scope (their own runs, the forms they observe, or all): a host seen only
 *   in jobs they may not read is not there for them. The scope is copied onto the rows (the job's
 *   launcher and form), so no read joins Job.
 * - Paged by key: the host list by name, a host's runs by (finishedAt, jobId) newest first.
 * - A drift check's rows also move its hosts' drift (HostDrift, server/jobs/drift.ts), in the
 *   same transaction.
 */
import { databaseProvider, getDb } from "./db";
import { Prisma } from "./generated/sqlite/client";
import type { JobStatus } from "./jobs";
import type { RecapHostRow } from "../recap/types";
import type { JobScope } from "./job-scope";
import { isUniqueViolation } from "./unique";
import { nextDriftState, type DriftState, type DriftTask } from "../recap/drift";

/** The PLAY RECAP counters of one host in one run. */
export type HostRunCounts = Omit<RecapHostRow, "host">;

export interface HostRunInput extends HostRunCounts {
  host: string;
  changedTasks: string[];
}

export interface StoredHostRun extends HostRunCounts {
  jobId: number;
  host: string;
  formName: string;
  status: string;
  finishedAt: Date;
  changedTasks: string[];
  options: unknown;
}

/** The job fields a host row copies, read with the state its recap was computed at. */
export interface JobForHosts {
  id: number;
  kind: string;
  formName: string;
  userId: string;
  status: JobStatus;
  finishedAt: Date | null;
  lastSeq: number;
  /** A drift check (server/jobs/drift.ts). */
  drift: boolean;
}

export async function findJobForHosts(jobId: number): Promise<JobForHosts | null> {
  return getDb().job.findUnique({
    where: { id: jobId },
    select: { id: true, kind: true, formName: true, userId: true, status: true, finishedAt: true, lastSeq: true, drift: true },
  });
}

/** What a drift check's hosts write also needs: each host's drift tasks, and whether the check ran to its end. */
export interface DriftInput {
  tasksByHost: ReadonlyMap<string, DriftTask[]>;
  complete: boolean;
}

/** What a write did: nothing (the job moved on), or the rows written, with the hosts a drift check found newly drifted. */
export interface HostsWrite {
  written: boolean;
  newlyDrifted: string[];
}

/**
 * Replaces the job's host rows with `rows`, adds their names to Host, and marks its hosts
 * recorded, unless the job moved on since `job` was read (another status, more items): then
 * nothing is written and the answer is false. Two nodes writing the same job, or runs with the
 * same new host, at once: the loser's unique violation is tried once more, when the winner's
 * rows are there.
 */
export async function replaceJobHosts(
  job: JobForHosts,
  finishedAt: Date,
  rows: readonly HostRunInput[],
  options: unknown,
  drift?: DriftInput,
): Promise<HostsWrite> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await writeJobHosts(job, finishedAt, rows, options, drift);
    } catch (error) {
      if (!isUniqueViolation(error) || attempt === 2) throw error;
    }
  }
}

async function writeJobHosts(
  job: JobForHosts,
  finishedAt: Date,
  rows: readonly HostRunInput[],
  options: unknown,
  drift: DriftInput | undefined,
): Promise<HostsWrite> {
  return getDb().$transaction(async (tx) => {
    const marked = await tx.job.updateMany({
      where: { id: job.id, status: job.status, lastSeq: job.lastSeq },
      data: { hostsRecorded: true },
    });
    if (marked.count === 0) return { written: false, newlyDrifted: [] };
    const newlyDrifted: string[] = [];
    await tx.hostRun.deleteMany({ where: { jobId: job.id } });
    for (let start = 0; start < rows.length; start += WRITE_BATCH) {
      const batch = rows.slice(start, start + WRITE_BATCH);
      const names = batch.map((row) => row.host);
      const known = new Set((await tx.host.findMany({ where: { name: { in: names } }, select: { name: true } })).map((h) => h.name));
      const fresh = names.filter((name) => !known.has(name));
      if (fresh.length > 0) await tx.host.createMany({ data: fresh.map((name) => ({ name })) });
      await tx.hostRun.createMany({
        data: batch.map((row) => ({
          ...row,
          jobId: job.id,
          formName: job.formName,
          userId: job.userId,
          status: job.status,
          finishedAt,
          options: options === null ? undefined : (options as Prisma.InputJsonValue),
        })),
      });
      if (job.drift && drift) newlyDrifted.push(...(await writeDrift(tx, job, finishedAt, batch, drift)));
    }
    return { written: true, newlyDrifted };
  });
}

type Tx = Parameters<Parameters<ReturnType<typeof getDb>["$transaction"]>[0]>[0];

/** Moves the drift of a check's hosts (server/jobs/drift.ts); returns the hosts it newly marks drifted. */
async function writeDrift(tx: Tx, job: JobForHosts, finishedAt: Date, rows: readonly HostRunInput[], drift: DriftInput): Promise<string[]> {
  const stored = await tx.hostDrift.findMany({ where: { formName: job.formName, host: { in: rows.map((row) => row.host) } } });
  const previous = new Map(stored.map((row) => [row.host, { ...row, tasks: (row.tasks ?? null) as DriftTask[] | null } satisfies DriftState]));
  const newly: string[] = [];
  for (const row of rows) {
    const before = previous.get(row.host) ?? null;
    const after = nextDriftState(before, {
      jobId: job.id,
      finishedAt,
      userId: job.userId,
      complete: drift.complete,
      changed: row.changed,
      failed: row.failed,
      unreachable: row.unreachable,
      tasks: drift.tasksByHost.get(row.host) ?? [],
    });
    if (!after) continue;
    if (after.sinceJobId === job.id && (before?.since == null || before.sinceJobId === job.id)) newly.push(row.host);
    const data = { ...after, tasks: after.tasks === null ? Prisma.DbNull : (after.tasks as unknown as Prisma.InputJsonValue) };
    await tx.hostDrift.upsert({
      where: { host_formName: { host: row.host, formName: job.formName } },
      create: { host: row.host, formName: job.formName, ...data },
      update: data,
    });
  }
  return newly;
}

/** Rows per statement: well under both databases' limits on bound values. */
const WRITE_BATCH = 500;

/** A job whose hosts are not worth keeping (a preview): marked recorded, with no rows. */
export async function markHostsRecorded(jobId: number): Promise<void> {
  await getDb().job.updateMany({ where: { id: jobId }, data: { hostsRecorded: true } });
}

/**
 * Finished jobs whose hosts are not recorded (the backfill, and jobs whose recap changed), by
 * id after `afterId`.
 */
export async function listJobsMissingHosts(finalStatuses: readonly JobStatus[], afterId: number, limit: number): Promise<number[]> {
  const rows = await getDb().job.findMany({
    where: { hostsRecorded: false, status: { in: [...finalStatuses] }, id: { gt: afterId } },
    select: { id: true },
    orderBy: { id: "asc" },
    take: limit,
  });
  return rows.map((row) => row.id);
}

/**
 * The reader's scope over rows that copy a job's launcher and form (HostRun, and HostDrift's
 * newest drifted check): the same filter serves both tables.
 */
function scopeOfRuns(scope: JobScope): Prisma.HostRunWhereInput & Prisma.HostDriftWhereInput {
  if (scope.all) return {};
  if (scope.formNames.length === 0) return { userId: scope.userId };
  return { OR: [{ userId: scope.userId }, { formName: { in: [...scope.formNames] } }] };
}

function nameContains(q: string): { contains: string } {
  // SQLite's LIKE folds ASCII case itself; PostgreSQL's needs to be asked.
  return (databaseProvider() === "postgresql" ? { contains: q, mode: "insensitive" } : { contains: q }) as { contains: string };
}

/**
 * Names of the hosts in the reader's scope, by name after `after`, at most `limit`; with `q`,
 * those containing it in any case (ASCII only on SQLite). LIKE would take `%` and `_` in `q` as
 * wildcards and Prisma does not escape them: the database is asked for the longest part of `q`
 * without them (a superset), and each name is checked here, reading on until the page is full.
 */
export async function listHostNames(scope: JobScope, query: { q?: string; after?: string; limit: number }): Promise<string[]> {
  const needle = query.q?.toLowerCase() ?? "";
  const literal = needle.split(/[%_\\]/).reduce((a, b) => (b.length > a.length ? b : a), "");
  const names: string[] = [];
  let after = query.after;
  for (;;) {
    const filter: { contains?: string; gt?: string } = { ...(literal ? nameContains(literal) : {}), ...(after !== undefined ? { gt: after } : {}) };
    // Every host (admins): the Host table, one row a name, not every run's row grouped.
    // A scope: the names of its runs, grouped (an index per scope column serves it).
    const batch = scope.all
      ? (await getDb().host.findMany({ where: { name: filter }, orderBy: { name: "asc" }, take: query.limit, select: { name: true } })).map(
          (host) => host.name,
        )
      : (
          await getDb().hostRun.groupBy({
            by: ["host"],
            where: { AND: [scopeOfRuns(scope), { host: filter }] },
            orderBy: { host: "asc" },
            take: query.limit,
          })
        ).map((group) => group.host);
    // A name without runs any more (its only run's recap changed) is left out by the caller.
    for (const name of batch) {
      if (name.toLowerCase().includes(needle)) names.push(name);
      if (names.length === query.limit) return names;
    }
    if (batch.length < query.limit) return names;
    after = batch[batch.length - 1]!;
  }
}

const RUN_SELECT = {
  jobId: true,
  host: true,
  formName: true,
  status: true,
  finishedAt: true,
  ok: true,
  changed: true,
  unreachable: true,
  failed: true,
  skipped: true,
  rescued: true,
  ignored: true,
  changedTasks: true,
  options: true,
} as const;

function toStored(row: Prisma.HostRunGetPayload<{ select: typeof RUN_SELECT }>): StoredHostRun {
  return { ...row, changedTasks: Array.isArray(row.changedTasks) ? (row.changedTasks as string[]) : [] };
}

/** The host's newest run in the reader's scope, or null when they see none. */
export async function latestHostRun(scope: JobScope, host: string): Promise<StoredHostRun | null> {
  const row = await getDb().hostRun.findFirst({
    where: { AND: [{ host }, scopeOfRuns(scope)] },
    orderBy: [{ finishedAt: "desc" }, { jobId: "desc" }],
    select: RUN_SELECT,
  });
  return row ? toStored(row) : null;
}

/**
 * The newest run in the reader's scope of each of `hosts` (a page of the host list), in two
 * queries whatever the page's size: each host's latest end (grouped, on the (host, finishedAt)
 * index), then the runs that ended then; of runs that ended at the same time, the highest job id,
 * as latestHostRun orders them. A host without a run in the scope is not in the answer.
 */
export async function latestHostRuns(scope: JobScope, hosts: readonly string[]): Promise<Map<string, StoredHostRun>> {
  const latest = new Map<string, StoredHostRun>();
  if (hosts.length === 0) return latest;
  const ends = await getDb().hostRun.groupBy({
    by: ["host"],
    where: { AND: [{ host: { in: [...hosts] } }, scopeOfRuns(scope)] },
    _max: { finishedAt: true },
  });
  const pairs = ends.filter((end) => end._max.finishedAt !== null).map((end) => ({ host: end.host, finishedAt: end._max.finishedAt! }));
  if (pairs.length === 0) return latest;
  const rows = await getDb().hostRun.findMany({
    where: { AND: [{ OR: pairs }, scopeOfRuns(scope)] },
    orderBy: [{ jobId: "desc" }],
    select: RUN_SELECT,
  });
  for (const row of rows) if (!latest.has(row.host)) latest.set(row.host, toStored(row));
  return latest;
}

/** Where a page of a host's runs ended: the next page is the runs before it. */
export interface HostRunPosition {
  finishedAt: Date;
  jobId: number;
}

/** The host's runs in the reader's scope, newest first, before `before`, at most `limit`. */
export async function listHostRuns(scope: JobScope, host: string, query: { before?: HostRunPosition; limit: number }): Promise<StoredHostRun[]> {
  const before = query.before;
  const rows = await getDb().hostRun.findMany({
    where: {
      AND: [
        { host },
        scopeOfRuns(scope),
        before
          ? { OR: [{ finishedAt: { lt: before.finishedAt } }, { finishedAt: before.finishedAt, jobId: { lt: before.jobId } }] }
          : {},
      ],
    },
    orderBy: [{ finishedAt: "desc" }, { jobId: "desc" }],
    take: query.limit,
    select: RUN_SELECT,
  });
  return rows.map(toStored);
}

/** A host's drift for one form, as stored (server/recap/drift.ts), when it is drifted. */
export interface StoredDrift {
  host: string;
  formName: string;
  since: Date;
  sinceJobId: number;
  jobId: number;
  tasks: DriftTask[];
}

/**
 * The drifts of `hosts` the reader may see: those whose newest check that found changes is a
 * job in their scope (its launcher, a form they observe). Newest check first.
 */
export async function listHostDrifts(scope: JobScope, hosts: readonly string[]): Promise<StoredDrift[]> {
  if (hosts.length === 0) return [];
  const rows = await getDb().hostDrift.findMany({
    where: { AND: [{ host: { in: [...hosts] }, since: { not: null } }, scopeOfRuns(scope)] },
    orderBy: [{ jobId: "desc" }],
  });
  return rows.map((row) => ({
    host: row.host,
    formName: row.formName,
    since: row.since!,
    sinceJobId: row.sinceJobId!,
    jobId: row.jobId!,
    tasks: Array.isArray(row.tasks) ? (row.tasks as unknown as DriftTask[]) : [],
  }));
}

/**
 * The first output line of each named task (or handler) in each job, from the jobs' task index
 * (JobMarker): `"<jobId>\u0000<name>"` → line. A job whose output retention removed has none.
 */
export async function firstTaskLines(tasks: readonly { jobId: number; names: readonly string[] }[]): Promise<Map<string, number>> {
  const wanted = tasks.filter((t) => t.names.length > 0);
  const lines = new Map<string, number>();
  if (wanted.length === 0) return lines;
  const markers = await getDb().jobMarker.findMany({
    where: {
      jobId: { in: wanted.map((t) => t.jobId) },
      kind: { in: ["task", "handler"] },
      name: { in: [...new Set(wanted.flatMap((t) => t.names))] },
    },
    orderBy: [{ line: "asc" }],
    select: { jobId: true, name: true, line: true },
  });
  for (const marker of markers) {
    const key = `${marker.jobId}\u0000${marker.name}`;
    if (!lines.has(key)) lines.set(key, marker.line);
  }
  return lines;
}
