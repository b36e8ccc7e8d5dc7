/**
 * The end-to-end spine on real parts: the production bundle, a real RTE process over a real
 * socket, real ansible-playbook, a real SQLite file.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminToken, startPlayform, storedSeqs, type RunningPlayform } from "../support/playform";
import { startPostgres, type TestPostgres } from "../support/postgres";

describe.each(["sqlite", "postgresql"] as const)("on %s", (provider) => {
  let app: RunningPlayform;
  let token: string;
  let postgres: TestPostgres | undefined;

  beforeAll(async () => {
    if (provider === "postgresql") postgres = await startPostgres();
    app = await startPlayform(postgres ? { env: { DATABASE_URL: postgres.url } } : {});
    token = await adminToken(app);
  });
  afterAll(async () => {
    await app?.stop();
    await postgres?.stop();
  });

  async function api(method: string, url: string, body?: unknown, auth: string | null = token) {
    const response = await fetch(`${app.url}${url}`, {
      method,
      headers: {
        ...(auth ? { authorization: `Bearer ${auth}` } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, any>) : null };
  }

  async function waitForEnd(id: number, timeoutMs = 90_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { body } = await api("GET", `/api/jobs/${id}`);
      if (["success", "failed", "aborted", "abandoned"].includes(body!.job.status)) return body!.job;
      if (Date.now() > deadline) throw new Error(`job ${id} still ${body!.job.status}:\n${app.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }


  async function outputText(id: number): Promise<string> {
    let after = 0;
    let text = "";
    for (;;) {
      const { body } = await api("GET", `/api/jobs/${id}/output?after=${after}&limit=100`);
      for (const chunk of body!.chunks as { seq: number; text: string }[]) {
        expect(chunk.seq).toBeGreaterThan(after);
        after = chunk.seq;
        text += chunk.text;
      }
      if (body!.chunks.length < 100) return text;
    }
  }

  describe("hello-world through the API, the app and a real RTE", () => {
    it("runs the playbook and stores its output exactly once, in order", async () => {
      const message = `spine check ${Date.now()}`;
      const launch = await api("POST", "/api/jobs", { form: "hello-world", values: { message } });
      expect(launch.status).toBe(201);
      const id = launch.body!.id as number;

      const job = await waitForEnd(id);
      expect(job.status).toBe("success");
      expect(job.exitCode).toBe(0);
      expect(job.runner).toBe("local");

      const output = await outputText(id);
      expect(output).toContain(message);
      expect(output).toContain("PLAY RECAP");

      // Every item the RTE numbered was stored once: 1..N with no gap and no repeat.
      const seqs = await storedSeqs(app, id);
      expect(seqs.length).toBeGreaterThan(3);
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
      expect(job.lastSeq).toBe(seqs.length);

      const recap = await api("GET", `/api/jobs/${id}/recap`);
      expect(recap.status).toBe(200);
      expect(recap.body!.hosts).toEqual([
        { host: "localhost", ok: 4, changed: 1, unreachable: 0, failed: 0, skipped: 0, rescued: 0, ignored: 0 },
      ]);
      expect(recap.body!.status).toBe("successful");
    });

    it("passes template markers in values through verbatim, never templated", async () => {
      const launch = await api("POST", "/api/jobs", { form: "hello-world", values: { message: "sum is {{ 6 * 7 }}" } });
      const job = await waitForEnd(launch.body!.id as number);
      expect(job.status).toBe("success");
      const output = await outputText(job.id);
      expect(output).toContain("sum is {{ 6 * 7 }}");
      expect(output).not.toContain("sum is 42");
    });

    it("aborts a running job: the playbook's process group is signalled and the job ends aborted", async () => {
      const launch = await api("POST", "/api/jobs", { form: "hello-world", values: { message: "to be aborted" } });
      const id = launch.body!.id as number;
      // Wait until the playbook is in its 2 s pause, then abort.
      const deadline = Date.now() + 30_000;
      while (!(await outputText(id)).includes("Take a short breath")) {
        if (Date.now() > deadline) throw new Error("playbook did not start");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const abort = await api("POST", `/api/jobs/${id}/abort`);
      expect(abort.status).toBe(202);
      const job = await waitForEnd(id);
      expect(job.status).toBe("aborted");
      expect(await outputText(id)).not.toContain("PLAY RECAP");
      const again = await api("POST", `/api/jobs/${id}/abort`);
      expect(again.status).toBe(409);
    });
  });

  describe("bad input", () => {
    it("answers 401 without a token and with a wrong password", async () => {
      const noToken = await api("GET", "/api/jobs", undefined, null);
      expect(noToken.status).toBe(401);
      expect(noToken.body!.error.code).toBe("unauthorized");

      const wrong = await fetch(`${app.url}/api/auth/token`, {
        method: "POST",
        headers: { authorization: `Basic ${Buffer.from("admin:not-the-password").toString("base64")}` },
      });
      expect(wrong.status).toBe(401);
      expect(((await wrong.json()) as { error: { message: string } }).error.message).toMatch(/wrong username or password/);

      const badLogin = await api("POST", "/api/auth/login", { username: "admin", password: "nope" }, null);
      expect(badLogin.status).toBe(401);
    });

    it("rejects launches without storing anything", async () => {
      const before = (await api("GET", "/api/jobs?limit=500")).body!.jobs.length as number;

      const unknown = await api("POST", "/api/jobs", { form: "no-such-form", values: {} });
      expect(unknown.status).toBe(404);
      expect(unknown.body!.error.message).toContain("no-such-form");

      const missing = await api("POST", "/api/jobs", { form: "hello-world", values: { message: "   " } });
      expect(missing.status).toBe(422);
      expect(missing.body!.error.code).toBe("validation_failed");
      expect(missing.body!.error.fields).toEqual({ message: "is required" });

      const extra = await api("POST", "/api/jobs", { form: "hello-world", values: { message: "x", nope: 1 } });
      expect(extra.status).toBe(422);
      expect(extra.body!.error.fields.nope).toMatch(/not a field/);

      const notJson = await fetch(`${app.url}/api/jobs`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: "{nope",
      });
      expect(notJson.status).toBe(400);

      const after = (await api("GET", "/api/jobs?limit=500")).body!.jobs.length as number;
      expect(after).toBe(before);
    });

    it("answers 404 for an unknown job and form", async () => {
      expect((await api("GET", "/api/jobs/999999")).status).toBe(404);
      expect((await api("GET", "/api/jobs/abc")).status).toBe(404);
      expect((await api("GET", "/api/forms/nope")).status).toBe(404);
    });

    it("reports liveness and readiness", async () => {
      expect((await api("GET", "/api/live", undefined, null)).body).toEqual({ status: "ok" });
      expect((await api("GET", "/api/ready", undefined, null)).body).toEqual({ status: "ready" });
    });
  });
});
