/**
 * Accounts: admins create users and set roles and passwords; users launch jobs but cannot
 * manage runners or users; the last admin is protected; changes end old sessions; the session
 * cookie's flags and logout.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let admin: ApiClient;

async function tokenFor(username: string, password: string): Promise<{ status: number; token?: string }> {
  const answer = await admin.call("POST", "/api/auth/token", {
    headers: { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}` },
  });
  return { status: answer.status, token: answer.status === 201 ? (answer.json.token as string) : undefined };
}

/** Signs in as the browser does: the session cookie's `name=value`, from Set-Cookie. */
async function logIn(username: string, password: string, headers: Record<string, string> = {}): Promise<string> {
  const { response, setCookie } = await loginAnswer(username, password, headers);
  expect(response.status).toBe(200);
  return /^[^;]+/.exec(setCookie)![0];
}

async function loginAnswer(username: string, password: string, headers: Record<string, string> = {}) {
  // Raw: the test reads the Set-Cookie headers of a browser login.
  const response = await fetch(`${app.url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ username, password }),
  });
  // A login also sets the known-client cookie (login throttling): pick the session's own.
  const setCookie = response.headers.getSetCookie().find((c) => c.startsWith("playform_session=")) ?? "";
  return { response, setCookie };
}

function withCookie(cookie: string, url: string, method = "GET"): Promise<Response> {
  // Raw: authenticated by the session cookie, as a browser is.
  return fetch(`${app.url}${url}`, { method, headers: { cookie } });
}

beforeAll(async () => {
  app = await startPlayform();
  admin = apiClient(app, await adminToken(app));
});
afterAll(async () => {
  await app?.stop();
});

describe("users", () => {
  it("an admin creates a user who can launch jobs but not manage runners or users", async () => {
    const created = await admin.call("POST", "/api/users", { json: { username: "alice", password: "alice-password-1" } });
    expect(created.status).toBe(201);
    expect(created.json.user).toMatchObject({ username: "alice", role: "user" });

    const alice = apiClient(app, (await tokenFor("alice", "alice-password-1")).token!);
    const job = await alice.waitForEnd(await alice.launch("hello-world", { message: "from alice" }));
    expect(job.status).toBe("success");
    expect(job.user).toBe("alice");
    expect((await alice.call("GET", "/api/runners")).status).toBe(403);
    expect((await alice.call("GET", "/api/users")).status).toBe(403);
    expect((await alice.call("POST", "/api/users", { json: { username: "mallory", password: "mallory-password" } })).status).toBe(403);

    const list = await admin.get("/api/users");
    expect(list.users.map((u: { username: string; jobs: number }) => [u.username, u.jobs])).toEqual([
      ["admin", 0],
      ["alice", 1],
    ]);
    // A user with job history is kept for the record.
    expect((await admin.call("DELETE", "/api/users/alice")).status).toBe(409);
  });

  it("explains bad input field by field and refuses duplicates", async () => {
    const bad = await admin.call("POST", "/api/users", { json: { username: "Bob!", password: "short" } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.json.error.fields).sort()).toEqual(["password", "username"]);
    const duplicate = await admin.call("POST", "/api/users", { json: { username: "alice", password: "another-password" } });
    expect(duplicate.status).toBe(409);
    expect((await admin.call("PATCH", "/api/users/nobody", { json: { role: "admin" } })).status).toBe(404);
    expect((await admin.call("PATCH", "/api/users/alice", { json: {} })).status).toBe(422);
  });

  it("a password reset or role change ends the user's sessions", async () => {
    await admin.call("POST", "/api/users", { json: { username: "bob", password: "bob-password-1" } });
    const bob = apiClient(app, (await tokenFor("bob", "bob-password-1")).token!);
    expect((await bob.call("GET", "/api/auth/me")).status).toBe(200);
    expect((await admin.call("PATCH", "/api/users/bob", { json: { password: "bob-password-2" } })).status).toBe(204);
    expect((await bob.call("GET", "/api/auth/me")).status).toBe(401);
    expect((await tokenFor("bob", "bob-password-1")).status).toBe(401);
    expect((await tokenFor("bob", "bob-password-2")).status).toBe(201);

    // A role change ends the tokens and browser sessions bob holds from before it, even though
    // his password stays the same.
    const beforeRole = apiClient(app, (await tokenFor("bob", "bob-password-2")).token!);
    const session = await logIn("bob", "bob-password-2");
    expect((await beforeRole.call("GET", "/api/auth/me")).json.user.role).toBe("user");
    expect((await withCookie(session, "/api/auth/me")).status).toBe(200);
    expect((await admin.call("PATCH", "/api/users/bob", { json: { role: "admin" } })).status).toBe(204);
    const stale = await beforeRole.call("GET", "/api/auth/me");
    expect(stale.status).toBe(401);
    expect(stale.json.error.code).toBe("unauthorized");
    expect((await beforeRole.call("GET", "/api/runners")).status).toBe(401);
    expect((await withCookie(session, "/api/auth/me")).status).toBe(401);
    const promoted = apiClient(app, (await tokenFor("bob", "bob-password-2")).token!);
    expect((await promoted.call("GET", "/api/auth/me")).json.user.role).toBe("admin");
    expect((await promoted.call("GET", "/api/runners")).status).toBe(200);
    expect((await admin.call("DELETE", "/api/users/bob")).status).toBe(204);
    expect((await tokenFor("bob", "bob-password-2")).status).toBe(401);
  });

  it("signs in with an httpOnly, SameSite=Lax session cookie (Secure behind https); logout ends that session", async () => {
    const attributes = (setCookie: string) => {
      const [pair, ...rest] = setCookie.split(/;\s*/);
      return { pair: pair!, flags: rest.map((a) => a.toLowerCase()) };
    };
    const plain = await loginAnswer("admin", app.adminPassword);
    expect(plain.response.status).toBe(200);
    expect(((await plain.response.json()) as { user: { username: string } }).user.username).toBe("admin");
    const cookie = attributes(plain.setCookie);
    expect(cookie.pair).toMatch(/^playform_session=[^;]+$/);
    expect(cookie.flags).toEqual(expect.arrayContaining(["httponly", "samesite=lax", "path=/", "max-age=43200"]));
    expect(cookie.flags).not.toContain("secure");

    // Behind a TLS-terminating proxy the request is http, and x-forwarded-proto says https.
    const https = await loginAnswer("admin", app.adminPassword, { "x-forwarded-proto": "https" });
    expect(https.response.status).toBe(200);
    const secureCookie = attributes(https.setCookie);
    expect(secureCookie.flags).toEqual(expect.arrayContaining(["httponly", "samesite=lax", "secure"]));

    for (const session of [cookie.pair, secureCookie.pair]) {
      const me = await withCookie(session, "/api/auth/me");
      expect(me.status).toBe(200);
      expect(((await me.json()) as { user: { username: string } }).user.username).toBe("admin");
    }

    // Logout clears the cookie in the browser and ends the session on the server: the old
    // cookie value, replayed, is refused. The other session is not affected.
    const logout = await withCookie(cookie.pair, "/api/auth/logout", "POST");
    expect(logout.status).toBe(204);
    const cleared = attributes(logout.headers.get("set-cookie") ?? "");
    expect(cleared.pair).toBe("playform_session=");
    expect(cleared.flags).toEqual(expect.arrayContaining(["httponly", "max-age=0"]));
    expect((await withCookie(cookie.pair, "/api/auth/me")).status).toBe(401);
    expect((await withCookie(cookie.pair, "/api/jobs")).status).toBe(401);
    expect((await withCookie(secureCookie.pair, "/api/auth/me")).status).toBe(200);
  });

  it("protects the last admin and the acting admin", async () => {
    const demote = await admin.call("PATCH", "/api/users/admin", { json: { role: "user" } });
    expect(demote.status).toBe(409);
    expect(demote.json.error.message).toMatch(/last admin/);
    expect((await admin.call("DELETE", "/api/users/admin")).status).toBe(409);
  });

  it("everyone changes their own password with the current one", async () => {
    await admin.call("POST", "/api/users", { json: { username: "carol", password: "carol-password-1" } });
    const carol = apiClient(app, (await tokenFor("carol", "carol-password-1")).token!);
    const wrong = await carol.call("POST", "/api/auth/password", { json: { currentPassword: "nope", newPassword: "carol-password-2" } });
    expect(wrong.status).toBe(422);
    expect(wrong.json.error.fields).toEqual({ currentPassword: "is wrong" });
    const weak = await carol.call("POST", "/api/auth/password", { json: { currentPassword: "carol-password-1", newPassword: "x" } });
    expect(weak.status).toBe(422);
    expect(weak.json.error.fields.newPassword).toMatch(/at least 10/);
    expect(
      (await carol.call("POST", "/api/auth/password", { json: { currentPassword: "carol-password-1", newPassword: "carol-password-2" } }))
        .status,
    ).toBe(204);
    expect((await tokenFor("carol", "carol-password-2")).status).toBe(201);
  });

  it("refuses logins for a name after 10 failures in 10 minutes, even with the right password", async () => {
    await admin.call("POST", "/api/users", { json: { username: "erin", password: "erin-password-1" } });
    for (let attempt = 0; attempt < 10; attempt++) expect((await tokenFor("erin", `guess-${attempt}`)).status).toBe(401);
    const locked = await admin.call("POST", "/api/auth/login", { json: { username: "erin", password: "erin-password-1" }, auth: false });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(500);
    expect(locked.json.error.message).toMatch(/too many failed logins for "erin"/);
    // Other names are not affected.
    expect((await tokenFor("admin", app.adminPassword)).status).toBe(201);
  });

  it("a user sets their own email, an admin sets anyone's, and the form's {user.email} default follows it", async () => {
    // Before the fix: local users had no way to set an email, so user-accounts' "Notice to" was empty.
    await admin.call("POST", "/api/users", { json: { username: "dora", password: "dora-password-1" } });
    const dora = apiClient(app, (await tokenFor("dora", "dora-password-1")).token!);
    expect((await dora.get("/api/auth/me")).profile).toEqual({ email: null, displayName: null, source: "local" });

    const own = await dora.call("PATCH", "/api/auth/me", { json: { email: " dora@example.org " } });
    expect(own.status).toBe(200);
    expect(own.json.profile.email).toBe("dora@example.org");
    expect((await dora.get("/api/auth/me")).profile.email).toBe("dora@example.org");
    const noticeTo = async (client: ApiClient) =>
      ((await client.get("/api/forms/user-accounts")).form.fields as { name: string; default?: unknown }[]).find(
        (f) => f.name === "notify_email",
      )?.default;
    expect(await noticeTo(dora)).toBe("dora@example.org");

    // Bad input is named; unknown keys and someone else's account are not for a user.
    const bad = await dora.call("PATCH", "/api/auth/me", { json: { email: "not an email" } });
    expect(bad.status).toBe(422);
    expect(bad.json.error.fields).toEqual({ email: "must be an email address like ops@example.org" });
    const promote = await dora.call("PATCH", "/api/auth/me", { json: { email: "dora@example.org", role: "admin" } });
    expect(promote.status).toBe(422);
    expect(promote.json.error.message).toMatch(/unknown key "role"/);
    expect((await dora.call("PATCH", "/api/users/dora", { json: { email: "x@example.org" } })).status).toBe(403);

    // An admin sets it from the Users page: the list shows it, and dora's sessions go on.
    expect((await admin.call("PATCH", "/api/users/dora", { json: { email: "ops-dora@example.org" } })).status).toBe(204);
    const listed = (await admin.get("/api/users")).users.find((u: { username: string }) => u.username === "dora");
    expect(listed.email).toBe("ops-dora@example.org");
    expect((await dora.call("GET", "/api/auth/me")).status).toBe(200);
    expect(await noticeTo(dora)).toBe("ops-dora@example.org");
    const badByAdmin = await admin.call("PATCH", "/api/users/dora", { json: { email: "a@b" } });
    expect(badByAdmin.status).toBe(422);
    expect(badByAdmin.json.error.fields).toEqual({ email: "must be an email address like ops@example.org" });

    // null (or "") clears it.
    expect((await dora.call("PATCH", "/api/auth/me", { json: { email: null } })).json.profile.email).toBeNull();
    expect(await noticeTo(dora)).toBe("");
    expect((await admin.call("PATCH", "/api/users/dora", { json: { email: "" } })).status).toBe(204);
  });
});

describe("the user-accounts example", () => {
  it("runs without Ansible's reserved-name warning, offers its inventory's groups, and sends the notice address", async () => {
    // Before the fix: a field named `notify` (a task keyword) made Ansible warn on every run, and the
    // inventory's comment promised groups the hosts field did not offer.
    const form = (await admin.get("/api/forms/user-accounts")).form as { fields: { name: string; choices?: { value: string }[] }[] };
    const target = form.fields.find((f) => f.name === "target")!;
    expect(target.choices!.map((c) => c.value)).toEqual(expect.arrayContaining(["servers", "workstations", "localhost", "runner-self"]));

    const id = await admin.launch("user-accounts", { target: "servers", send_notice: true, notify_email: "ops@example.org" });
    const job = await admin.waitForEnd(id);
    const output = await admin.output(id);
    expect(job.status, output).toBe("success");
    expect(output).toMatch(/ok: \[runner-self\]/);
    expect(output).not.toMatch(/reserved name/i);
    expect(output).not.toMatch(/\[WARNING\]/);
  });
});
