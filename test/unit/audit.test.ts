/**
 * The audit trail on a real migrated SQLite database: recording (masked, capped, the origin of
 * the request, never throwing), the filters (actor, action and action prefix, outcome, since),
 * newest-first paging by cursor, the batched export, and the query's checks (docs/api.md).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseAuditExportQuery, parseAuditQuery } from "../../server/api/audit-query";
import { auditExportStream } from "../../server/audit/export";
import { withAuditOrigin } from "../../server/audit/origin";
import { AUDIT_ACTIONS, audited, recordAudit } from "../../server/audit/record";
import { eachAuditEvent, listAuditEvents } from "../../server/data/audit";
import { insertSource } from "../../server/data/sources";
import { runRetention } from "../../server/retention/run";
import { syncInBackground, syncSourceNow } from "../../server/sources/sync";
import { closeDb, getDb } from "../../server/data/db";
import { DomainError } from "../../server/errors";
import { maskInLogs } from "../../server/logging/logger";
import { useTempSqliteDatabase } from "../support/temp-db";

let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ cleanup } = await useTempSqliteDatabase());
});
afterEach(async () => {
  await cleanup();
});

const all = async () => (await listAuditEvents({ filter: {}, limit: 500 })).events;

async function seed(): Promise<void> {
  const rows: [string | null, (typeof AUDIT_ACTIONS)[number], "success" | "failure" | "denied"][] = [
    ["alice", "auth.login", "success"],
    ["alice", "job.launch", "success"],
    ["bob", "job.approve", "denied"],
    ["admin", "job.approve", "success"],
    [null, "auth.login", "failure"],
    ["bob", "jobs.weird" as never, "success"],
  ];
  for (const [actor, action, outcome] of rows) await recordAudit({ actor, action, target: "job:1", outcome });
}

describe("recording", () => {
  it("stores who, what, to what, the outcome and the request's origin", async () => {
    const request = new Request("http://app/api/x", { headers: { "x-playform-client-ip": "192.0.2.7", "user-agent": "curl/8" } });
    await recordAudit(
      { actor: "alice", action: "user.create", target: "user:bob", outcome: "success", details: { role: "user" } },
      request,
    );
    const [event] = await all();
    expect(event).toMatchObject({
      actor: "alice",
      action: "user.create",
      target: "user:bob",
      outcome: "success",
      ip: "192.0.2.7",
      userAgent: "curl/8",
      details: { role: "user" },
    });
    expect(Date.now() - Date.parse(event!.at)).toBeLessThan(60_000);
  });

  it("takes the origin of the request being served when no request is given", async () => {
    await withAuditOrigin({ ip: "198.51.100.2", userAgent: "browser" }, () =>
      recordAudit({ actor: "bob", action: "job.abort", target: "job:3", outcome: "success" }),
    );
    await recordAudit({ actor: null, action: "credential.create", target: "credential:x", outcome: "success" });
    const [outside, inside] = await all();
    expect(inside).toMatchObject({ ip: "198.51.100.2", userAgent: "browser" });
    expect(outside).toMatchObject({ ip: null, userAgent: null, details: null });
  });

  it("never stores the value of a secret key nor a known secret value, in details or elsewhere", async () => {
    const release = maskInLogs(["s3cret-Value-42"]);
    try {
      await recordAudit({
        actor: "alice",
        action: "credential.update",
        target: "credential:s3cret-Value-42",
        outcome: "success",
        details: { password: "hunter2-hunter2", nested: { token: "pfa_abc", note: "was s3cret-Value-42" }, Extravars: { a: 1 } },
      });
    } finally {
      release();
    }
    const raw = await getDb().auditEvent.findMany();
    const text = JSON.stringify(raw);
    for (const secret of ["hunter2-hunter2", "pfa_abc", "s3cret-Value-42"]) expect(text).not.toContain(secret);
    expect(JSON.parse(raw[0]!.details!)).toEqual({
      password: "********",
      nested: { token: "********", note: "was ********" },
      Extravars: "********",
    });
  });

  it("never throws into the caller when storing fails", async () => {
    await closeDb();
    await cleanup();
    // The database file is gone: the insert fails, recordAudit resolves all the same.
    await expect(recordAudit({ actor: "a", action: "job.launch", target: null, outcome: "success" })).resolves.toBeUndefined();
    ({ cleanup } = await useTempSqliteDatabase());
  });

  it("audited records success with the result's target, failure or denied with the error, and throws on", async () => {
    const id = await audited(
      { actor: "alice", action: "job.launch", target: "form:x", targetOf: (r: number) => `job:${r}` },
      async () => 12,
    );
    expect(id).toBe(12);
    await expect(
      audited({ actor: "alice", action: "job.abort", target: "job:4" }, async () => {
        throw new DomainError("conflict", "job 4 already ended");
      }),
    ).rejects.toThrow("already ended");
    await expect(
      audited({ actor: "bob", action: "job.approve", target: "job:5" }, async () => {
        throw new DomainError("forbidden", "no");
      }),
    ).rejects.toThrow();
    const [denied, failed, ok] = await all();
    expect(ok).toMatchObject({ action: "job.launch", target: "job:12", outcome: "success" });
    expect(failed).toMatchObject({
      action: "job.abort",
      outcome: "failure",
      details: { error: "conflict", reason: "job 4 already ended" },
    });
    expect(denied).toMatchObject({ action: "job.approve", outcome: "denied" });
  });
});

describe("outcomes", () => {
  it("a Git sync that fails is recorded as a failure with its reason, by an admin and by a webhook; one that works as a success", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "playform-audit-sync-"));
    try {
      const source = (name: string, url: string) =>
        insertSource({ id: name, name, url, ref: "main", credential: null, formsPath: "", syncIntervalMinutes: null, webhookSecret: null });
      await source("gone", `file://${path.join(root, "no-such-repo.git")}`);
      const result = await syncSourceNow("gone", "admin");
      expect(result.status).toBe("failed");
      await syncInBackground("gone", "webhook");

      // A repository that syncs: an empty forms folder imports nothing and fails nothing.
      const bare = path.join(root, "ok.git");
      const work = path.join(root, "work");
      await execa("git", ["init", "-q", "--bare", "--initial-branch=main", bare]);
      await execa("git", ["init", "-q", "--initial-branch=main", work]);
      fs.writeFileSync(path.join(work, "README"), "no forms yet\n");
      const git = (...args: string[]) => execa("git", ["-c", "user.name=T", "-c", "user.email=t@example.com", ...args], { cwd: work });
      await git("add", "-A");
      await git("commit", "-q", "-m", "one");
      await git("push", "-q", bare, "HEAD:main");
      await source("ok", `file://${bare}`);
      expect((await syncSourceNow("ok", "admin")).status).toBe("ok");

      const syncs = (await all()).filter((e) => e.action === "source.sync").reverse();
      expect(syncs.map((e) => [e.target, e.actor, e.outcome])).toEqual([
        ["source:gone", "admin", "failure"],
        ["source:gone", null, "failure"],
        ["source:ok", "admin", "success"],
      ]);
      expect(syncs[0]!.details).toMatchObject({ via: "api", status: "failed", reason: result.error });
      expect(syncs[1]!.details).toMatchObject({ via: "webhook", status: "failed", reason: result.error });
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it("a retention run that breaks off is recorded as a failure", async () => {
    // An invalid date makes the run's first query throw.
    const run = runRetention({
      settings: { days: 3, keepPerForm: null, auditDays: null, hour: null },
      now: new Date(Number.NaN),
      actor: "alice",
    });
    await expect(run).rejects.toThrow();
    const [event] = (await all()).filter((e) => e.action === "retention.run");
    expect(event).toMatchObject({ actor: "alice", outcome: "failure", details: { error: "internal" } });
  });
});

describe("filters and paging", () => {
  it("filters by actor, exact action, action prefix, outcome and since", async () => {
    await seed();
    const actions = async (filter: Parameters<typeof listAuditEvents>[0]["filter"]) =>
      (await listAuditEvents({ filter, limit: 50 })).events.map((e) => `${e.actor}:${e.action}`);
    expect(await actions({ actor: "bob" })).toEqual(["bob:jobs.weird", "bob:job.approve"]);
    expect(await actions({ action: "job.approve" })).toEqual(["admin:job.approve", "bob:job.approve"]);
    // A prefix ends with a dot: "job." does not take "jobs.weird".
    expect(await actions({ action: "job." })).toEqual(["admin:job.approve", "bob:job.approve", "alice:job.launch"]);
    expect(await actions({ action: "job" })).toEqual([]);
    expect(await actions({ outcome: "denied" })).toEqual(["bob:job.approve"]);
    expect(await actions({ since: new Date(Date.now() + 60_000) })).toEqual([]);
    expect(await actions({ since: new Date(Date.now() - 60_000), actor: "alice" })).toEqual(["alice:job.launch", "alice:auth.login"]);
  });

  it("pages newest first with a cursor, every event once", async () => {
    await seed();
    const seen: number[] = [];
    let before: number | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await listAuditEvents({ filter: {}, limit: 4, before });
      seen.push(...page.events.map((e) => e.id));
      if (page.nextCursor === null) break;
      before = Number(page.nextCursor);
    }
    expect(seen).toHaveLength(6);
    expect(seen).toEqual([...seen].sort((a, b) => b - a));
    expect(new Set(seen).size).toBe(6);
  });

  it("exports every matching event as JSON lines, batch by batch", async () => {
    for (let i = 0; i < 23; i++) await recordAudit({ actor: `u${i % 2}`, action: "job.launch", target: `job:${i}`, outcome: "success" });
    let batches = 0;
    for await (const event of eachAuditEvent({ actor: "u1" }, 5)) {
      expect(event.actor).toBe("u1");
      batches++;
    }
    expect(batches).toBe(11);
    const text = await new Response(auditExportStream({}, 7)).text();
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(23);
    expect(lines.map((line) => (JSON.parse(line) as { target: string }).target)[0]).toBe("job:22");
  });
});

describe("the query", () => {
  const req = (query: string) => new Request(`http://app/api/audit?${query}`);

  it("reads the filters, the limit and the cursor; empty parameters are left out", () => {
    const query = parseAuditQuery(req("actor=alice&action=job.&outcome=denied&since=2026-03-01&limit=20&before=99&since="));
    expect(query).toEqual({
      filter: { actor: "alice", action: "job.", outcome: "denied", since: new Date("2026-03-01T00:00:00Z") },
      limit: 20,
      before: 99,
    });
    expect(parseAuditQuery(req("actor="))).toEqual({ filter: {}, limit: 100, before: undefined });
    expect(parseAuditExportQuery(req("format=jsonl&action=auth."))).toEqual({ action: "auth." });
  });

  it("answers 400 naming the parameter for a bad date, limit, cursor or outcome", () => {
    const problem = (query: string) => {
      try {
        parseAuditQuery(req(query));
        return null;
      } catch (error) {
        return error instanceof DomainError ? `${error.code} ${error.message}` : String(error);
      }
    };
    expect(problem("since=yesterday")).toMatch(/^bad_request since: must be an ISO 8601 date/);
    expect(problem("since=2026-02-30")).toMatch(/^bad_request since:/);
    expect(problem("limit=0")).toMatch(/^bad_request limit:/);
    expect(problem("limit=501")).toMatch(/^bad_request limit:/);
    expect(problem("before=abc")).toMatch(/^bad_request before:/);
    expect(problem("outcome=maybe")).toMatch(/^bad_request outcome:/);
  });

  it("every action name is documented in docs/api.md", () => {
    const doc = fs.readFileSync(path.join(import.meta.dirname, "../../docs/api.md"), "utf8");
    for (const action of AUDIT_ACTIONS) expect(doc, action).toContain(`\`${action}\``);
  });
});
