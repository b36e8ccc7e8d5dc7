/**
 * Personal API tokens (create, list, use, revoke, expiry, limits, who may see and revoke
 * whose) and the cross-site request protection of cookie sessions (HTTP and the /ui socket).
 */
import { createHash } from "node:crypto";
import { io, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UI_NAMESPACE } from "@/server/protocol/ui-messages";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, dbExecute, dbQuery, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let admin: ApiClient;
let alice: ApiClient;

async function basicToken(username: string, password: string): Promise<string> {
  const response = await fetch(`${app.url}/api/auth/token`, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}` },
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { token: string }).token;
}

async function makeToken(client: ApiClient, name: string, expiresInDays?: number): Promise<{ id: string; token: string }> {
  const made = await client.call("POST", "/api/tokens", { json: expiresInDays === undefined ? { name } : { name, expiresInDays } });
  expect(made.status, JSON.stringify(made.json)).toBe(201);
  return made.json;
}

/**
 * The personal tokens of a listing (GET /api/tokens also lists sign-in tokens, such as those
 * the clients of these tests authenticate with).
 */
const personal = (listing: { tokens: { kind: string }[] }) => listing.tokens.filter((t) => t.kind === "personal") as any[];

/** GET /api/auth/me with a bearer token: the status and, on 200, the username. */
async function whoIs(token: string): Promise<{ status: number; user?: string; message?: string }> {
  const answer = await apiClient(app, token).call("GET", "/api/auth/me");
  return { status: answer.status, user: answer.json?.user?.username, message: answer.json?.error?.message };
}

beforeAll(async () => {
  app = await startPlayform();
  admin = apiClient(app, await adminToken(app));
  for (const username of ["alice", "bob"]) {
    expect((await admin.call("POST", "/api/users", { json: { username, password: `${username}-password-1` } })).status).toBe(201);
  }
  alice = apiClient(app, await basicToken("alice", "alice-password-1"));
});
afterAll(async () => {
  await app?.stop();
});

describe("personal API tokens", () => {
  it("are made, listed without their secret, used as their user, and revoked at once", async () => {
    const before = Date.now();
    const made = await alice.call("POST", "/api/tokens", { json: { name: "backup script", expiresInDays: 7 } });
    expect(made.status).toBe(201);
    expect(made.json.token).toMatch(/^pfp_[A-Za-z0-9_-]{43}$/);
    expect(made.json).toMatchObject({ name: "backup script", user: "alice", lastUsedAt: null });
    const days = (Date.parse(made.json.expiresAt) - before) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThan(7.01);
    // Only the hash is stored.
    const stored = await dbQuery<{ tokenHash: string; kind: string }>(app, 'SELECT "tokenHash", "kind" FROM "AuthToken" WHERE "id" = $1', [
      made.json.id,
    ]);
    expect(stored).toEqual([{ tokenHash: expect.not.stringContaining(made.json.token.slice(4)), kind: "personal" }]);

    expect(await whoIs(made.json.token)).toEqual({ status: 200, user: "alice" });
    const listed = await alice.get("/api/tokens");
    expect(personal(listed)).toHaveLength(1);
    const [row] = personal(listed);
    expect(Object.keys(row).sort()).toEqual(["createdAt", "expiresAt", "id", "kind", "lastUsedAt", "name", "parentId", "scope", "user"]);
    expect(row.id).toBe(made.json.id);
    expect(row.lastUsedAt).not.toBeNull();
    expect(JSON.stringify(listed)).not.toContain(made.json.token);
    expect(JSON.stringify(listed)).not.toContain(stored[0]!.tokenHash);

    // Used again within the minute: lastUsedAt is not written again.
    expect((await whoIs(made.json.token)).status).toBe(200);
    expect(personal(await alice.get("/api/tokens"))[0].lastUsedAt).toBe(row.lastUsedAt);

    expect((await alice.call("DELETE", `/api/tokens/${made.json.id}`)).status).toBe(204);
    // The 401 says what happened to the token, and what to do.
    expect(await whoIs(made.json.token)).toEqual({
      status: 401,
      user: undefined,
      message:
        "this token is not valid (revoked, or never issued): make a new one on your Account page, or sign in again (POST /api/auth/token)",
    });
    expect(personal(await alice.get("/api/tokens"))).toEqual([]);
    expect((await alice.call("DELETE", `/api/tokens/${made.json.id}`)).status).toBe(404);
  });

  it("last 30 days unless asked otherwise and are refused once expired", async () => {
    const before = Date.now();
    const made = await makeToken(alice, "short lived");
    const listed = (await alice.get("/api/tokens")).tokens.find((t: { id: string }) => t.id === made.id);
    expect(Math.round((Date.parse(listed.expiresAt) - before) / 86_400_000)).toBe(30);
    expect((await whoIs(made.token)).status).toBe(200);

    const past = new Date(Date.now() - 1000).toISOString().replace("Z", "+00:00");
    await dbExecute(app, 'UPDATE "AuthToken" SET "expiresAt" = $1 WHERE "id" = $2', [past, made.id]);
    const refused = await whoIs(made.token);
    expect(refused.status).toBe(401);
    expect(refused.message).toMatch(/^this token expired at \d{4}-\d\d-\d\dT[\d:.]+Z: make a new one on your Account page/);
    expect((await alice.get("/api/tokens")).tokens.map((t: { id: string }) => t.id)).not.toContain(made.id);
    // An expired token's name is free again.
    const again = await makeToken(alice, "short lived", 1);
    expect((await whoIs(again.token)).status).toBe(200);
    expect((await alice.call("DELETE", `/api/tokens/${again.id}`)).status).toBe(204);
  });

  it("explain bad names and lifetimes field by field, and refuse a name in use", async () => {
    const cases: [unknown, string, RegExp][] = [
      [{ name: "" }, "name", /is required/],
      [{ name: "   " }, "name", /is required/],
      [{ name: "x".repeat(101) }, "name", /at most 100/],
      [{ name: "tab\tname" }, "name", /control characters/],
      [{ name: "n", expiresInDays: 0 }, "expiresInDays", /at least 1 day/],
      [{ name: "n", expiresInDays: 366 }, "expiresInDays", /at most 365/],
      [{ name: "n", expiresInDays: 1.5 }, "expiresInDays", /whole number/],
      [{ name: "n", expiresInDays: "30" }, "expiresInDays", /number/],
    ];
    for (const [json, field, message] of cases) {
      const answer = await alice.call("POST", "/api/tokens", { json });
      expect(answer.status, JSON.stringify(json)).toBe(422);
      expect(answer.json.error.fields[field], JSON.stringify(answer.json)).toMatch(message);
    }
    const unknownKey = await alice.call("POST", "/api/tokens", { json: { name: "n", scopes: ["admin"] } });
    expect(unknownKey.status).toBe(422);
    expect(unknownKey.json.error.message).toMatch(/unknown key "scopes"/);

    const first = await makeToken(alice, "ci deploy", 90);
    const duplicate = await alice.call("POST", "/api/tokens", { json: { name: " ci deploy ", expiresInDays: 5 } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.json.error.message).toBe('you already have a token named "ci deploy"');
    // Another user may use the same name.
    const bob = apiClient(app, await basicToken("bob", "bob-password-1"));
    await makeToken(bob, "ci deploy");
    expect((await alice.call("DELETE", `/api/tokens/${first.id}`)).status).toBe(204);
  });

  it("carry their user's rights, never more: a user's token cannot list, see or revoke others' tokens", async () => {
    const own = await makeToken(alice, "rights");
    const asAlice = apiClient(app, own.token);
    expect((await asAlice.call("GET", "/api/users")).status).toBe(403);
    expect((await asAlice.call("POST", "/api/users", { json: { username: "mallory", password: "mallory-password" } })).status).toBe(403);
    const all = await asAlice.call("GET", "/api/tokens?all=1");
    expect(all.status).toBe(403);
    expect(all.json.error.message).toMatch(/admin role/);
    expect((await asAlice.call("GET", "/api/tokens?user=admin")).status).toBe(403);
    expect((await asAlice.call("GET", "/api/tokens?user=alice")).status).toBe(200);
    // A token may make tokens only for its own user.
    const child = await makeToken(asAlice, "made by a token");
    expect(await whoIs(child.token)).toEqual({ status: 200, user: "alice" });

    const adminsToken = await makeToken(admin, "admin automation");
    const notYours = await asAlice.call("DELETE", `/api/tokens/${adminsToken.id}`);
    expect(notYours.status).toBe(404);
    expect(notYours.json.error.message).toBe(`no token ${adminsToken.id}`);
    expect((await whoIs(adminsToken.token)).status).toBe(200);

    // A browser session is not listed here, nor revocable here (sign-in tokens are).
    await sessionCookie("bob", "bob-password-1");
    const [session] = await dbQuery<{ id: string }>(app, `SELECT "id" FROM "AuthToken" WHERE "kind" = 'session' LIMIT 1`);
    expect((await admin.call("DELETE", `/api/tokens/${session!.id}`)).status).toBe(404);

    for (const id of [own.id, adminsToken.id]) expect((await admin.call("DELETE", `/api/tokens/${id}`)).status).toBe(204);
    // The token made with `own` went with it (a child no longer survives its parent).
    expect((await whoIs(child.token)).status).toBe(401);
    expect((await admin.call("DELETE", `/api/tokens/${child.id}`)).status).toBe(404);
  });

  it("never outlive a change of their user's role", async () => {
    expect(
      (await admin.call("POST", "/api/users", { json: { username: "dave", password: "dave-password-1", role: "admin" } })).status,
    ).toBe(201);
    const dave = apiClient(app, await basicToken("dave", "dave-password-1"));
    const made = await makeToken(dave, "admin script");
    expect((await apiClient(app, made.token).call("GET", "/api/users")).status).toBe(200);
    expect((await admin.call("PATCH", "/api/users/dave", { json: { role: "user" } })).status).toBe(204);
    expect((await whoIs(made.token)).status).toBe(401);
    // Made after the demotion: a user's rights only.
    const after = await makeToken(apiClient(app, await basicToken("dave", "dave-password-1")), "user script");
    expect((await apiClient(app, after.token).call("GET", "/api/users")).status).toBe(403);
    expect(await whoIs(after.token)).toEqual({ status: 200, user: "dave" });
  });

  it("are listed and revoked by an admin for any user", async () => {
    const kept = await makeToken(alice, "kept");
    const doomed = await makeToken(alice, "doomed");
    const aliceList = await admin.get("/api/tokens?user=alice");
    expect(
      personal(aliceList)
        .map((t: { name: string }) => t.name)
        .sort(),
    ).toEqual(["doomed", "kept"]);
    expect(aliceList.tokens.every((t: { user: string }) => t.user === "alice")).toBe(true);
    const everyone = await admin.get("/api/tokens?all=1");
    expect(new Set(personal(everyone).map((t: { user: string }) => t.user))).toEqual(new Set(["alice", "bob", "dave"]));
    expect(personal(await admin.get("/api/tokens"))).toEqual([]);
    expect((await admin.call("GET", "/api/tokens?user=nobody")).status).toBe(404);
    expect((await admin.call("GET", "/api/tokens?all=yes")).status).toBe(400);

    expect((await admin.call("DELETE", `/api/tokens/${doomed.id}`)).status).toBe(204);
    expect((await whoIs(doomed.token)).status).toBe(401);
    expect(await whoIs(kept.token)).toEqual({ status: 200, user: "alice" });
    expect(personal(await alice.get("/api/tokens")).map((t: { name: string }) => t.name)).toEqual(["kept"]);
    expect((await alice.call("DELETE", `/api/tokens/${kept.id}`)).status).toBe(204);
  });

  it("are limited to 50 unexpired per user", async () => {
    const bob = apiClient(app, await basicToken("bob", "bob-password-1"));
    const have = personal(await bob.get("/api/tokens")).length;
    for (let i = have; i < 50; i++) await makeToken(bob, `bulk ${i}`);
    const over = await bob.call("POST", "/api/tokens", { json: { name: "one too many" } });
    expect(over.status).toBe(409);
    expect(over.json.error.message).toMatch(/you have 50 tokens, the most one may hold \(50\); revoke one first/);
    // Others are not affected.
    await makeToken(alice, "not bob");
  });

  it("end with their user's account", async () => {
    expect((await admin.call("POST", "/api/users", { json: { username: "carol", password: "carol-password-1" } })).status).toBe(201);
    const carol = apiClient(app, await basicToken("carol", "carol-password-1"));
    const made = await makeToken(carol, "leaving");
    expect((await admin.call("DELETE", "/api/users/carol")).status).toBe(204);
    expect((await whoIs(made.token)).status).toBe(401);
  });
});

/** POST /api/auth/login as a browser would: the session cookie (`playform_session=…`). */
async function sessionCookie(username: string, password: string): Promise<string> {
  const response = await fetch(`${app.url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username, password }),
  });
  expect(response.status).toBe(200);
  return /^[^;]+/.exec(response.headers.getSetCookie().find((c) => c.startsWith("playform_session="))!)![0];
}

async function meWithCookie(cookie: string): Promise<number> {
  return (await fetch(`${app.url}/api/auth/me`, { headers: { cookie } })).status;
}

describe("sign-in tokens (POST /api/auth/token)", () => {
  it("are listed and revoked like personal tokens, and end at a logout made with them", async () => {
    expect((await admin.call("POST", "/api/users", { json: { username: "erin", password: "erin-password-1" } })).status).toBe(201);
    const first = await basicToken("erin", "erin-password-1");
    const second = await basicToken("erin", "erin-password-1");
    const erin = apiClient(app, first);
    const listed = (await erin.get("/api/tokens")).tokens;
    expect(listed).toHaveLength(2);
    for (const row of listed) expect(row).toMatchObject({ kind: "sign-in", user: "erin", scope: "admin", name: "" });
    expect(JSON.stringify(listed)).not.toContain(first);
    // Admins see them too.
    expect((await admin.get("/api/tokens?user=erin")).tokens).toHaveLength(2);

    // Revoked by id, as a personal token is.
    const secondHash = createHash("sha256").update(second).digest("hex");
    const [stored] = await dbQuery<{ id: string }>(app, 'SELECT "id" FROM "AuthToken" WHERE "tokenHash" = $1', [secondHash]);
    expect(listed.map((row: { id: string }) => row.id)).toContain(stored!.id);
    expect((await erin.call("DELETE", `/api/tokens/${stored!.id}`)).status).toBe(204);
    expect((await whoIs(second)).status).toBe(401);
    expect(await whoIs(first)).toEqual({ status: 200, user: "erin" });

    // Logout with a bearer token ends that token.
    const third = await basicToken("erin", "erin-password-1");
    const made = await makeToken(apiClient(app, third), "made by a sign-in token");
    const out = await apiClient(app, third).call("POST", "/api/auth/logout");
    expect(out.status).toBe(204);
    expect((await whoIs(third)).status).toBe(401);
    // What it made ends with it.
    expect((await whoIs(made.token)).status).toBe(401);
  });

  it("a password change ends every other session and token of the user, not the one that made it", async () => {
    expect((await admin.call("POST", "/api/users", { json: { username: "frank", password: "frank-password-1" } })).status).toBe(201);
    const changer = await basicToken("frank", "frank-password-1");
    const other = await basicToken("frank", "frank-password-1");
    const personal = await makeToken(apiClient(app, await basicToken("frank", "frank-password-1")), "frank's script");
    const cookie = await sessionCookie("frank", "frank-password-1");
    expect(await meWithCookie(cookie)).toBe(200);

    const changed = await apiClient(app, changer).call("POST", "/api/auth/password", {
      json: { currentPassword: "frank-password-1", newPassword: "frank-password-2" },
    });
    expect(changed.status).toBe(204);
    expect(await whoIs(changer)).toEqual({ status: 200, user: "frank" });
    expect((await whoIs(other)).status).toBe(401);
    expect((await whoIs(personal.token)).status).toBe(401);
    expect(await meWithCookie(cookie)).toBe(401);
    expect((await apiClient(app, changer).get("/api/tokens")).tokens.map((t: { kind: string }) => t.kind)).toEqual(["sign-in"]);

    // An admin changing their own password on the Users page: the same.
    expect(
      (await admin.call("POST", "/api/users", { json: { username: "gina", password: "gina-password-1", role: "admin" } })).status,
    ).toBe(201);
    const ginaChanger = await basicToken("gina", "gina-password-1");
    const ginaOther = await basicToken("gina", "gina-password-1");
    const viaPatch = await apiClient(app, ginaChanger).call("PATCH", "/api/users/gina", { json: { password: "gina-password-2" } });
    expect(viaPatch.status).toBe(204);
    expect(await whoIs(ginaChanger)).toEqual({ status: 200, user: "gina" });
    expect((await whoIs(ginaOther)).status).toBe(401);
  });
});

describe("token scopes and expiry", () => {
  async function scoped(
    client: ApiClient,
    name: string,
    extra: Record<string, unknown>,
  ): Promise<{ id: string; token: string; scope: string; expiresAt: string }> {
    const made = await client.call("POST", "/api/tokens", { json: { name, ...extra } });
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    return made.json;
  }

  it("read only reads, launch also launches and aborts, admin does everything the user may", async () => {
    const read = await scoped(admin, "reader", { scope: "read" });
    expect(read.scope).toBe("read");
    const reader = apiClient(app, read.token);
    expect((await reader.call("GET", "/api/users")).status).toBe(200);
    expect((await reader.call("GET", "/api/jobs")).status).toBe(200);
    const refused = await reader.call("POST", "/api/users", { json: { username: "by-reader", password: "by-reader-password" } });
    expect(refused.status).toBe(403);
    expect(refused.json.error.message).toMatch(/scope "read"/);
    expect((await reader.call("POST", "/api/jobs", { json: { form: "no-such-form", values: {} } })).status).toBe(403);
    expect((await reader.call("POST", "/api/jobs/999999/abort")).status).toBe(403);

    const launch = await scoped(admin, "launcher", { scope: "launch" });
    const launcher = apiClient(app, launch.token);
    // Past the scope: the form or job simply does not exist.
    expect((await launcher.call("POST", "/api/jobs", { json: { form: "no-such-form", values: {} } })).status).toBe(404);
    expect((await launcher.call("POST", "/api/jobs/999999/abort")).status).toBe(404);
    expect((await launcher.call("POST", "/api/jobs/999999/approve")).status).toBe(404);
    const noUsers = await launcher.call("POST", "/api/users", { json: { username: "by-launcher", password: "by-launcher-pw" } });
    expect(noUsers.status).toBe(403);
    expect(noUsers.json.error.message).toMatch(/scope "launch"/);
    expect((await launcher.call("DELETE", `/api/tokens/${read.id}`)).status).toBe(403);

    const full = await scoped(admin, "full", {});
    expect(full.scope).toBe("admin");
    const fullClient = apiClient(app, full.token);
    expect((await fullClient.call("POST", "/api/users", { json: { username: "by-full", password: "by-full-password" } })).status).toBe(201);
    // An admin scope never lends the admin role.
    const aliceAdmin = await scoped(alice, "alice full", { scope: "admin" });
    expect((await apiClient(app, aliceAdmin.token).call("GET", "/api/users")).status).toBe(403);

    for (const token of [read, launch, full, aliceAdmin]) {
      const owner = token === aliceAdmin ? alice : admin;
      expect((await owner.call("DELETE", `/api/tokens/${token.id}`)).status).toBe(204);
    }
  });

  it("a token makes tokens with no more scope and no longer life than it has, and revoking it revokes them", async () => {
    const parent = await scoped(admin, "parent", { scope: "launch", expiresInDays: 3 });
    const asParent = apiClient(app, parent.token);
    const wider = await asParent.call("POST", "/api/tokens", { json: { name: "wider", scope: "admin" } });
    expect(wider.status).toBe(403);
    expect(wider.json.error.fields.scope).toMatch(/at most "launch"/);
    // Left out: the parent's scope, and never past the parent's expiry.
    const child = await scoped(asParent, "child", {});
    expect(child.scope).toBe("launch");
    expect(Date.parse(child.expiresAt)).toBeLessThanOrEqual(Date.parse(parent.expiresAt));
    const grandchild = await scoped(apiClient(app, child.token), "grandchild", { scope: "read", expiresInDays: 300 });
    expect(grandchild.scope).toBe("read");
    expect(Date.parse(grandchild.expiresAt)).toBeLessThanOrEqual(Date.parse(parent.expiresAt));
    const readOnly = await scoped(apiClient(app, grandchild.token), "read child", {});
    expect(readOnly.scope).toBe("read");
    expect((await apiClient(app, grandchild.token).call("POST", "/api/tokens", { json: { name: "x", scope: "launch" } })).status).toBe(403);

    expect((await admin.call("DELETE", `/api/tokens/${parent.id}`)).status).toBe(204);
    for (const token of [parent, child, grandchild, readOnly]) expect((await whoIs(token.token)).status, token.scope).toBe(401);
    const left = (await admin.get("/api/tokens")).tokens.map((t: { name: string }) => t.name);
    expect(left).not.toEqual(expect.arrayContaining(["child"]));
  });

  it("take an expiry as a date, and an expired one answers 401", async () => {
    const at = new Date(Date.now() + 2 * 86_400_000);
    const dated = await scoped(alice, "dated", { expiresAt: at.toISOString() });
    expect(Math.abs(Date.parse(dated.expiresAt) - at.getTime())).toBeLessThan(1000);
    const bad: [unknown, RegExp][] = [
      [{ name: "past", expiresAt: new Date(Date.now() - 60_000).toISOString() }, /in the future/],
      [{ name: "far", expiresAt: new Date(Date.now() + 400 * 86_400_000).toISOString() }, /365 days/],
      [{ name: "garbled", expiresAt: "tomorrow" }, /date and time/],
      [{ name: "both", expiresAt: at.toISOString(), expiresInDays: 2 }, /not both/],
      [{ name: "scoped", scope: "write" }, /must be one of/],
    ];
    for (const [json, message] of bad) {
      const answer = await alice.call("POST", "/api/tokens", { json });
      expect(answer.status, JSON.stringify(json)).toBe(422);
      expect(JSON.stringify(answer.json.error.fields), JSON.stringify(json)).toMatch(message);
    }
    const past = new Date(Date.now() - 1000).toISOString().replace("Z", "+00:00");
    await dbExecute(app, 'UPDATE "AuthToken" SET "expiresAt" = $1 WHERE "id" = $2', [past, dated.id]);
    expect((await whoIs(dated.token)).status).toBe(401);
  });

  it("refuse names with bidirectional, format or control characters, naming the field", async () => {
    for (const name of ["invoice\u202Etxt.exe", "zero\u200Bwidth", "isolate\u2066x", "line\u2028sep", "del\u007f"]) {
      const answer = await alice.call("POST", "/api/tokens", { json: { name } });
      expect(answer.status, JSON.stringify(name)).toBe(422);
      expect(answer.json.error.fields.name, JSON.stringify(name)).toMatch(/U\+[0-9A-F]{4}/);
    }
    expect((await alice.get("/api/tokens")).tokens.map((t: { name: string }) => t.name)).not.toContain("invoice\u202Etxt.exe");
    // Letters of any script are fine.
    const made = await makeToken(alice, "déploiement ñ 部署");
    expect((await alice.call("DELETE", `/api/tokens/${made.id}`)).status).toBe(204);
  });
});

describe("cross-site request protection", () => {
  let cookie: string;

  function withCookie(method: string, path: string, headers: Record<string, string> = {}, json?: unknown): Promise<Response> {
    return fetch(`${app.url}${path}`, {
      method,
      headers: { cookie, ...(json === undefined ? {} : { "content-type": "application/json" }), ...headers },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
  }

  async function login(headers: Record<string, string>): Promise<Response> {
    return fetch(`${app.url}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ username: "alice", password: "alice-password-1" }),
    });
  }

  beforeAll(async () => {
    const response = await login({ origin: app.url, "sec-fetch-site": "same-origin" });
    expect(response.status).toBe(200);
    cookie = /^[^;]+/.exec(response.headers.getSetCookie().find((c) => c.startsWith("playform_session="))!)![0];
  });

  it("refuses a cross-site login (login CSRF) and cross-site state changes riding on the session cookie", async () => {
    const foreignLogin = await login({ origin: "https://evil.example" });
    expect(foreignLogin.status).toBe(403);
    expect(foreignLogin.headers.getSetCookie()).toEqual([]);
    expect(((await foreignLogin.json()) as { error: { code: string; message: string } }).error).toEqual({
      code: "forbidden",
      message: expect.stringMatching(/^cross-site request refused: .*\(Origin https:\/\/evil\.example\)/),
    });
    expect((await login({ "sec-fetch-site": "cross-site" })).status).toBe(403);

    const post = await withCookie("POST", "/api/tokens", { origin: "https://evil.example" }, { name: "csrf" });
    expect(post.status).toBe(403);
    expect(((await post.json()) as { error: { message: string } }).error.message).toMatch(/cross-site request refused/);
    expect((await withCookie("POST", "/api/tokens", { "sec-fetch-site": "cross-site" }, { name: "csrf" })).status).toBe(403);
    expect((await withCookie("POST", "/api/tokens", { referer: "https://evil.example/page" }, { name: "csrf" })).status).toBe(403);
    expect((await withCookie("POST", "/api/tokens", { origin: "null" }, { name: "csrf" })).status).toBe(403);
    expect((await alice.get("/api/tokens")).tokens.map((t: { name: string }) => t.name)).not.toContain("csrf");

    const victim = await makeToken(alice, "victim");
    const del = await withCookie("DELETE", `/api/tokens/${victim.id}`, { origin: "https://evil.example", "sec-fetch-site": "cross-site" });
    expect(del.status).toBe(403);
    expect((await whoIs(victim.token)).status).toBe(200);
    expect((await withCookie("POST", "/api/auth/logout", { origin: "https://evil.example" })).status).toBe(403);
    expect((await withCookie("GET", "/api/auth/me")).status).toBe(200);
  });

  it("lets same-origin, bearer, non-browser and read-only requests through", async () => {
    const same = await withCookie("POST", "/api/tokens", { origin: app.url, "sec-fetch-site": "same-origin" }, { name: "same origin" });
    expect(same.status).toBe(201);
    const made = (await same.json()) as { id: string; token: string };
    // No Origin, Referer or Sec-Fetch-Site: a script or curl, not a browser page.
    expect((await withCookie("POST", "/api/tokens", {}, { name: "no browser" })).status).toBe(201);

    const bearer = await fetch(`${app.url}/api/tokens`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${made.token}`,
        origin: "https://evil.example",
        "sec-fetch-site": "cross-site",
        "content-type": "application/json",
      },
      body: JSON.stringify({ name: "bearer from anywhere" }),
    });
    expect(bearer.status).toBe(201);

    const read = await withCookie("GET", "/api/tokens", { origin: "https://evil.example", "sec-fetch-site": "cross-site" });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { tokens: { name: string }[] }).tokens.map((t) => t.name)).toEqual(
      expect.arrayContaining(["same origin", "no browser", "bearer from anywhere"]),
    );
    expect((await withCookie("DELETE", `/api/tokens/${made.id}`, { origin: app.url })).status).toBe(204);
  });

  it("refuses a /ui socket from another site's page that rides on the session cookie", async () => {
    const connect = (origin: string) =>
      new Promise<string>((resolve) => {
        const socket: Socket = io(`${app.url}${UI_NAMESPACE}`, {
          transports: ["websocket"],
          extraHeaders: { cookie, origin },
          reconnection: false,
        });
        socket.on("connect", () => (socket.close(), resolve("connected")));
        socket.on("connect_error", (error) => (socket.close(), resolve(error.message)));
      });
    expect(await connect(app.url)).toBe("connected");
    expect(await connect("https://evil.example")).toBe("cross-site socket refused (Origin https://evil.example)");
  });
});
