/**
 * GET /api/jobs against the real app, on SQLite and on PostgreSQL: a few hundred jobs (put in
 * the database directly, over ten days, some created in the same millisecond, in an order
 * unrelated to their ids) plus one real hello-world run. Paging returns every job exactly once
 * in order, forwards and back, also while new jobs arrive between pages; each filter and their
 * combinations return exactly the matching jobs; bad input is a 422 naming the parameter.
 * Expectations are computed here from the rows as inserted, not by asking the API twice.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { insertJobs, insertRunners, insertUsers, type JobRow } from "../support/job-rows";
import { adminToken, dbQuery, startPlayform, type RunningPlayform } from "../support/playform";
import { startPostgres, type TestPostgres } from "../support/postgres";

const STATUSES = ["approval", "queued", "running", "success", "failed", "aborted", "abandoned", "rejected"] as const;
const JOBS = 240;
const DAY = 86_400_000;

/** A job as the tests expect it in the list. */
interface Expected {
  id: number;
  createdAt: number;
  status: string;
  form: string;
  user: string;
  runner: string | null;
}

type Predicate = (job: Expected) => boolean;

function ordered(jobs: Expected[], sort: "-created" | "created" = "-created"): number[] {
  const sign = sort === "-created" ? -1 : 1;
  return [...jobs].sort((a, b) => sign * (a.createdAt - b.createdAt || a.id - b.id)).map((j) => j.id);
}

for (const database of ["SQLite", "PostgreSQL"] as const) {
  describe(`the job list on ${database}`, () => {
    let postgres: TestPostgres | undefined;
    let app: RunningPlayform;
    let api: ApiClient;
    const jobs: Expected[] = [];
    /** 2026-…: the oldest inserted job's day (UTC), for date filters. */
    let firstDay = 0;

    /** Every page of a query, following nextCursor; each page checked for size. */
    async function readAll(query: string, limit: number): Promise<{ ids: number[]; pages: any[] }> {
      const pages: any[] = [];
      let cursor: string | null = null;
      do {
        const page = await api.get(`/api/jobs?${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
        expect(page.jobs.length).toBeLessThanOrEqual(limit);
        if (page.nextCursor !== null) expect(page.jobs.length).toBe(limit);
        pages.push(page);
        cursor = page.nextCursor;
        expect(pages.length, "too many pages").toBeLessThan(1000);
      } while (cursor);
      return { ids: pages.flatMap((p) => p.jobs.map((j: { id: number }) => j.id)), pages };
    }

    async function expectFilter(query: string, matches: Predicate, sort: "-created" | "created" = "-created") {
      const expected = ordered(jobs.filter(matches), sort);
      const { ids } = await readAll(`${query}&sort=${sort}`, 50);
      expect(ids, query).toEqual(expected);
    }

    beforeAll(async () => {
      if (database === "PostgreSQL") postgres = await startPostgres();
      app = await startPlayform({ env: postgres ? { DATABASE_URL: postgres.url } : {} });
      api = apiClient(app, await adminToken(app));

      // One real job, through the runner: the list shows it as GET /api/jobs/ID does.
      const real = await api.waitForEnd(await api.launch("hello-world", { message: "job list" }));
      expect(real.status).toBe("success");
      jobs.push({
        id: real.id,
        createdAt: Date.parse(real.createdAt),
        status: real.status,
        form: "hello-world",
        user: "admin",
        runner: "local",
      });

      await insertUsers(app.databaseUrl, [
        { id: "u-alice", username: "alice" },
        { id: "u-bob", username: "bob" },
        { id: "u-carol", username: "carol" },
      ]);
      await insertRunners(app.databaseUrl, [
        { id: "r-edge-1", name: "edge-1" },
        { id: "r-edge-2", name: "edge-2" },
      ]);
      // Three of the example forms (there are more: big-output came with the same change).
      const forms = await dbQuery<{ id: string; name: string }>(
        app,
        `SELECT id, name FROM "Form" WHERE name IN ('hello-world', 'system-report', 'vault-demo') ORDER BY name`,
      );
      expect(forms.map((f) => f.name)).toEqual(["hello-world", "system-report", "vault-demo"]);
      const users = [
        { id: "u-alice", name: "alice" },
        { id: "u-bob", name: "bob" },
        { id: "u-carol", name: "carol" },
      ];
      const runners = [
        { id: "r-edge-1", name: "edge-1" },
        { id: "r-edge-2", name: "edge-2" },
        { id: null, name: null },
      ];

      // Ten days of jobs, ending an hour before now; every fifth group of three shares one
      // millisecond (ids break the tie). Inserted in a scrambled order: ids are not the order.
      const end = Date.now() - 3_600_000;
      const start = end - 10 * DAY;
      firstDay = Math.floor(start / DAY) * DAY;
      const rows: (JobRow & { tag: string })[] = [];
      for (let k = 0; k < JOBS; k++) {
        const slot = k % 15 < 3 ? k - (k % 15) : k;
        const createdAt = new Date(start + Math.floor((slot * 10 * DAY) / JOBS) + (slot % 7) * 13);
        const form = forms[k % 3]!;
        const user = users[Math.floor(k / 3) % 3]!;
        const runner = runners[Math.floor(k / 9) % 3]!;
        rows.push({
          tag: `row-${k}`,
          formId: form.id,
          formName: form.name,
          userId: user.id,
          runnerId: runner.id,
          status: STATUSES[(k * 5) % STATUSES.length]!,
          createdAt,
          values: { tag: `row-${k}` },
        });
      }
      const scrambled = rows.map((row, k) => ({ row, key: (k * 97) % JOBS })).sort((a, b) => a.key - b.key);
      await insertJobs(
        app.databaseUrl,
        scrambled.map((s) => s.row),
      );
      // The ids the database gave them, by the tag in their values (the dispatcher may write
      // statusReason of the queued ones meanwhile; nothing writes values).
      const stored = await dbQuery<{ id: number; v: string }>(app, `SELECT id, CAST("values" AS TEXT) AS v FROM "Job"`);
      const ids = new Map(stored.map((r) => [(JSON.parse(r.v) as { tag?: string }).tag, Number(r.id)]));
      for (const row of rows) {
        jobs.push({
          id: ids.get(row.tag)!,
          createdAt: row.createdAt.getTime(),
          status: row.status,
          form: row.formName,
          user: users.find((u) => u.id === row.userId)!.name,
          runner: runners.find((r) => r.id === row.runnerId)!.name,
        });
      }
      expect(new Set(jobs.map((j) => j.id)).size).toBe(JOBS + 1);
      // The scrambled insert really does make id order differ from creation order.
      expect(ordered(jobs)).not.toEqual([...jobs.map((j) => j.id)].sort((a, b) => b - a));
    });

    afterAll(async () => {
      await app?.stop();
      await postgres?.stop();
    });

    it("pages through every job exactly once, newest or oldest first, and back again", async () => {
      for (const sort of ["-created", "created"] as const) {
        for (const limit of [2, 37, 200]) {
          const { ids, pages } = await readAll(`sort=${sort}`, limit);
          expect(ids, `${sort}, limit ${limit}`).toEqual(ordered(jobs, sort));
          expect(pages[0].prevCursor).toBeNull();
          if (limit !== 37) continue;
          // Back from the last page: the same pages, in reverse.
          let page = pages.at(-1);
          for (let i = pages.length - 2; i >= 0; i--) {
            page = await api.get(`/api/jobs?sort=${sort}&limit=${limit}&cursor=${encodeURIComponent(page.prevCursor)}`);
            expect(page.jobs.map((j: { id: number }) => j.id)).toEqual(pages[i].jobs.map((j: { id: number }) => j.id));
            expect(page.nextCursor).not.toBeNull();
          }
          expect(page.prevCursor).toBeNull();
        }
      }
      // Each row is the job as GET /api/jobs/ID returns it.
      const first = (await api.get("/api/jobs?sort=created&limit=1")).jobs[0];
      const real = jobs[0]!;
      const listed = (await readAll("sort=-created", 200)).pages.flatMap((p) => p.jobs).find((j: { id: number }) => j.id === real.id);
      expect(listed).toEqual((await api.get(`/api/jobs/${real.id}`)).job);
      expect(Object.keys(first).sort()).toEqual(Object.keys(listed).sort());
      // The default is the newest 50, and old callers' ?limit=50&form=NAME still works.
      const defaults = await api.get("/api/jobs");
      expect(defaults.jobs.map((j: { id: number }) => j.id)).toEqual(ordered(jobs).slice(0, 50));
      expect(typeof defaults.nextCursor).toBe("string");
      const old = await api.get("/api/jobs?limit=50&form=system-report");
      expect(old.jobs.map((j: { id: number }) => j.id)).toEqual(ordered(jobs.filter((j) => j.form === "system-report")).slice(0, 50));
    });

    it("filters by status, form, user, runner and creation time, alone and combined", async () => {
      const at = (days: number) => new Date(firstDay + days * DAY);
      await expectFilter("status=failed", (j) => j.status === "failed");
      await expectFilter("status=failed,aborted", (j) => j.status === "failed" || j.status === "aborted");
      await expectFilter("status=failed&status=aborted&status=failed", (j) => j.status === "failed" || j.status === "aborted", "created");
      await expectFilter(`status=${STATUSES.join(",")}`, () => true);
      await expectFilter("status=success", (j) => j.status === "success", "created");
      await expectFilter("form=vault-demo", (j) => j.form === "vault-demo");
      await expectFilter("user=bob", (j) => j.user === "bob");
      await expectFilter("user=admin", (j) => j.user === "admin");
      await expectFilter("runner=edge-2", (j) => j.runner === "edge-2", "created");
      await expectFilter("runner=local", (j) => j.runner === "local");
      // Dates are whole UTC days (to= includes its day); timestamps are exact, both ends included.
      const from = at(3);
      const to = at(5);
      await expectFilter(`from=${from.toISOString().slice(0, 10)}`, (j) => j.createdAt >= from.getTime());
      await expectFilter(`to=${from.toISOString().slice(0, 10)}`, (j) => j.createdAt < from.getTime() + DAY);
      await expectFilter(
        `from=${from.toISOString().slice(0, 10)}&to=${to.toISOString().slice(0, 10)}`,
        (j) => j.createdAt >= from.getTime() && j.createdAt < to.getTime() + DAY,
        "created",
      );
      const edge = jobs[120]!.createdAt;
      await expectFilter(`from=${new Date(edge).toISOString()}`, (j) => j.createdAt >= edge);
      await expectFilter(`to=${encodeURIComponent(new Date(edge).toISOString().replace("Z", "+00:00"))}`, (j) => j.createdAt <= edge);
      await expectFilter(
        `status=success,failed&form=hello-world&user=alice&runner=edge-1&from=${at(1).toISOString()}&to=${at(9).toISOString()}`,
        (j) =>
          ["success", "failed"].includes(j.status) &&
          j.form === "hello-world" &&
          j.user === "alice" &&
          j.runner === "edge-1" &&
          j.createdAt >= at(1).getTime() &&
          j.createdAt <= at(9).getTime(),
      );
      await expectFilter("form=system-report&status=queued", (j) => j.form === "system-report" && j.status === "queued");
      // Names nothing has: no jobs, not an error.
      for (const query of ["user=nobody", "runner=nowhere", "form=no-such-form", "user=alice&runner=local"]) {
        expect(await api.get(`/api/jobs?${query}`), query).toEqual({ jobs: [], nextCursor: null, prevCursor: null });
      }
    });

    it("answers bad input with 422, naming each parameter and what is wrong with it", async () => {
      const bad = async (query: string) => {
        const answer = await api.call("GET", `/api/jobs?${query}`);
        expect(answer.status, `${query}: ${JSON.stringify(answer.json)}`).toBe(422);
        expect(answer.json.error.code).toBe("validation_failed");
        return answer.json.error.fields as Record<string, string>;
      };
      expect((await bad("status=failed,finished")).status).toBe(
        'unknown status "finished"; valid: approval, queued, running, success, failed, aborted, abandoned, rejected',
      );
      expect((await bad("cursor=not-a-cursor")).cursor).toMatch(/not a cursor of this list/);
      expect((await bad("from=2026-03-02&to=2026-03-01")).to).toMatch(/is before from/);
      expect((await bad("from=last+week")).from).toMatch(/ISO 8601/);
      expect((await bad("limit=0")).limit).toMatch(/from 1 to 200/);
      expect((await bad("limit=201")).limit).toMatch(/from 1 to 200/);
      expect((await bad("sort=status")).sort).toMatch(/-created .* created/);
      const { nextCursor } = await api.get("/api/jobs?limit=5");
      expect((await bad(`sort=created&cursor=${encodeURIComponent(nextCursor)}`)).cursor).toMatch(/belongs to sort=-created/);
      expect(Object.keys(await bad("status=x&limit=x&from=x&to=x&sort=x&cursor=x")).sort()).toEqual([
        "cursor",
        "from",
        "limit",
        "sort",
        "status",
        "to",
      ]);
      expect((await api.call("GET", "/api/jobs?status=x", { auth: false })).status).toBe(401);
    });

    it("never repeats or skips a job while new jobs arrive between pages", async () => {
      const forms = await dbQuery<{ id: string; name: string }>(app, `SELECT id, name FROM "Form" WHERE name = 'hello-world'`);
      const arrivedRows: { tag: string; createdAt: number }[] = [];
      const arrive = async (count: number) => {
        const rows: JobRow[] = [];
        for (let i = 0; i < count; i++) {
          const tag = `arrival-${arrivedRows.length}`;
          const createdAt = new Date();
          arrivedRows.push({ tag, createdAt: createdAt.getTime() });
          rows.push({
            formId: forms[0]!.id,
            formName: "hello-world",
            userId: "u-carol",
            runnerId: "r-edge-1",
            status: "success",
            createdAt,
            values: { tag },
          });
        }
        await insertJobs(app.databaseUrl, rows);
      };
      const before = { newest: ordered(jobs), oldest: ordered(jobs, "created") };

      for (const sort of ["-created", "created"] as const) {
        const seen: number[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const page = await api.get(`/api/jobs?sort=${sort}&limit=23${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
          seen.push(...page.jobs.map((j: { id: number }) => j.id));
          cursor = page.nextCursor;
          await arrive(3);
          expect(++pages).toBeLessThan(100);
        } while (cursor);
        expect(new Set(seen).size, "a job was listed twice").toBe(seen.length);
        if (sort === "-created") {
          // Newest first, new jobs land before page 1: exactly the jobs there were at the start.
          expect(seen).toEqual(before.newest);
        } else {
          // Oldest first, they land after the last page: all of them, each once, at the end.
          expect(seen.slice(0, before.oldest.length)).toEqual(before.oldest);
          const stored = await dbQuery<{ id: number; v: string }>(app, `SELECT id, CAST("values" AS TEXT) AS v FROM "Job"`);
          const ids = new Map(stored.map((r) => [(JSON.parse(r.v) as { tag?: string }).tag, Number(r.id)]));
          const arrived = arrivedRows
            .map((r) => ({ id: ids.get(r.tag)!, createdAt: r.createdAt }))
            .sort((a, b) => a.createdAt - b.createdAt || a.id - b.id)
            .map((r) => r.id);
          const tail = seen.slice(before.oldest.length);
          expect(tail.length).toBeGreaterThan(0);
          expect(tail).toEqual(arrived.slice(0, tail.length));
        }
      }
    });
  });
}
