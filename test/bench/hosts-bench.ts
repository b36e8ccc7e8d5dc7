/**
 * Hosts at size (issue 22 section 4: 10,000 hosts and 100,000 jobs, a page under 200 ms), on
 * SQLite and on PostgreSQL side by side.
 *
 * Fills a fresh, migrated database of each kind with JOBS finished jobs of 40 forms and 300
 * users (a few busy, a long tail) and their hosts: each form acts on its own 250 of the 10,000
 * hosts, each run on 1 to 12 of them (about 650,000 host rows at 100,000 jobs). Then it times what GET /api/hosts and GET /api/hosts/NAME run (server/jobs/hosts.ts's
 * reads, server/data/hosts.ts; in this process, no HTTP), each 7 times: median and slowest, for
 * an admin (every run), a busy user and a rare user (their own runs), and a user observing two
 * forms; the list's first page, a page deep in it through the cursor, a search; a host's runs,
 * first page and through the cursor. Each case runs once untimed first.
 *
 *   npm run bench:hosts [-- JOBS]      (PostgreSQL: test/support/postgres.ts)
 */
import { performance } from "node:perf_hooks";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { closeDb } from "../../server/data/db";
import { latestHostRun, listHostNames, listHostRuns } from "../../server/data/hosts";
import { ALL_JOBS, type JobScope } from "../../server/data/job-scope";
import { applyMigrations } from "../../server/data/migrate";
import { insertForms, insertHostRuns, insertJobs, insertUsers, type HostRunRow, type JobRow } from "../support/job-rows";
import { startPostgres } from "../support/postgres";
import { generator, zipf } from "../support/seeded-random";

const JOBS = Number(process.argv[2] ?? 100_000);
const HOSTS = 10_000;
const FORMS = 40;
const USERS = 300;
const LIMIT = 50;
const RUNS = 7;
const BUDGET_MS = 200;

const pad = (n: number, width: number) => String(n).padStart(width, "0");
const forms = Array.from({ length: FORMS }, (_, k) => ({ id: `form-id-${pad(k, 2)}`, name: `form-${pad(k, 2)}` }));
const users = Array.from({ length: USERS }, (_, k) => ({ id: `user-id-${pad(k, 3)}`, username: `user-${pad(k, 3)}` }));
const hostName = (k: number) => `node-${pad(k, 5)}.dc${k % 3}.example.com`;
const NOW = Date.UTC(2026, 11, 7, 12, 0, 0);
const YEAR_MS = 365 * 86_400_000;

function makeData(count: number): { jobs: JobRow[]; hostRuns: HostRunRow[] } {
  const random = generator(20261207);
  const form = zipf(FORMS, 1, random);
  const user = zipf(USERS, 1.1, random);
  const times = Array.from({ length: count }, () => NOW - Math.floor(random() * YEAR_MS)).sort((a, b) => a - b);
  const jobs: JobRow[] = [];
  const hostRuns: HostRunRow[] = [];
  times.forEach((t, i) => {
    const f = form();
    const u = users[user()]!;
    const finishedAt = new Date(t + 60_000 + Math.floor(random() * 600_000));
    const status = random() < 0.85 ? "success" : "failed";
    jobs.push({
      formId: forms[f]!.id,
      formName: forms[f]!.name,
      userId: u.id,
      runnerId: null,
      status,
      createdAt: new Date(t),
      startedAt: new Date(t + 1000),
      finishedAt,
    });
    const hosts = new Set<number>();
    const many = 1 + Math.floor(random() * 12);
    while (hosts.size < many) hosts.add(f * (HOSTS / FORMS) + Math.floor(random() * (HOSTS / FORMS)));
    for (const h of hosts) {
      const changed = random() < 0.3 ? 1 + Math.floor(random() * 3) : 0;
      hostRuns.push({
        jobId: i + 1,
        host: hostName(h),
        formName: forms[f]!.name,
        userId: u.id,
        status,
        finishedAt,
        ok: 5 + changed,
        changed,
        failed: status === "failed" && random() < 0.5 ? 1 : 0,
        unreachable: 0,
        changedTasks: Array.from({ length: changed }, (_, k) => `Configure part ${k + 1}`),
      });
    }
  });
  return { jobs, hostRuns };
}

/** What GET /api/hosts reads for a page: the names, then each one's newest run. */
async function hostPage(scope: JobScope, query: { q?: string; after?: string }): Promise<number> {
  const names = await listHostNames(scope, { ...query, limit: LIMIT + 1 });
  const page = names.slice(0, LIMIT);
  await Promise.all(page.map((name) => latestHostRun(scope, name)));
  return page.length;
}

/** What GET /api/hosts/NAME reads: the newest run, then a page of runs. */
async function hostRunsPage(scope: JobScope, host: string, deep: boolean): Promise<number> {
  await latestHostRun(scope, host);
  let before;
  if (deep) {
    const first = await listHostRuns(scope, host, { limit: LIMIT * 2 });
    const last = first.at(-1);
    before = last ? { finishedAt: last.finishedAt, jobId: last.jobId } : undefined;
  }
  return (await listHostRuns(scope, host, { before, limit: LIMIT + 1 })).length;
}

interface Case {
  name: string;
  run: () => Promise<number>;
}

function cases(busiestHost: string): Case[] {
  const busyUser: JobScope = { all: false, userId: users[0]!.id, formNames: [] };
  const rareUser: JobScope = { all: false, userId: users[USERS - 1]!.id, formNames: [] };
  const observer: JobScope = { all: false, userId: users[150]!.id, formNames: [forms[5]!.name, forms[30]!.name] };
  return [
    { name: "list, admin, first page", run: () => hostPage(ALL_JOBS, {}) },
    { name: "list, admin, page at node-05000", run: () => hostPage(ALL_JOBS, { after: hostName(5000) }) },
    { name: "list, admin, q=dc1", run: () => hostPage(ALL_JOBS, { q: "dc1" }) },
    { name: "list, admin, q=node-0999 (few)", run: () => hostPage(ALL_JOBS, { q: "node-0999" }) },
    { name: "list, busiest user, first page", run: () => hostPage(busyUser, {}) },
    { name: "list, rarest user, first page", run: () => hostPage(rareUser, {}) },
    { name: "list, observer of 2 forms, first page", run: () => hostPage(observer, {}) },
    { name: "list, observer of 2 forms, q=dc2", run: () => hostPage(observer, { q: "dc2" }) },
    { name: `host ${busiestHost}, admin, first page`, run: () => hostRunsPage(ALL_JOBS, busiestHost, false) },
    { name: `host ${busiestHost}, admin, page 3`, run: () => hostRunsPage(ALL_JOBS, busiestHost, true) },
    { name: `host ${busiestHost}, rarest user`, run: () => hostRunsPage(rareUser, busiestHost, false) },
  ];
}

async function measure(label: string, url: string, data: { jobs: JobRow[]; hostRuns: HostRunRow[] }, busiest: string) {
  process.env.DATABASE_URL = url;
  await applyMigrations(url);
  const started = performance.now();
  await insertUsers(url, users);
  await insertForms(url, forms);
  await insertJobs(url, data.jobs);
  await insertHostRuns(url, data.hostRuns);
  console.log(
    `${label}: loaded ${data.jobs.length} jobs, ${data.hostRuns.length} host rows in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  const results: { name: string; median: number; max: number; rows: number }[] = [];
  for (const c of cases(busiest)) {
    const times: number[] = [];
    // Once untimed: the first query of a connection pays for it.
    let rows = await c.run();
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      rows = await c.run();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    results.push({ name: c.name, median: times[RUNS >> 1]!, max: times[RUNS - 1]!, rows });
  }
  await closeDb();
  return results;
}

async function main() {
  const data = makeData(JOBS);
  const perHost = new Map<string, number>();
  for (const run of data.hostRuns) perHost.set(run.host, (perHost.get(run.host) ?? 0) + 1);
  const [busiest, busiestRuns] = [...perHost].sort((a, b) => b[1] - a[1])[0]!;
  console.log(`${JOBS} jobs, ${perHost.size} hosts, ${data.hostRuns.length} host rows; busiest host ${busiest} in ${busiestRuns} runs`);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-hosts-bench-"));
  const sqlite = await measure("SQLite", `file:${path.join(dir, "bench.db")}`, data, busiest);
  const postgres = await startPostgres();
  let pgResults;
  try {
    pgResults = await measure("PostgreSQL", postgres.url, data, busiest);
  } finally {
    await postgres.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const ms = (n: number) => `${n.toFixed(1)} ms`.padStart(10);
  console.log(
    `\n${"case".padEnd(52)} ${"SQLite med".padStart(10)} ${"max".padStart(10)} ${"PG med".padStart(10)} ${"max".padStart(10)}  rows`,
  );
  let over = 0;
  sqlite.forEach((s, i) => {
    const p = pgResults[i]!;
    const flag = Math.max(s.max, p.max) > BUDGET_MS ? "  OVER BUDGET" : "";
    if (flag) over += 1;
    console.log(`${s.name.padEnd(52)} ${ms(s.median)} ${ms(s.max)} ${ms(p.median)} ${ms(p.max)}  ${s.rows}/${p.rows}${flag}`);
  });
  console.log(`\nbudget ${BUDGET_MS} ms per answer: ${over === 0 ? "every case within it" : `${over} case(s) over`}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
