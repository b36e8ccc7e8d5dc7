/**
 * The job list: one page of jobs, filtered, in order of creation, paged by an opaque cursor.
 *
 * Paging is by key, not by offset: a cursor holds the (createdAt, id) of the row a page ended
 * on, and the next page is the rows past it in the sort order. So page 2,000 costs what page 1
 * costs (an index range from the cursor on, never 100,000 rows skipped), and jobs launched
 * while someone pages neither repeat rows nor push them onto the next page: a row's key never
 * changes, and new jobs sort before the first page (newest first) or after the last (oldest
 * first). `id` breaks ties between jobs created in the same millisecond.
 *
 * The indexes that keep every answer fast (schema.prisma, Job): (createdAt, id) for the
 * unfiltered list and date ranges, and (status | formName | userId | runnerId, createdAt, id)
 * for each filter; combined filters walk the most selective of them. The API's parameters,
 * checked: server/api/job-list-query.ts; the contract: docs/api.md, "Jobs".
 *
 * Previews (kind "preview", the form page's Preview) are not in the list: `kind = 'run'` is
 * checked on the rows each index walk reaches, not part of any index. Previews are a small
 * share of the jobs, so a page still stops after about `limit` rows of the index it walks.
 */
import { getDb } from "./db";
import { scopeWhere, type JobScope } from "./job-scope";
import type { Prisma } from "./generated/sqlite/client";
import { RUN_KIND, jobInclude, toView, type JobStatus, type JobView } from "./jobs";

/** `-created`: newest first (the default); `created`: oldest first. */
export const JOB_LIST_SORTS = ["-created", "created"] as const;
export type JobListSort = (typeof JOB_LIST_SORTS)[number];

export interface JobListFilter {
  /** Any of these statuses. */
  statuses?: readonly JobStatus[];
  /** The form's name (as stored with the job). */
  form?: string;
  /** The launching user's name. */
  user?: string;
  /** The runner's name. */
  runner?: string;
  /** createdAt >= from. */
  from?: Date;
  /** createdAt <= to. */
  to?: Date;
}

/**
 * A place in the list, made from a row of a page: `next` reads on from the row (the rows after
 * it in the sort order), `prev` reads back from it (the page before it).
 */
export interface JobListCursor {
  sort: JobListSort;
  direction: "next" | "prev";
  createdAt: Date;
  id: number;
}

export interface JobListQuery {
  filter: JobListFilter;
  sort: JobListSort;
  limit: number;
  cursor?: JobListCursor;
}

export interface JobPage {
  jobs: JobView[];
  /** The page after this one; null when this is the last. */
  nextCursor: string | null;
  /** The page before this one; null on the first page. */
  prevCursor: string | null;
}

// ---------------------------------------------------------------------------------------------
// Cursors: base64url of [version, sort, direction, createdAt in ms, id]. Opaque to clients, who
// pass back what they were given; anything else is refused, never guessed at.
const CURSOR_VERSION = 1;
const DIRECTION_CODES = { next: "n", prev: "p" } as const;
/** Far larger than any cursor this module writes; longer input is not decoded at all. */
const MAX_CURSOR_LENGTH = 200;
const MAX_ID = 2_147_483_647;

export function encodeJobListCursor(cursor: JobListCursor): string {
  const payload = [CURSOR_VERSION, cursor.sort, DIRECTION_CODES[cursor.direction], cursor.createdAt.getTime(), cursor.id];
  return Buffer.from(JSON.stringify(payload)).toString("base64url");
}

/** The cursor, or null when the text is not one this module wrote. */
export function decodeJobListCursor(text: string): JobListCursor | null {
  if (text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) return null;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  if (!Array.isArray(payload) || payload.length !== 5) return null;
  const [version, sort, direction, ms, id] = payload as unknown[];
  if (version !== CURSOR_VERSION) return null;
  if (!JOB_LIST_SORTS.includes(sort as JobListSort)) return null;
  if (direction !== "n" && direction !== "p") return null;
  if (!Number.isSafeInteger(ms) || !Number.isSafeInteger(id) || (id as number) < 1 || (id as number) > MAX_ID) return null;
  const createdAt = new Date(ms as number);
  if (Number.isNaN(createdAt.getTime())) return null;
  return { sort: sort as JobListSort, direction: direction === "n" ? "next" : "prev", createdAt, id: id as number };
}

type Position = { createdAt: Date; id: number };

function cursorAt(sort: JobListSort, direction: JobListCursor["direction"], row: Position): string {
  return encodeJobListCursor({ sort, direction, createdAt: row.createdAt, id: row.id });
}

// ---------------------------------------------------------------------------------------------

/** The filter as a where clause; null when it names a user or runner that does not exist (no job can match). */
async function filterWhere(filter: JobListFilter): Promise<Prisma.JobWhereInput | null> {
  const db = getDb();
  const [user, runner] = await Promise.all([
    filter.user === undefined ? undefined : db.user.findUnique({ where: { username: filter.user }, select: { id: true } }),
    filter.runner === undefined ? undefined : db.runner.findUnique({ where: { name: filter.runner }, select: { id: true } }),
  ]);
  if (user === null || runner === null) return null;
  const where: Prisma.JobWhereInput = { kind: RUN_KIND };
  const statuses = filter.statuses ?? [];
  if (statuses.length === 1) where.status = statuses[0];
  else if (statuses.length > 1) where.status = { in: [...statuses] };
  if (filter.form !== undefined) where.formName = filter.form;
  // By id, not through the relation: `userId = ?` walks the (userId, createdAt, id) index in order.
  if (user) where.userId = user.id;
  if (runner) where.runnerId = runner.id;
  if (filter.from || filter.to) where.createdAt = { gte: filter.from, lte: filter.to };
  return where;
}

/**
 * The rows strictly past `from` in the given order. Written as `createdAt <= c AND (createdAt
 * < c OR id < i)` (for descending order), not as the OR alone: the first term is an index range
 * both databases seek to, the second drops the few rows of the same millisecond already shown.
 */
function pastPosition(descending: boolean, from: Position): Prisma.JobWhereInput {
  const { createdAt, id } = from;
  return descending
    ? { AND: [{ createdAt: { lte: createdAt } }, { OR: [{ createdAt: { lt: createdAt } }, { id: { lt: id } }] }] }
    : { AND: [{ createdAt: { gte: createdAt } }, { OR: [{ createdAt: { gt: createdAt } }, { id: { gt: id } }] }] };
}

/**
 * The columns a JobView is made of and nothing more: a list has no use for a job's extravars,
 * manifest or cached recap (kilobytes each). A field added to JobView without being added here
 * fails to compile (toView's argument).
 */
const jobViewSelect = {
  id: true,
  formName: true,
  status: true,
  statusReason: true,
  exitCode: true,
  values: true,
  runOptions: true,
  abortRequested: true,
  decidedBy: true,
  createdAt: true,
  startedAt: true,
  finishedAt: true,
  lastSeq: true,
  lines: true,
  relaunchOfId: true,
  outputPurgedAt: true,
  outputTruncated: true,
  sourceName: true,
  sourceCommit: true,
  scheduleId: true,
  drift: true,
  plan: true,
  environment: true,
  ...jobInclude,
} as const satisfies Prisma.JobSelect;

async function findRows(where: Prisma.JobWhereInput, descending: boolean, take: number, from?: Position) {
  const order = descending ? "desc" : "asc";
  return getDb().job.findMany({
    where: from ? { AND: [where, pastPosition(descending, from)] } : where,
    orderBy: [{ createdAt: order }, { id: order }],
    take,
    select: jobViewSelect,
  });
}

/** One page of the job list (see the top of this file). */
export async function listJobPage(query: JobListQuery, scope: JobScope): Promise<JobPage> {
  const { filter, sort, limit, cursor } = query;
  const filtered = await filterWhere(filter);
  if (filtered === null) return { jobs: [], nextCursor: null, prevCursor: null };
  const where = scope.all ? filtered : { AND: [filtered, scopeWhere(scope)] };
  const newestFirst = sort === "-created";

  if (cursor?.direction === "prev") {
    // Read backwards from the cursor, one more row than a page to learn whether more precede it.
    const rows = await findRows(where, !newestFirst, limit + 1, cursor);
    if (rows.length > limit) {
      const page = rows.slice(0, limit).reverse();
      return {
        jobs: page.map(toView),
        nextCursor: cursorAt(sort, "next", page[page.length - 1]!),
        prevCursor: cursorAt(sort, "prev", page[0]!),
      };
    }
    // Less than a page before it: the page before is the first page, shown full.
  }

  const from = cursor?.direction === "next" ? cursor : undefined;
  const rows = await findRows(where, newestFirst, limit + 1, from);
  const page = rows.slice(0, limit);
  return {
    jobs: page.map(toView),
    nextCursor: rows.length > limit ? cursorAt(sort, "next", page[page.length - 1]!) : null,
    prevCursor: from && page.length > 0 ? cursorAt(sort, "prev", page[0]!) : null,
  };
}
