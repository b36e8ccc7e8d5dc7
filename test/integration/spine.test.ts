/**
 * The end-to-end spine on real parts: the production bundle, a real RTE process over a real
 * socket, real ansible-playbook, a real SQLite file and a real PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, dbQuery, startPlayform, storedSeqs, type RunningPlayform } from "../support/playform";
import { startPostgres, type TestPostgres } from "../support/postgres";

describe.each(["sqlite", "postgresql"] as const)("on %s", (provider) => {
  let app: RunningPlayform;
  let api: ApiClient;
  let postgres: TestPostgres | undefined;

  beforeAll(async () => {
    if (provider === "postgresql") postgres = await startPostgres();
    app = await startPlayform(postgres ? { env: { DATABASE_URL: postgres.url } } : {});
    api = apiClient(app, await adminToken(app));
  });
  afterAll(async () => {
    await app?.stop();
    await postgres?.stop();
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
      const id = await api.launch("hello-world", { message: "to be aborted" });
      // Wait until the playbook is in its 2 s pause, then abort.
      const deadline = Date.now() + 30_000;
      while (!(await api.output(id)).includes("Take a short breath")) {
        if (Date.now() > deadline) throw new Error("playbook did not start");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect((await api.call("POST", `/api/jobs/${id}/abort`)).status).toBe(202);
      const job = await api.waitForEnd(id);
      expect(job.status).toBe("aborted");
      expect(await api.output(id)).not.toContain("PLAY RECAP");
      expect((await api.call("POST", `/api/jobs/${id}/abort`)).status).toBe(409);
    });
  });

  describe("bad input", () => {
    it("answers 401 without a token and with a wrong password", async () => {
      const noToken = await api.call("GET", "/api/jobs", { auth: false });
      expect(noToken.status).toBe(401);
      expect(noToken.json.error.code).toBe("unauthorized");

      const wrong = await fetch(`${app.url}/api/auth/token`, {
        method: "POST",
        headers: { authorization: `Basic ${Buffer.from("admin:not-the-password").toString("base64")}` },
      });
      expect(wrong.status).toBe(401);
      expect(((await wrong.json()) as { error: { message: string } }).error.message).toMatch(/wrong username or password/);

      const badLogin = await api.call("POST", "/api/auth/login", { json: { username: "admin", password: "nope" }, auth: false });
      expect(badLogin.status).toBe(401);
    });

    it("rejects launches without storing anything", async () => {
      const before = (await api.get("/api/jobs?limit=500")).jobs.length as number;

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

      expect((await api.get("/api/jobs?limit=500")).jobs.length).toBe(before);
    });

    it("answers 404 for an unknown job and form", async () => {
      expect((await api.call("GET", "/api/jobs/999999")).status).toBe(404);
      expect((await api.call("GET", "/api/jobs/abc")).status).toBe(404);
      expect((await api.call("GET", "/api/forms/nope")).status).toBe(404);
    });

    it("reports liveness and readiness", async () => {
      expect((await api.call("GET", "/api/live", { auth: false })).json).toEqual({ status: "ok" });
      expect((await api.call("GET", "/api/ready", { auth: false })).json).toEqual({ status: "ready" });
    });
  });
});
