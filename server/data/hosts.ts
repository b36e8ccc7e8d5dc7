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
 */
import { databaseProvider, getDb } from "./db";
import type { Prisma } from "./generated/sqlite/client";
import type { JobStatus } from "./jobs";
import type { JobScope } from "./job-scope";
import { isUniqueViolation } from "./unique";

export interface HostRunCounts {
  ok: number;
  changed: number;
  unreachable: number;
  failed: number;
  skipped: number;
  rescued: number;
  ignored: number;
}

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
}

export async function findJobForHosts(jobId: number): Promise<JobForHosts | null> {
  return getDb().job.findUnique({
    where: { id: jobId },
    select: { id: true, kind: true, formName: true, userId: true, status: true, finishedAt: true, lastSeq: true },
  });
}

/**
 * Replaces the job's host rows with `rows` and marks its hosts recorded, unless the job moved
 * on since `job` was read (another status, more items): then nothing is written and the answer
 * is false. Two nodes writing the same job at once: one wins, the other's rows are the same.
 */
export async function replaceJobHosts(job: JobForHosts, finishedAt: Date, rows: readonly HostRunInput[], options: unknown): Promise<boolean> {
  try {
    return await getDb().$transaction(async (tx) => {
      const marked = await tx.job.updateMany({
        where: { id: job.id, status: job.status, lastSeq: job.lastSeq },
        data: { hostsRecorded: true },
      });
      if (marked.count === 0) return false;
      await tx.hostRun.deleteMany({ where: { jobId: job.id } });
      if (rows.length > 0) {
        await tx.hostRun.createMany({
          data: rows.map((row) => ({
            ...row,
            jobId: job.id,
            formName: job.formName,
            userId: job.userId,
            status: job.status,
            finishedAt,
            options: options === null ? undefined : (options as Prisma.InputJsonValue),
          })),
        });
      }
      return true;
    });
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}

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

function scopeOfRuns(scope: JobScope): Prisma.HostRunWhereInput {
  if (scope.all) return {};
  if (scope.formNames.length === 0) return { userId: scope.userId };
  return { OR: [{ userId: scope.userId }, { formName: { in: [...scope.formNames] } }] };
}

function nameContains(q: string): Prisma.StringFilter<"HostRun"> {
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
    const host: Prisma.StringFilter<"HostRun"> = { ...(literal ? nameContains(literal) : {}), ...(after !== undefined ? { gt: after } : {}) };
    const groups = await getDb().hostRun.groupBy({
      by: ["host"],
      where: { AND: [scopeOfRuns(scope), { host }] },
      orderBy: { host: "asc" },
      take: query.limit,
    });
    for (const { host: name } of groups) {
      if (name.toLowerCase().includes(needle)) names.push(name);
      if (names.length === query.limit) return names;
    }
    if (groups.length < query.limit) return names;
    after = groups[groups.length - 1]!.host;
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
