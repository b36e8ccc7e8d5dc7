/**
 * The audit trail through the real app: every security-relevant action, done once through the
 * API, is recorded exactly once with actor, target, outcome and the client's address; a failed
 * sign-in and refused admin actions are recorded; a non-admin cannot read the trail; the export
 * streams JSON lines; and no password, token or credential value is stored in any column.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, dbQuery, startPlayform, type RunningPlayform } from "../support/playform";

const VAULT_PASSWORD = `vault-${randomBytes(9).toString("base64url")}`;
const VAULT_PASSWORD_2 = `vault2-${randomBytes(9).toString("base64url")}`;
const SECRET_VALUE = `secret-${randomBytes(9).toString("base64url")}`;
const USER_PASSWORD = `first-${randomBytes(9).toString("base64url")}`;
const USER_PASSWORD_2 = `second-${randomBytes(9).toString("base64url")}`;
const RESET_PASSWORD = `reset-${randomBytes(9).toString("base64url")}`;
const WRONG_PASSWORD = `wrong-${randomBytes(9).toString("base64url")}`;

let app: RunningPlayform;
let admin: ApiClient;
let adminBearer: string;
let formsDir: string;
/** Every token and secret the test saw: none may be stored in the audit table. */
const secrets: string[] = [VAULT_PASSWORD, VAULT_PASSWORD_2, SECRET_VALUE, USER_PASSWORD, USER_PASSWORD_2, RESET_PASSWORD, WRONG_PASSWORD];

interface Row {
  id: number;
  actor: string | null;
  action: string;
  target: string | null;
  outcome: string;
  ip: string | null;
  userAgent: string | null;
  details: string | null;
}

const rows = () => dbQuery<Row>(app, 'SELECT * FROM "AuditEvent" ORDER BY id');

/** The one event of this action and target (fails when there are none or several). */
async function one(action: string, target: string, outcome = "success"): Promise<Row> {
  const found = (await rows()).filter((row) => row.action === action && row.target === target && row.outcome === outcome);
  expect(found, `${action} ${target} ${outcome}: ${JSON.stringify(found)}`).toHaveLength(1);
  expect(found[0]!.ip).toBe("127.0.0.1");
  return found[0]!;
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

async function tokenFor(user: string, password: string): Promise<string> {
  const response = await fetch(`${app.url}/api/auth/token`, { method: "POST", headers: { authorization: basic(user, password) } });
  expect(response.status).toBe(201);
  const { token } = (await response.json()) as { token: string };
  secrets.push(token);
  return token;
}

beforeAll(async () => {
  // needs-approval, naming a vault credential: every launch waits for a decision and uses it.
  formsDir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-audit-forms-"));
  fs.cpSync(path.resolve(import.meta.dirname, "../fixtures/forms/needs-approval"), path.join(formsDir, "needs-approval"), {
    recursive: true,
  });
  fs.appendFileSync(path.join(formsDir, "needs-approval/form.yaml"), "credentials: [audit-vault]\n");
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: formsDir } });
  secrets.push(app.adminPassword);
  adminBearer = await adminToken(app);
  secrets.push(adminBearer);
  admin = apiClient(app, adminBearer);
});
afterAll(async () => {
  await app?.stop();
  if (formsDir) fs.rmSync(formsDir, { recursive: true, force: true });
});

it("records sign-in (success and failure), sign-out and API tokens", async () => {
  const token = await one("auth.token", "user:admin");
  expect(token.actor).toBe("admin");
  expect(JSON.parse(token.details!)).toMatchObject({ kind: "api" });

  const failed = await fetch(`${app.url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", "user-agent": "audit-test/1" },
    body: JSON.stringify({ username: "admin", password: WRONG_PASSWORD }),
  });
  expect(failed.status).toBe(401);
  const failure = await one("auth.login", "user:admin", "failure");
  expect(failure.actor).toBeNull();
  expect(failure.userAgent).toBe("audit-test/1");
  expect(JSON.parse(failure.details!)).toMatchObject({ username: "admin", error: "unauthorized" });

  const login = await fetch(`${app.url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password: app.adminPassword }),
  });
  expect(login.status).toBe(200);
  const session = login.headers
    .getSetCookie()
    .find((c) => c.startsWith("playform_session="))!
    .split(";")[0]!;
  secrets.push(session.slice(session.indexOf("=") + 1));
  expect((await one("auth.login", "user:admin")).actor).toBe("admin");
  expect((await fetch(`${app.url}/api/auth/logout`, { method: "POST", headers: { cookie: session } })).status).toBe(204);
  expect((await one("auth.logout", "user:admin")).actor).toBe("admin");
});

it("records users created, deleted, role changes, password changes, and denies non-admins", async () => {
  for (const username of ["auditee", "doomed"]) {
    const created = await admin.call("POST", "/api/users", { json: { username, password: USER_PASSWORD } });
    expect(created.status).toBe(201);
    const row = await one("user.create", `user:${username}`);
    expect(row.actor).toBe("admin");
    expect(JSON.parse(row.details!)).toEqual({ role: "user" });
  }
  const user = apiClient(app, await tokenFor("auditee", USER_PASSWORD));
  expect((await one("auth.token", "user:auditee")).actor).toBe("auditee");

  expect(
    (await user.call("POST", "/api/auth/password", { json: { currentPassword: USER_PASSWORD, newPassword: USER_PASSWORD_2 } })).status,
  ).toBe(204);
  expect((await one("auth.password", "user:auditee")).actor).toBe("auditee");

  // A non-admin: 403 on the trail and on admin actions, each recorded as denied.
  const denied = await user.call("GET", "/api/audit");
  expect(denied.status).toBe(403);
  expect((await one("admin.access", "GET /api/audit", "denied")).actor).toBe("auditee");
  expect((await user.call("POST", "/api/users", { json: { username: "sneaky", password: USER_PASSWORD } })).status).toBe(403);
  expect((await one("user.create", "POST /api/users", "denied")).actor).toBe("auditee");

  expect((await admin.call("PATCH", "/api/users/auditee", { json: { role: "admin" } })).status).toBe(204);
  expect(JSON.parse((await one("user.role", "user:auditee")).details!)).toEqual({ from: "user", to: "admin" });
  expect((await admin.call("PATCH", "/api/users/doomed", { json: { password: RESET_PASSWORD } })).status).toBe(204);
  await one("user.password", "user:doomed");
  expect((await admin.call("DELETE", "/api/users/doomed")).status).toBe(204);
  expect((await one("user.delete", "user:doomed")).actor).toBe("admin");
});

it("records credentials, forms import, and job launch, use of credentials, approval, rejection and abort", async () => {
  expect(
    (await admin.call("POST", "/api/credentials", { json: { name: "audit-vault", kind: "vault", password: VAULT_PASSWORD } })).status,
  ).toBe(201);
  expect(JSON.parse((await one("credential.create", "credential:audit-vault")).details!)).toEqual({ kind: "vault" });
  expect((await admin.call("PUT", "/api/credentials/audit-vault", { json: { kind: "vault", password: VAULT_PASSWORD_2 } })).status).toBe(
    200,
  );
  await one("credential.update", "credential:audit-vault");
  const variables = { AUDIT_SECRET: SECRET_VALUE };
  expect((await admin.call("POST", "/api/credentials", { json: { name: "audit-secret", kind: "secret", variables } })).status).toBe(201);
  expect((await admin.call("DELETE", "/api/credentials/audit-secret")).status).toBe(204);
  await one("credential.delete", "credential:audit-secret");

  expect((await admin.call("POST", "/api/forms/import")).status).toBe(200);
  expect((await one("forms.import", "forms")).actor).toBe("admin");

  const [approved, rejected, aborted] = [
    await admin.launch("needs-approval", { reason: "a" }),
    await admin.launch("needs-approval", { reason: "b" }),
    await admin.launch("needs-approval", { reason: "c" }),
  ];
  for (const id of [approved, rejected, aborted]) {
    const launch = await one("job.launch", `job:${id}`);
    expect(launch.actor).toBe("admin");
    expect(JSON.parse(launch.details!)).toMatchObject({ form: "needs-approval" });
  }
  const uses = (await rows()).filter((row) => row.action === "credential.use");
  expect(uses.map((row) => [row.target, JSON.parse(row.details!).job])).toEqual([
    ["credential:audit-vault", approved],
    ["credential:audit-vault", rejected],
    ["credential:audit-vault", aborted],
  ]);
  expect((await admin.call("POST", `/api/jobs/${approved}/approve`, { json: { comment: "ok" } })).status).toBe(200);
  expect((await one("job.approve", `job:${approved}`)).actor).toBe("admin");
  expect((await admin.call("POST", `/api/jobs/${rejected}/reject`)).status).toBe(200);
  await one("job.reject", `job:${rejected}`);
  expect((await admin.call("POST", `/api/jobs/${aborted}/abort`)).status).toBe(202);
  await one("job.abort", `job:${aborted}`);
  await admin.waitForEnd(approved);
});

it("records a runner's join request and every admin action on runners", async () => {
  const join = async (name: string, mode: "outbound" | "inbound") => {
    const response = await fetch(`${app.url}/api/runners/join`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ v: 1, name, mode, address: mode === "inbound" ? "https://127.0.0.1:9/" : null, version: "test", capacity: 1 }),
    });
    expect(response.status).toBe(202);
    const answer = (await response.json()) as { runnerId: string; joinSecret: string };
    secrets.push(answer.joinSecret);
    expect((await one("runner.join", `runner:${name}`)).actor).toBe(`runner:${name}`);
    return answer.runnerId;
  };
  const outbound = await join("audit-out", "outbound");
  const inbound = await join("audit-in", "inbound");
  const refused = await join("audit-refused", "outbound");

  const act = async (id: string, action: string) => {
    const answer = await admin.call("POST", `/api/runners/${id}/${action}`);
    if (typeof answer.json?.token === "string") secrets.push(answer.json.token);
    return answer.status;
  };
  expect(await act(refused, "reject")).toBe(200);
  await one("runner.reject", "runner:audit-refused");
  expect(await act(outbound, "approve")).toBe(200);
  await one("runner.approve", "runner:audit-out");
  expect(await act(outbound, "rotate")).toBe(200);
  await one("runner.rotate", "runner:audit-out");
  expect(await act(outbound, "default")).toBe(200);
  await one("runner.default", "runner:audit-out");
  expect(await act(outbound, "revoke")).toBe(200);
  await one("runner.revoke", "runner:audit-out");
  expect(await act(inbound, "no-tls")).toBe(200);
  await one("runner.no-tls", "runner:audit-in");
  expect(await act(inbound, "require-tls")).toBe(200);
  await one("runner.require-tls", "runner:audit-in");
  // Pending, it has presented no certificate: refused, and recorded as a failure.
  expect(await act(inbound, "repin")).toBe(409);
  expect(JSON.parse((await one("runner.repin", "runner:audit-in", "failure")).details!)).toMatchObject({ error: "conflict" });
});

it("lists newest first with filters and a cursor, and exports JSON lines", async () => {
  const page = await admin.get("/api/audit?action=job.&limit=2");
  expect(page.events).toHaveLength(2);
  expect(page.events.every((e: { action: string }) => e.action.startsWith("job."))).toBe(true);
  expect(page.events[0].id).toBeGreaterThan(page.events[1].id);
  const next = await admin.get(`/api/audit?action=job.&limit=2&before=${page.nextCursor}`);
  expect(next.events[0].id).toBeLessThan(page.events[1].id);
  const launches = await admin.get("/api/audit?action=job.launch&actor=admin");
  expect(launches.events).toHaveLength(3);
  expect(launches.events[0]).toMatchObject({ actor: "admin", action: "job.launch", outcome: "success", ip: "127.0.0.1" });
  expect((await admin.call("GET", "/api/audit?since=not-a-date")).status).toBe(400);
  expect((await admin.call("GET", "/api/audit?limit=501")).status).toBe(400);

  const response = await fetch(`${app.url}/api/audit/export?action=job.launch`, { headers: { authorization: `Bearer ${adminBearer}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
  expect(response.headers.get("content-disposition")).toMatch(/^attachment/);
  const lines = (await response.text())
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as { id: number });
  expect(lines.map((line) => line.id)).toEqual(launches.events.map((e: { id: number }) => e.id));
});

it("records a failed Git sync as a failure with git's reason, and the page says how long events are kept", async () => {
  const missing = path.join(formsDir, "no-such-repo.git");
  expect((await admin.call("POST", "/api/sources", { json: { name: "audit-gone", url: `file://${missing}`, ref: "main" } })).status).toBe(
    201,
  );
  const sync = await admin.call("POST", "/api/sources/audit-gone/sync");
  expect(sync.status).toBe(200);
  expect(sync.json.status).toBe("failed");
  expect(await rows().then((all) => all.filter((row) => row.action === "source.sync" && row.outcome === "success"))).toEqual([]);
  const failed = await one("source.sync", "source:audit-gone", "failure");
  expect(failed.actor).toBe("admin");
  expect(JSON.parse(failed.details!)).toMatchObject({ via: "api", status: "failed", reason: sync.json.error });

  // The page's description says what retention does (PLAYFORM_AUDIT_RETENTION_DAYS is not set here).
  const login = await fetch(`${app.url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password: app.adminPassword }),
  });
  const session = login.headers
    .getSetCookie()
    .find((c) => c.startsWith("playform_session="))!
    .split(";")[0]!;
  secrets.push(session.slice(session.indexOf("=") + 1));
  const html = await (await fetch(`${app.url}/audit`, { headers: { cookie: session } })).text();
  expect(html).not.toContain("no automatic retention");
  expect(html).toContain("PLAYFORM_AUDIT_RETENTION_DAYS is not set, so the daily retention run deletes none");
});

it("stores no password, token or credential value in any column", async () => {
  const stored = JSON.stringify(await rows());
  expect(stored.length).toBeGreaterThan(1000);
  for (const secret of secrets) {
    for (const encoded of [secret, Buffer.from(secret).toString("base64").replace(/=+$/, ""), encodeURIComponent(secret)]) {
      expect(stored, `a secret (${secret.slice(0, 6)}…) in the audit table`).not.toContain(encoded);
    }
  }
});
