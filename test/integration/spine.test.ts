/**
 * The end-to-end spine on real parts: the production bundle, a real RTE process over a real
 * socket, real ansible-playbook, a real SQLite file and a real PostgreSQL.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, dbExecute, dbQuery, startPlayform, storedSeqs, type RunningPlayform } from "../support/playform";
import { startPostgres, type TestPostgres } from "../support/postgres";
import { commandLine, isRunningProcess, killGroup, processGroupMembers, processGroupOf } from "../support/processes";
import { childPids, hostPid } from "../support/rte-harness";
import { waitFor } from "../support/wait";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** The example hello-world next to the test fixture process-tree, as the app's forms folder. */
function formsFolder(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-spine-forms-"));
  fs.cpSync(path.join(ROOT, "server/forms/examples/hello-world"), path.join(dir, "hello-world"), { recursive: true });
  fs.cpSync(path.join(ROOT, "test/fixtures/forms/process-tree"), path.join(dir, "process-tree"), { recursive: true });
  return dir;
}

describe.each(["sqlite", "postgresql"] as const)("on %s", (provider) => {
  let app: RunningPlayform;
  let api: ApiClient;
  let postgres: TestPostgres | undefined;
  let forms: string | undefined;

  beforeAll(async () => {
    if (provider === "postgresql") postgres = await startPostgres();
    forms = formsFolder();
    app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: forms, ...(postgres ? { DATABASE_URL: postgres.url } : {}) } });
    api = apiClient(app, await adminToken(app));
  });
  afterAll(async () => {
    await app?.stop();
    await postgres?.stop();
    if (forms) fs.rmSync(forms, { recursive: true, force: true });
  });

  describe("hello-world through the API, the app and a real RTE", () => {
    it("runs the playbook and stores its output exactly once, in order", async () => {
      const message = `spine check ${Date.now()}`;
      const id = await api.launch("hello-world", { message });

      const job = await api.waitForEnd(id);
      expect(job.status).toBe("success");
      expect(job.exitCode).toBe(0);
      expect(job.runner).toBe("local");

      const output = await api.output(id);
      expect(output).toContain(message);
      expect(output).toContain("PLAY RECAP");

      // Every item the RTE numbered was stored once: 1..N with no gap and no repeat.
      const seqs = await storedSeqs(app, id);
      expect(seqs.length).toBeGreaterThan(3);
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
      expect(job.lastSeq).toBe(seqs.length);

      const recap = await api.get(`/api/jobs/${id}/recap`);
      expect(recap.hosts).toEqual([
        { host: "localhost", ok: 4, changed: 1, unreachable: 0, failed: 0, skipped: 0, rescued: 0, ignored: 0 },
      ]);
      expect(recap.status).toBe("successful");
      // A finished job's recap is kept after the first request, and served from there.
      const [cached] = await dbQuery<{ recapSource: string | null }>(app, 'SELECT "recapSource" FROM "Job" WHERE id = $1', [id]);
      expect(cached?.recapSource).toBe("events");
      expect(await api.get(`/api/jobs/${id}/recap`)).toEqual(recap);
    });

    it("passes template markers in values through verbatim, never templated", async () => {
      const job = await api.waitForEnd(await api.launch("hello-world", { message: "sum is {{ 6 * 7 }}" }));
      expect(job.status).toBe("success");
      const output = await api.output(job.id);
      expect(output).toContain("sum is {{ 6 * 7 }}");
      expect(output).not.toContain("sum is 42");
    });

    it("aborts a running job: the playbook's process group is signalled and the job ends aborted", async () => {
      const id = await api.launch("process-tree");
      // The playbook leaves a child running in the background, which outlives its task: only
      // a signal to the whole process group reaches it, not one to ansible-playbook alone.
      const [, pid] = await waitFor(`job ${id} to report its background child`, async () =>
        /background child pid (\d+)/.exec(await api.output(id)),
      );
      // Printed inside the playbook's pid namespace when the RTE runs it under bubblewrap
      // (server/rte/sandbox.ts): found among the local RTE's descendants by that pid.
      const rte = childPids(app.pid).find((p) => commandLine(p).includes("rte"));
      const child = (rte && hostPid(rte, Number(pid))) || Number(pid);
      const group = processGroupOf(child);
      expect(group, `background child ${child} is not running`).not.toBeNull();
      try {
        // The premise: the child is in the playbook's group, led by ansible-playbook (the RTE
        // starts it detached, as its own group; under bubblewrap by bwrap, which runs it), and
        // it is not the leader itself.
        expect(group).not.toBe(child);
        expect(commandLine(group!)).toMatch(/ansible-playbook|bwrap/);

        expect((await api.call("POST", `/api/jobs/${id}/abort`)).status).toBe(202);
        // Every process of the group goes: ansible-playbook, its workers, the running task's
        // command and the background child.
        await waitFor(`process group ${group} to end`, () => processGroupMembers(group!).length === 0, {
          timeoutMs: 30_000,
          details: () =>
            processGroupMembers(group!)
              .map((p) => `${p}: ${commandLine(p)}`)
              .join("\n"),
        });
        expect(isRunningProcess(child)).toBe(false);
        const job = await api.waitForEnd(id);
        expect(job.status).toBe("aborted");
        expect(job.statusReason).toBe("aborted on request");
        expect(await api.output(id)).not.toContain("PLAY RECAP");
        expect((await api.call("POST", `/api/jobs/${id}/abort`)).status).toBe(409);
      } finally {
        if (group) killGroup(group);
      }
    });
  });

  describe("bad input", () => {
    it("answers 401 without a token and with a wrong password", async () => {
      const noToken = await api.call("GET", "/api/jobs", { auth: false });
      expect(noToken.status).toBe(401);
      expect(noToken.json.error.code).toBe("unauthorized");

      const wrong = await api.call("POST", "/api/auth/token", {
        headers: { authorization: `Basic ${Buffer.from("admin:not-the-password").toString("base64")}` },
      });
      expect(wrong.status).toBe(401);
      expect(wrong.json.error.message).toMatch(/wrong username or password/);

      const badLogin = await api.call("POST", "/api/auth/login", { json: { username: "admin", password: "nope" }, auth: false });
      expect(badLogin.status).toBe(401);
    });

    it("rejects launches without storing anything", async () => {
      const before = (await api.get("/api/jobs?limit=200")).jobs.length as number;

      const unknown = await api.call("POST", "/api/jobs", { json: { form: "no-such-form", values: {} } });
      expect(unknown.status).toBe(404);
      expect(unknown.json.error.message).toContain("no-such-form");

      const missing = await api.call("POST", "/api/jobs", { json: { form: "hello-world", values: { message: "   " } } });
      expect(missing.status).toBe(422);
      expect(missing.json.error.code).toBe("validation_failed");
      expect(missing.json.error.fields).toEqual({ message: "is required" });

      const extra = await api.call("POST", "/api/jobs", { json: { form: "hello-world", values: { message: "x", nope: 1 } } });
      expect(extra.status).toBe(422);
      expect(extra.json.error.fields.nope).toMatch(/not a field/);

      const notJson = await api.call("POST", "/api/jobs", { body: "{nope", type: "application/json" });
      expect(notJson.status).toBe(400);

      expect((await api.get("/api/jobs?limit=200")).jobs.length).toBe(before);
    });

    it("answers 404 for an unknown job and form", async () => {
      expect((await api.call("GET", "/api/jobs/999999")).status).toBe(404);
      expect((await api.call("GET", "/api/jobs/abc")).status).toBe(404);
      expect((await api.call("GET", "/api/forms/nope")).status).toBe(404);
    });

    it("reports liveness, and readiness: 503 with the reason while a migration is not applied or the database is unreachable", async () => {
      const ready = () => api.call("GET", "/api/ready", { auth: false });
      expect((await api.call("GET", "/api/live", { auth: false })).json).toEqual({ status: "ok" });
      expect(await ready()).toMatchObject({ status: 200, json: { status: "ready" } });

      // A migration recorded as started but not finished is one the app has not applied.
      const [last] = await dbQuery<{ migration_name: string; finished_at: unknown }>(
        app,
        'SELECT migration_name, finished_at FROM "_prisma_migrations" ORDER BY migration_name DESC LIMIT 1',
      );
      expect(last?.finished_at).toBeTruthy();
      await dbExecute(app, 'UPDATE "_prisma_migrations" SET finished_at = NULL WHERE migration_name = $1', [last!.migration_name]);
      try {
        expect(await ready()).toMatchObject({
          status: 503,
          json: { status: "not_ready", reason: `1 migration(s) pending: ${last!.migration_name}` },
        });
        // Liveness is about the process, not the database.
        expect((await api.call("GET", "/api/live", { auth: false })).status).toBe(200);
      } finally {
        await dbExecute(app, 'UPDATE "_prisma_migrations" SET finished_at = $1 WHERE migration_name = $2', [
          last!.finished_at,
          last!.migration_name,
        ]);
      }
      expect(await ready()).toMatchObject({ status: 200, json: { status: "ready" } });

      if (provider === "postgresql") {
        // The database refuses new connections (as while it restarts): the check cannot reach it.
        const database = new URL(app.databaseUrl).pathname.slice(1);
        const maintenance = new URL(app.databaseUrl);
        maintenance.pathname = "/postgres";
        const allowConnections = async (allow: boolean) => {
          const client = new pg.Client({ connectionString: maintenance.toString() });
          await client.connect();
          try {
            await client.query(`ALTER DATABASE "${database}" WITH ALLOW_CONNECTIONS ${allow}`);
          } finally {
            await client.end();
          }
        };
        await allowConnections(false);
        try {
          expect(await ready()).toMatchObject({ status: 503, json: { status: "not_ready", reason: "database unreachable" } });
        } finally {
          await allowConnections(true);
        }
        expect(await ready()).toMatchObject({ status: 200, json: { status: "ready" } });
      }
    });
  });
});
