/**
 * The job list at 100,000 jobs, on SQLite and on PostgreSQL.
 *
 * Fills a fresh, migrated database of each kind with JOBS jobs (bulk inserts; a year of
 * launches on weekdays and working hours, 40 forms and 300 users of very uneven activity, 12
 * runners, mostly successes), then times every filter and sort of the list (server/data/
 * job-list.ts, the code GET /api/jobs runs, in this process; no HTTP): page 1, page 100 read
 * through the cursor, the slowest of those 100 answers, and beside them the old way (newest 50
 * by id, deeper pages by OFFSET) with the same filter. Then it prints each query's plan
 * (EXPLAIN QUERY PLAN / EXPLAIN of the SQL Prisma ran for page 100). The PostgreSQL database
 * is analysed after the load (autovacuum would have done it); SQLite is not, as the app never
 * runs ANALYZE.
 *
 *   npm run bench:jobs [-- JOBS]      (PostgreSQL: test/support/postgres.ts, PLAYFORM_PG_URL or a throwaway cluster)
 */
import Database from "better-sqlite3";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlDriverAdapterFactory, SqlQuery, SqlResultSet } from "@prisma/driver-adapter-utils";
import pg from "pg";
import { closeDb, type Db } from "../../server/data/db";
import { PrismaClient as PostgresPrismaClient } from "../../server/data/generated/postgres/client";
import { PrismaClient as SqlitePrismaClient, type Prisma } from "../../server/data/generated/sqlite/client";
import {
  decodeJobListCursor,
  listJobPage,
  type JobListCursor,
  type JobListFilter,
  type JobListQuery,
  type JobListSort,
} from "../../server/data/job-list";
import { ALL_JOBS } from "../../server/data/job-scope";
import { applyMigrations } from "../../server/data/migrate";
import type { JobStatus } from "../../server/protocol/ui-messages";
import { insertForms, insertJobs, insertRunners, insertUsers, type JobRow } from "../support/job-rows";
import { startPostgres } from "../support/postgres";
import { generator, zipf } from "../support/seeded-random";

const JOBS = Number(process.argv[2] ?? 100_000);
const LIMIT = 50;
const RUNS = 7;
const BUDGET_MS = 200;

// ---------------------------------------------------------------------------------------------
// The data: deterministic (a seeded generator), so both databases hold the same jobs.
const pad = (n: number, width: number) => String(n).padStart(width, "0");
const FORMS = Array.from({ length: 40 }, (_, k) => ({ id: `form-id-${pad(k, 2)}`, name: `form-${pad(k, 2)}` }));
const USERS = Array.from({ length: 300 }, (_, k) => ({ id: `user-id-${pad(k, 3)}`, username: `user-${pad(k, 3)}` }));
// Activity that stopped: a form retired after the first two months, a busy user who left after
// three. A planner that assumes matches are spread evenly over time reads far for these.
const RETIRED_FORM = { id: "form-id-retired", name: "form-retired" };
const LEFT_USER = { id: "user-id-left", username: "user-left" };
FORMS.push(RETIRED_FORM);
USERS.push(LEFT_USER);
const RUNNERS = Array.from({ length: 12 }, (_, k) => ({ id: `runner-id-${pad(k, 2)}`, name: `runner-${pad(k, 2)}` }));
const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);
const YEAR_MS = 365 * 86_400_000;

function makeJobs(count: number): JobRow[] {
  const random = generator(20261130);
  const form = zipf(FORMS.length - 1, 1, random);
  const user = zipf(USERS.length - 1, 1.1, random);
  // Launch times: a year of them, mostly on weekdays in working hours (UTC).
  const times: number[] = [];
  while (times.length < count) {
    const t = NOW - Math.floor(random() * YEAR_MS);
    const d = new Date(t);
    const working = d.getUTCDay() >= 1 && d.getUTCDay() <= 5 && d.getUTCHours() >= 7 && d.getUTCHours() < 19;
    if (working || random() < 0.15) times.push(t);
  }
  times.sort((a, b) => a - b);
  const start = NOW - YEAR_MS;
  return times.map((t, i) => {
    let f = form();
    if (t < start + 60 * 86_400_000 && random() < 0.25) f = FORMS.length - 1;
    const fromEnd = count - i;
    let status: JobStatus;
    // The newest few are still waiting or running; the rest have ended.
    if (fromEnd <= 8) status = "running";
    else if (fromEnd <= 16) status = "queued";
    else {
      const r = random();
      status =
        r < 0.78 ? "success" : r < 0.9 ? "failed" : r < 0.95 ? "aborted" : r < 0.97 ? "abandoned" : r < 0.99 ? "rejected" : "approval";
    }
    const createdAt = new Date(t);
    const ran = !["queued", "approval", "rejected"].includes(status);
    const startedAt = ran ? new Date(t + 1000 + Math.floor(random() * 20_000)) : null;
    const finishedAt =
      startedAt && status !== "running" ? new Date(startedAt.getTime() + Math.floor(5_000 + random() ** 3 * 1_800_000)) : null;
    return {
      formId: FORMS[f]!.id,
      formName: FORMS[f]!.name,
      userId: t < start + 90 * 86_400_000 && random() < 0.2 ? LEFT_USER.id : USERS[user()]!.id,
      // Forms name their runner; a few jobs went to another one.
      runnerId: RUNNERS[random() < 0.95 ? f % RUNNERS.length : Math.floor(random() * RUNNERS.length)]!.id,
      status,
      createdAt,
      exitCode: status === "success" ? 0 : status === "failed" ? 2 : null,
      statusReason: status === "abandoned" ? "the runner stopped answering" : null,
      values: { target: `host-${Math.floor(random() * 500)}`, message: `run ${i}` },
      queuedAt: status === "approval" || status === "rejected" ? null : createdAt,
      startedAt,
      finishedAt,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// A Prisma client whose connection records the SQL it runs (for EXPLAIN), put where getDb()
// finds its client (server/data/db.ts keeps it on globalThis), so listJobPage uses it.
interface Recorder {
  queries: SqlQuery[];
  /** Runs a query on the recorded connection without recording it. */
  run?: (query: SqlQuery) => Promise<SqlResultSet>;
}

function recording(factory: SqlDriverAdapterFactory, recorder: Recorder): SqlDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => {
      const adapter = await factory.connect();
      const queryRaw = adapter.queryRaw.bind(adapter);
      recorder.run = queryRaw;
      adapter.queryRaw = (query) => {
        recorder.queries.push(query);
        return queryRaw(query);
      };
      return adapter;
    },
  };
}

function useClient(url: string, recorder: Recorder): Db {
  let db: Db;
  if (url.startsWith("file:")) {
    const setup = new Database(url.slice("file:".length));
    setup.pragma("journal_mode = WAL");
    setup.close();
    db = new SqlitePrismaClient({
      adapter: recording(new PrismaBetterSqlite3({ url: url.slice("file:".length), timeout: 15_000 }), recorder),
    });
  } else {
    db = new PostgresPrismaClient({ adapter: recording(new PrismaPg({ connectionString: url }), recorder) }) as unknown as Db;
  }
  process.env.DATABASE_URL = url;
  (globalThis as Record<symbol, unknown>)[Symbol.for("playform.db")] = { url, db };
  return db;
}

/** The plan of the job query recorded last, one line per step. */
async function planOfLastJobQuery(recorder: Recorder, sqlite: boolean): Promise<string[]> {
  const query = recorder.queries.filter((q) => /FROM [`"](main|public)[`"]\.[`"]Job[`"]/.test(q.sql) && /ORDER BY/.test(q.sql)).at(-1);
  if (!query || !recorder.run) return ["(no job query recorded)"];
  const result = await recorder.run({ ...query, sql: `${sqlite ? "EXPLAIN QUERY PLAN" : "EXPLAIN"} ${query.sql}` });
  return result.rows.map((row) => String(sqlite ? row[3] : row[0]));
}

// ---------------------------------------------------------------------------------------------
interface Case {
  name: string;
  filter: JobListFilter;
  sort?: JobListSort;
}

const day = (offsetDays: number) => new Date(NOW - offsetDays * 86_400_000);
const CASES: Case[] = [
  { name: "all, newest first", filter: {} },
  { name: "all, oldest first", filter: {}, sort: "created" },
  { name: "status=failed (12%)", filter: { statuses: ["failed"] } },
  { name: "status=failed,aborted", filter: { statuses: ["failed", "aborted"] } },
  { name: "status=rejected (2%)", filter: { statuses: ["rejected"] } },
  { name: "status=running,queued (16)", filter: { statuses: ["running", "queued"] } },
  { name: "status=success,failed (90%)", filter: { statuses: ["success", "failed"] } },
  {
    name: "every status listed",
    filter: { statuses: ["approval", "queued", "running", "success", "failed", "aborted", "abandoned", "rejected"] },
  },
  { name: "status=failed, oldest first", filter: { statuses: ["failed"] }, sort: "created" },
  { name: "form=form-00 (busiest)", filter: { form: "form-00" } },
  { name: "form=form-39 (rare)", filter: { form: "form-39" } },
  { name: "user=user-000 (busiest)", filter: { user: "user-000" } },
  { name: "user=user-299 (rare)", filter: { user: "user-299" } },
  { name: "form=form-retired (old only)", filter: { form: "form-retired" } },
  { name: "user=user-left (old only)", filter: { user: "user-left" } },
  { name: "user-left + failed", filter: { user: "user-left", statuses: ["failed"] } },
  { name: "runner=runner-03", filter: { runner: "runner-03" } },
  { name: "from..to: one week", filter: { from: day(200), to: day(193) } },
  { name: "from: last 30 days", filter: { from: day(30) } },
  { name: "last 30 days + failed", filter: { from: day(30), statuses: ["failed"] } },
  { name: "form-00 + failed", filter: { form: "form-00", statuses: ["failed"] } },
  { name: "user-000 + runner-07 (rare pair)", filter: { user: "user-000", runner: "runner-07" } },
  { name: "form+user+status+quarter", filter: { form: "form-01", user: "user-001", statuses: ["success"], from: day(120), to: day(30) } },
  { name: "user=nobody (unknown)", filter: { user: "nobody" } },
];

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

async function median(fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push((await timed(fn)).ms);
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** The old API's query with the same filter: newest (or oldest) by id, OFFSET for deeper pages. */
async function oldWhere(db: Db, filter: JobListFilter): Promise<Prisma.JobWhereInput | null> {
  const where: Prisma.JobWhereInput = {};
  if (filter.statuses) where.status = { in: [...filter.statuses] };
  if (filter.form) where.formName = filter.form;
  if (filter.user) {
    const user = await db.user.findUnique({ where: { username: filter.user } });
    if (!user) return null;
    where.userId = user.id;
  }
  if (filter.runner) {
    const runner = await db.runner.findUnique({ where: { name: filter.runner } });
    if (!runner) return null;
    where.runnerId = runner.id;
  }
  if (filter.from || filter.to) where.createdAt = { gte: filter.from, lte: filter.to };
  return where;
}

async function oldPage(db: Db, filter: JobListFilter, sort: JobListSort, page: number): Promise<number> {
  const where = await oldWhere(db, filter);
  if (!where) return 0;
  const rows = await db.job.findMany({
    where,
    orderBy: { id: sort === "-created" ? "desc" : "asc" },
    skip: (page - 1) * LIMIT,
    take: LIMIT,
    include: { runner: { select: { name: true } }, user: { select: { username: true } } },
  });
  return rows.length;
}

interface Figures {
  p1: number;
  p100: number | null;
  pages: number;
  worst: number;
  oldP1: number;
  oldP100: number;
  plan: string[];
}

// The API hands out cursors as strings; listJobPage takes them decoded (as the API's parser does).
function cursorOf(text: string): JobListCursor {
  const cursor = decodeJobListCursor(text);
  if (!cursor) throw new Error(`listJobPage returned a cursor it cannot read: ${text}`);
  return cursor;
}

/**
 * Reads pages 1, 2, … up to page `to` (or the last), each answer timed: the cursor of page `to`
 * (null when the list ends before it) and the slowest answer on the way.
 */
async function walk(query: JobListQuery, to: number): Promise<{ cursor: JobListCursor | null; pages: number; worst: number }> {
  let worst = 0;
  let cursor: JobListCursor | undefined;
  for (let page = 1; page < to; page++) {
    const { ms, value } = await timed(() => listJobPage({ ...query, cursor }, ALL_JOBS));
    worst = Math.max(worst, ms);
    if (!value.nextCursor) return { cursor: null, pages: page, worst };
    cursor = cursorOf(value.nextCursor);
  }
  return { cursor: cursor ?? null, pages: to, worst };
}

async function measure(db: Db, recorder: Recorder, sqlite: boolean, c: Case): Promise<Figures> {
  const query: JobListQuery = { filter: c.filter, sort: c.sort ?? "-created", limit: LIMIT };
  // Warm-up: each shape of query once (Prisma compiles a query shape on first use).
  const first = await listJobPage(query, ALL_JOBS);
  if (first.nextCursor) {
    const second = await listJobPage({ ...query, cursor: cursorOf(first.nextCursor) }, ALL_JOBS);
    if (second.prevCursor) await listJobPage({ ...query, cursor: cursorOf(second.prevCursor) }, ALL_JOBS);
  }
  const p1 = await median(() => listJobPage(query, ALL_JOBS));
  const { cursor, pages, worst } = await walk(query, 100);
  const p100 = cursor ? await median(() => listJobPage({ ...query, cursor }, ALL_JOBS)) : null;
  // The plan of the deepest page read.
  recorder.queries.length = 0;
  await listJobPage({ ...query, cursor: cursor ?? undefined }, ALL_JOBS);
  const plan = await planOfLastJobQuery(recorder, sqlite);
  const oldP1 = await median(() => oldPage(db, c.filter, query.sort, 1));
  const oldP100 = await median(() => oldPage(db, c.filter, query.sort, 100));
  return { p1, p100, pages, worst: Math.max(worst, p100 ?? 0), oldP1, oldP100, plan };
}

async function runOn(
  label: string,
  url: string,
  jobs: JobRow[],
  sqlite: boolean,
): Promise<{ figures: Map<string, Figures>; loadSeconds: number; deep: string[] }> {
  await applyMigrations(url);
  const loadStarted = performance.now();
  await insertForms(url, FORMS);
  await insertUsers(url, USERS);
  await insertRunners(url, RUNNERS);
  await insertJobs(url, jobs);
  if (!sqlite) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query("ANALYZE");
    await client.end();
  }
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  console.log(`${label}: ${jobs.length.toLocaleString("en")} jobs loaded in ${loadSeconds.toFixed(1)} s; measuring...`);

  const recorder: Recorder = { queries: [] };
  const db = useClient(url, recorder);
  // Warm-up of the process (JIT, connection, Prisma's query cache) before anything is timed.
  for (let round = 0; round < 3; round++) {
    for (const c of CASES) await listJobPage({ filter: c.filter, sort: c.sort ?? "-created", limit: LIMIT }, ALL_JOBS);
  }
  const figures = new Map<string, Figures>();
  for (const c of CASES) figures.set(c.name, await measure(db, recorder, sqlite, c));

  // Deeper still, unfiltered: page 1000 through the cursor against OFFSET 49,950.
  const deep: string[] = [];
  const all: JobListQuery = { filter: {}, sort: "-created", limit: LIMIT };
  const { cursor } = await walk(all, 1000);
  if (cursor) {
    const viaCursor = await median(() => listJobPage({ ...all, cursor }, ALL_JOBS));
    const viaOffset = await median(() => oldPage(db, {}, "-created", 1000));
    deep.push(`${label}: page 1000 of all jobs: cursor ${viaCursor.toFixed(1)} ms, OFFSET ${viaOffset.toFixed(1)} ms`);
  }
  await closeDb();
  return { figures, loadSeconds, deep };
}

// ---------------------------------------------------------------------------------------------
const fmt = (ms: number | null) => (ms === null ? "-" : ms.toFixed(1)).padStart(7);

console.log(`job list benchmark: ${JOBS.toLocaleString("en")} jobs, pages of ${LIMIT}, median of ${RUNS} runs per figure (ms)`);
const loadAtStart = os.loadavg()[0]!;
const jobs = makeJobs(JOBS);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "playform-job-list-bench-"));
const postgres = await startPostgres();
let sqliteRun, postgresRun;
try {
  sqliteRun = await runOn("SQLite", `file:${path.join(tmp, "playform.db")}`, jobs, true);
  postgresRun = await runOn("PostgreSQL", postgres.url, jobs, false);
} finally {
  await postgres.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}

console.log("");
console.log("query plans (the job query of page 100, or of the last page when there are fewer):");
for (const c of CASES) {
  console.log(`  ${c.name}`);
  for (const line of sqliteRun.figures.get(c.name)!.plan) console.log(`    sqlite  ${line}`);
  for (const line of postgresRun.figures.get(c.name)!.plan) console.log(`    pg      ${line}`);
}

const columns = ["pages", "p1", "p100", "worst", "old p1", "old p100"];
const groupWidth = columns.length * 8;
const heading = `${"case".padEnd(34)}|${columns.map((h) => h.padStart(7)).join(" ")} |${columns.map((h) => h.padStart(7)).join(" ")}`;
console.log("");
console.log(`${JOBS.toLocaleString("en")} jobs, pages of ${LIMIT}, ms (median of ${RUNS}):`);
console.log("  pages: pages read through the cursor (at most 100); p1, p100: page 1 and page 100 via the cursor;");
console.log("  worst: the slowest single answer of pages 1-100; old p1, old p100: the old way with the same filter,");
console.log(`  newest (oldest) ${LIMIT} by id and OFFSET ${(99 * LIMIT).toLocaleString("en")} ('-': fewer than 100 pages)`);
console.log("");
console.log(`${"".padEnd(34)}|${" SQLite".padEnd(groupWidth)}|${" PostgreSQL".padEnd(groupWidth)}`);
console.log(heading);
console.log("-".repeat(heading.length));
let over = 0;
for (const c of CASES) {
  const s = sqliteRun.figures.get(c.name)!;
  const p = postgresRun.figures.get(c.name)!;
  over += [s.worst, p.worst].filter((ms) => ms > BUDGET_MS).length;
  const cells = (f: Figures) =>
    [String(f.pages).padStart(7), fmt(f.p1), fmt(f.p100), fmt(f.worst), fmt(f.oldP1), fmt(f.pages < 100 ? null : f.oldP100)].join(" ");
  console.log(`${c.name.padEnd(34)}|${cells(s)} |${cells(p)}`);
}
console.log("");
for (const line of [...sqliteRun.deep, ...postgresRun.deep]) console.log(line);
console.log(`loading: SQLite ${sqliteRun.loadSeconds.toFixed(1)} s, PostgreSQL ${postgresRun.loadSeconds.toFixed(1)} s (analysed)`);
console.log(
  `load average (1 min) at the start ${loadAtStart.toFixed(2)}, at the end ${os.loadavg()[0]!.toFixed(2)}, on ${os.cpus().length} CPUs`,
);
console.log(over === 0 ? `every answer under ${BUDGET_MS} ms on both databases` : `${over} case(s) had an answer over ${BUDGET_MS} ms`);
process.exit(over === 0 ? 0 : 1);
