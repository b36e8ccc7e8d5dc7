/**
 * The permission matrix: every route under app/api (read from the file system, with each
 * exported method) and the /ui socket's follow, for six kinds of caller: anonymous, a user
 * outside the form's groups, the job's launcher, an observer, an approver and an admin. A route
 * or method without a row here fails the test, so a new route cannot skip the access rules.
 *
 * Expected answers: a number is the exact status; PASS means "let through": any status but
 * 401, 403 and 404 (the request itself may be refused for its content, e.g. 422, after the
 * access check). Public rows (health, sign-in, the join handshake, the document) answer the same
 * to everyone. Raw fetch, not the checked client: this is about who gets through, and refusals
 * are the point. The forms: test/fixtures/forms-access.
 */
import fs from "node:fs";
import path from "node:path";
import { io } from "socket.io-client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { UI_CONTRACT_VERSION, UI_NAMESPACE, UiEvents } from "../../server/protocol/ui-messages";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { waitFor } from "../support/wait";

const ROOT = path.resolve(import.meta.dirname, "../..");
const ROLES = ["anonymous", "outsider", "launcher", "observer", "approver", "admin"] as const;
type Role = (typeof ROLES)[number];
const PASS = "pass";
type Expect = number | typeof PASS;
type Row = {
  route: string;
  method: string;
  /** The concrete path (ids filled in) and body. */
  url: () => string;
  body?: unknown;
  expect: Record<Role, Expect> | { public: Expect };
  /** A fresh token per role for this call (sign-out ends the token it is sent with). */
  fresh?: boolean;
};

const by = (...codes: Expect[]) => Object.fromEntries(ROLES.map((role, i) => [role, codes[i]!])) as Record<Role, Expect>;
/** Readers of the secured form's jobs: its launcher, observers, approvers, admins. */
const SECURED_READERS = by(401, 404, 200, 200, 200, 200);
const ADMIN_ONLY_READ = by(401, 403, 403, 403, 403, 200);
const ADMIN_ONLY = by(401, 403, 403, 403, 403, PASS);
/** Admin-only, on something that does not exist: the admin gets past the check to a 404. */
const ADMIN_ONLY_MISSING = by(401, 403, 403, 403, 403, 404);
const SIGNED_IN = by(401, 200, 200, 200, 200, 200);

let app: RunningPlayform;
const tokens = {} as Record<Role, string | null>;
const passwords: Record<string, string> = {};
let admin: ApiClient;
/** Finished jobs of `secured` launched by the launcher; jobs of `secured-approval` waiting; a job of `open`. */
const jobs = { finished: 0, finished2: 0, waiting: 0, waiting2: 0, open: 0, preview: 0 };
/** Paused schedules of the open form: the launcher's and the admin's. */
const schedules = { launchers: 0, admins: 0 };

const rows: Row[] = [
  // The job routes, on a finished job of the secured form.
  ...["", "/output", "/lines", "/log", "/recap", "/tasks", "/timeline", "/artifacts", "/progress", "/notifications"].map((suffix): Row => ({
    route: `/api/jobs/[id]${suffix}`,
    method: "GET",
    url: () => `/api/jobs/${jobs.finished}${suffix}`,
    expect: SECURED_READERS,
  })),
  { route: "/api/jobs/[id]/search", method: "GET", url: () => `/api/jobs/${jobs.finished}/search?q=access`, expect: SECURED_READERS },
  {
    route: "/api/jobs/[id]/compare/[otherId]",
    method: "GET",
    url: () => `/api/jobs/${jobs.finished2}/compare/${jobs.finished}`,
    expect: SECURED_READERS,
  },
  // A job of a form without access rules: only its launcher and admins read it.
  { route: "/api/jobs/[id]", method: "GET", url: () => `/api/jobs/${jobs.open}`, expect: by(401, 404, 200, 404, 404, 200) },
  // Abort: readers may see it; only its launcher, approvers and admins may abort (409: it has ended).
  {
    route: "/api/jobs/[id]/abort",
    method: "POST",
    url: () => `/api/jobs/${jobs.finished}/abort`,
    expect: by(401, 404, 409, 403, 409, 409),
  },
  // Run again: readers who may also launch the form (observers and approvers may not: 404, as for a form they cannot see).
  {
    route: "/api/jobs/[id]/relaunch",
    method: "POST",
    url: () => `/api/jobs/${jobs.finished}/relaunch`,
    body: {},
    expect: by(401, 404, 201, 404, 404, 201),
  },
  // Approve and reject: approvers and admins (the admin's 409: the approver decided first).
  {
    route: "/api/jobs/[id]/approve",
    method: "POST",
    url: () => `/api/jobs/${jobs.waiting}/approve`,
    expect: by(401, 404, 403, 403, 200, 409),
  },
  {
    route: "/api/jobs/[id]/reject",
    method: "POST",
    url: () => `/api/jobs/${jobs.waiting2}/reject`,
    expect: by(401, 404, 403, 403, 200, 409),
  },
  { route: "/api/jobs", method: "GET", url: () => "/api/jobs", expect: SIGNED_IN },
  {
    route: "/api/jobs",
    method: "POST",
    url: () => "/api/jobs",
    body: { form: "secured", values: {} },
    expect: by(401, 404, 201, 404, 404, 201),
  },
  // Uploads for a form's file field: its launchers only (the secured form has no file field: 400 past the access check).
  {
    route: "/api/uploads",
    method: "POST",
    url: () => "/api/uploads?form=secured&field=keyfile",
    body: {},
    expect: by(401, 404, PASS, 404, 404, PASS),
  },
  { route: "/api/jobs/progress", method: "GET", url: () => `/api/jobs/progress?ids=${jobs.finished}`, expect: SIGNED_IN },
  // Hosts: the list for everyone (each sees the hosts of the runs they read); localhost ran only
  // in the launcher's jobs, so those who read none of them get a 404.
  { route: "/api/hosts", method: "GET", url: () => "/api/hosts", expect: SIGNED_IN },
  { route: "/api/hosts/[name]", method: "GET", url: () => "/api/hosts/localhost", expect: SECURED_READERS },
  // Forms: the catalog for everyone, a secured form for its launchers; runs for launchers and readers.
  { route: "/api/forms", method: "GET", url: () => "/api/forms", expect: SIGNED_IN },
  { route: "/api/forms/[name]", method: "GET", url: () => "/api/forms/secured", expect: by(401, 404, 200, 404, 404, 200) },
  { route: "/api/forms/[name]", method: "GET", url: () => "/api/forms/open", expect: SIGNED_IN },
  { route: "/api/forms/[name]/trend", method: "GET", url: () => "/api/forms/secured/trend", expect: SECURED_READERS },
  { route: "/api/forms/[name]/idempotence", method: "GET", url: () => "/api/forms/secured/idempotence", expect: SECURED_READERS },
  {
    route: "/api/forms/[name]/report",
    method: "GET",
    url: () => `/api/forms/secured/report?jobs=${jobs.finished},${jobs.finished2}`,
    expect: SECURED_READERS,
  },
  { route: "/api/forms/import", method: "POST", url: () => "/api/forms/import", expect: ADMIN_ONLY },
  // A preview: allowed as a launch; read as its job (the launcher's preview of the secured form).
  {
    route: "/api/forms/[name]/preview",
    method: "POST",
    url: () => "/api/forms/secured/preview",
    body: { values: {} },
    expect: by(401, 404, 201, 404, 404, 201),
  },
  {
    route: "/api/forms/[name]/preview/[id]",
    method: "GET",
    url: () => `/api/forms/secured/preview/${jobs.preview}`,
    expect: SECURED_READERS,
  },
  // A source field's choices: for those who may launch the form (422: its {env} is empty, so no server is asked).
  {
    route: "/api/forms/[name]/choices/[field]",
    method: "POST",
    url: () => "/api/forms/secured/choices/product",
    body: { values: {} },
    expect: by(401, 404, 422, 404, 404, 422),
  },
  // Admin pages' APIs.
  ...[
    "/api/users",
    "/api/runners",
    "/api/credentials",
    "/api/audit",
    "/api/audit/export",
    "/api/groups",
    "/api/notifications",
    "/api/sources",
  ].map((url): Row => ({
    route: url,
    method: "GET",
    url: () => url,
    expect: ADMIN_ONLY_READ,
  })),
  { route: "/api/users", method: "POST", url: () => "/api/users", body: {}, expect: ADMIN_ONLY },
  { route: "/api/users/[username]", method: "PATCH", url: () => "/api/users/nobody-here", body: {}, expect: ADMIN_ONLY },
  { route: "/api/users/[username]", method: "DELETE", url: () => "/api/users/nobody-here", expect: ADMIN_ONLY_MISSING },
  { route: "/api/runners/[id]", method: "DELETE", url: () => "/api/runners/no-such-runner", expect: ADMIN_ONLY_MISSING },
  { route: "/api/runners/[id]/[action]", method: "POST", url: () => "/api/runners/no-such-runner/approve", expect: ADMIN_ONLY_MISSING },
  { route: "/api/credentials", method: "POST", url: () => "/api/credentials", body: {}, expect: ADMIN_ONLY },
  { route: "/api/credentials/[name]", method: "PUT", url: () => "/api/credentials/no-such", body: {}, expect: ADMIN_ONLY },
  { route: "/api/credentials/[name]", method: "DELETE", url: () => "/api/credentials/no-such", expect: ADMIN_ONLY_MISSING },
  { route: "/api/groups", method: "POST", url: () => "/api/groups", body: {}, expect: ADMIN_ONLY },
  { route: "/api/retention", method: "GET", url: () => "/api/retention", expect: ADMIN_ONLY_READ },
  { route: "/api/retention/run", method: "POST", url: () => "/api/retention/run", expect: ADMIN_ONLY },
  { route: "/api/sources", method: "POST", url: () => "/api/sources", body: {}, expect: ADMIN_ONLY },
  { route: "/api/sources/[name]", method: "GET", url: () => "/api/sources/no-such", expect: ADMIN_ONLY_MISSING },
  { route: "/api/sources/[name]", method: "PATCH", url: () => "/api/sources/no-such", body: {}, expect: ADMIN_ONLY_MISSING },
  { route: "/api/sources/[name]", method: "DELETE", url: () => "/api/sources/no-such", expect: ADMIN_ONLY_MISSING },
  { route: "/api/sources/[name]/sync", method: "POST", url: () => "/api/sources/no-such/sync", expect: ADMIN_ONLY_MISSING },
  // A forge's push webhook: no session, its signature decides (none here: 401 for everyone).
  { route: "/api/sources/[name]/webhook", method: "POST", url: () => "/api/sources/no-such/webhook", body: {}, expect: { public: 401 } },
  { route: "/api/groups/[name]", method: "DELETE", url: () => "/api/groups/no-such", expect: ADMIN_ONLY_MISSING },
  {
    route: "/api/groups/[name]/members",
    method: "PUT",
    url: () => "/api/groups/no-such/members",
    body: { users: [] },
    expect: ADMIN_ONLY_MISSING,
  },
  // Your own things: every signed-in user.
  { route: "/api/auth/me", method: "GET", url: () => "/api/auth/me", expect: SIGNED_IN },
  { route: "/api/auth/me", method: "PATCH", url: () => "/api/auth/me", body: { email: null }, expect: by(401, 200, 200, 200, 200, 200) },
  { route: "/api/auth/password", method: "POST", url: () => "/api/auth/password", body: {}, expect: by(401, PASS, PASS, PASS, PASS, PASS) },
  { route: "/api/auth/logout", method: "POST", url: () => "/api/auth/logout", fresh: true, expect: by(PASS, PASS, PASS, PASS, PASS, PASS) },
  { route: "/api/tokens", method: "GET", url: () => "/api/tokens", expect: SIGNED_IN },
  { route: "/api/tokens", method: "POST", url: () => "/api/tokens", body: { name: "matrix" }, expect: by(401, 201, 201, 201, 201, 201) },
  { route: "/api/tokens/[id]", method: "DELETE", url: () => "/api/tokens/no-such-token", expect: by(401, 404, 404, 404, 404, 404) },
  // Schedules: created by whoever may launch the form; read, changed and deleted by their owner and admins.
  {
    route: "/api/schedules",
    method: "POST",
    url: () => "/api/schedules",
    body: { form: "secured", values: {}, cron: "0 6 * * *", enabled: false },
    expect: by(401, 404, PASS, 404, 404, PASS),
  },
  { route: "/api/schedules", method: "GET", url: () => "/api/schedules", expect: SIGNED_IN },
  {
    route: "/api/schedules/[id]",
    method: "GET",
    url: () => `/api/schedules/${schedules.launchers}`,
    expect: by(401, 404, 200, 404, 404, 200),
  },
  {
    route: "/api/schedules/[id]",
    method: "PATCH",
    url: () => `/api/schedules/${schedules.launchers}`,
    body: { overlap: "queue" },
    expect: by(401, 404, 200, 404, 404, 200),
  },
  // The admin's own schedule: nobody else may delete it.
  {
    route: "/api/schedules/[id]",
    method: "DELETE",
    url: () => `/api/schedules/${schedules.admins}`,
    expect: by(401, 404, 404, 404, 404, 204),
  },
  { route: "/api/recap", method: "POST", url: () => "/api/recap", body: {}, expect: by(401, PASS, PASS, PASS, PASS, PASS) },
  // Public: health, the document, sign-in, single sign-on (not configured here), the join handshake.
  ...["/api/live", "/api/ready", "/api/openapi.json", "/api/docs", "/api/auth/providers"].map((url): Row => ({
    route: url,
    method: "GET",
    url: () => url,
    expect: { public: 200 },
  })),
  { route: "/api/docs/assets/[file]", method: "GET", url: () => "/api/docs/assets/swagger-ui.css", expect: { public: 200 } },
  ...["login", "callback", "logout"].map((step): Row => ({
    route: `/api/auth/oidc/${step}`,
    method: "GET",
    url: () => `/api/auth/oidc/${step}`,
    expect: { public: PASS },
  })),
  { route: "/api/auth/login", method: "POST", url: () => "/api/auth/login", body: {}, expect: { public: PASS } },
  { route: "/api/auth/token", method: "POST", url: () => "/api/auth/token", expect: { public: 401 } },
  { route: "/api/runners/join", method: "POST", url: () => "/api/runners/join", body: {}, expect: { public: PASS } },
  { route: "/api/runners/join/status", method: "POST", url: () => "/api/runners/join/status", body: {}, expect: { public: PASS } },
  ...["GET", "POST", "PUT", "PATCH", "DELETE"].map((method): Row => ({
    route: "/api/[[...rest]]",
    method,
    url: () => "/api/no/such/route",
    expect: { public: 404 },
  })),
];

/** Every route file under app/api and the methods it exports, as "METHOD /api/..." keys. */
function routesOnDisk(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === "route.ts") {
        const route = "/" + path.relative(path.join(ROOT, "app"), dir).split(path.sep).join("/");
        const text = fs.readFileSync(full, "utf8");
        for (const [, method] of text.matchAll(/export (?:const|async function|function) (GET|POST|PUT|PATCH|DELETE)\b/g)) {
          found.push(`${method} ${route}`);
        }
      }
    }
  };
  walk(path.join(ROOT, "app/api"));
  return found.sort();
}

async function call(role: Role, row: Row): Promise<number> {
  const token = row.fresh && role !== "anonymous" ? await tokenFor(role) : tokens[role];
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (row.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${app.url}${row.url()}`, {
    method: row.method,
    headers,
    body: row.body === undefined ? undefined : JSON.stringify(row.body),
    redirect: "manual",
  });
  await response.arrayBuffer();
  return response.status;
}

async function tokenFor(role: Role): Promise<string> {
  if (role === "admin") return adminToken(app);
  const response = await fetch(`${app.url}/api/auth/token`, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from(`${role}:${passwords[role]}`).toString("base64")}` },
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { token: string }).token;
}

beforeAll(async () => {
  // Followers' access is decided again every second here (15 s by default), for the last test.
  app = await startPlayform({
    env: { PLAYFORM_FORMS_DIR: path.join(ROOT, "test/fixtures/forms-access"), PLAYFORM_ACCESS_RECHECK_SECONDS: "1" },
  });
  tokens.admin = await adminToken(app);
  tokens.anonymous = null;
  admin = apiClient(app, tokens.admin);
  for (const role of ["outsider", "launcher", "observer", "approver"] as const) {
    passwords[role] = `pw-${role}-0123456789`;
    expect((await admin.call("POST", "/api/users", { json: { username: role, password: passwords[role] } })).status).toBe(201);
    tokens[role] = await tokenFor(role);
  }
  for (const [group, member] of [
    ["launchers", "launcher"],
    ["observers", "observer"],
    ["approvers", "approver"],
  ] as const) {
    expect((await admin.call("POST", "/api/groups", { json: { name: group } })).status).toBe(201);
    expect((await admin.call("PUT", `/api/groups/${group}/members`, { json: { users: [member] } })).status).toBe(204);
  }
  const launcher = apiClient(app, tokens.launcher!);
  jobs.finished = await launcher.launch("secured");
  jobs.finished2 = await launcher.launch("secured");
  jobs.open = await launcher.launch("open");
  jobs.waiting = await launcher.launch("secured-approval");
  jobs.waiting2 = await launcher.launch("secured-approval");
  const preview = await launcher.call("POST", "/api/forms/secured/preview", { json: { values: {} } });
  expect(preview.status).toBe(201);
  jobs.preview = preview.json.id;
  for (const [owner, client] of [
    ["launchers", launcher],
    ["admins", admin],
  ] as const) {
    const saved = await client.call("POST", "/api/schedules", { json: { form: "open", values: {}, cron: "0 6 * * *", enabled: false } });
    expect(saved.status).toBe(201);
    schedules[owner] = saved.json.id;
  }
  for (const id of [jobs.finished, jobs.finished2, jobs.open]) expect((await launcher.waitForEnd(id)).status).toBe("success");
  // A run's hosts are written just after it ends.
  await waitFor("localhost among the hosts", async () => (await admin.call("GET", "/api/hosts/localhost")).status === 200);
}, 240_000);

afterAll(async () => {
  await app?.stop();
});

it("has a row for every route and method under app/api", () => {
  const covered = new Set(rows.map((row) => `${row.method} ${row.route}`));
  const missing = routesOnDisk().filter((key) => !covered.has(key));
  expect(missing, "routes without a row in the permission matrix").toEqual([]);
  const stale = [...covered].filter((key) => !routesOnDisk().includes(key));
  expect(stale, "rows for routes that no longer exist").toEqual([]);
});

it("answers every route as the matrix says, for each kind of caller", async () => {
  const wrong: string[] = [];
  for (const row of rows) {
    const got: Partial<Record<Role, number>> = {};
    for (const role of ROLES) got[role] = await call(role, row);
    const label = `${row.method} ${row.url()} (${row.route})`;
    if ("public" in row.expect) {
      const answers = new Set(Object.values(got));
      if (answers.size !== 1) wrong.push(`${label}: a public route answered differently by caller: ${JSON.stringify(got)}`);
      const status = got.anonymous!;
      if (row.expect.public === PASS ? [401, 403, 404].includes(status) || status >= 500 : status !== row.expect.public) {
        wrong.push(`${label}: expected ${row.expect.public} for everyone, got ${JSON.stringify(got)}`);
      }
      continue;
    }
    for (const role of ROLES) {
      const want = row.expect[role];
      const status = got[role]!;
      const ok = want === PASS ? ![401, 403, 404].includes(status) && status < 500 : status === want;
      if (!ok) wrong.push(`${label} as ${role}: expected ${want}, got ${status}`);
    }
  }
  expect(wrong).toEqual([]);
}, 120_000);

/**
 * Token scopes (docs/api.md, "Token scopes"), stated here apart from the code that enforces
 * them: beyond GET, a `read` token may only sign itself out and make tokens; a `launch` token
 * may also launch and act on jobs.
 */
const LAUNCH_SCOPE = new Set([
  "POST /api/jobs",
  "POST /api/jobs/[id]/abort",
  "POST /api/jobs/[id]/approve",
  "POST /api/jobs/[id]/reject",
  "POST /api/jobs/[id]/relaunch",
  "POST /api/uploads",
  "POST /api/forms/[name]/choices/[field]",
  "POST /api/forms/[name]/preview",
]);
const EVERY_SCOPE = new Set(["POST /api/auth/logout", "POST /api/tokens"]);

it("holds the admin's read and launch tokens to their scope on every route of the matrix", async () => {
  const made = async (scope: string) => {
    const answer = await admin.call("POST", "/api/tokens", { json: { name: `matrix ${scope}`, scope } });
    expect(answer.status, JSON.stringify(answer.json)).toBe(201);
    return answer.json.token as string;
  };
  const scoped = { read: await made("read"), launch: await made("launch") };
  const wrong: string[] = [];
  let refused = 0;
  for (const row of rows) {
    if ("public" in row.expect || row.fresh) continue;
    const key = `${row.method} ${row.route}`;
    for (const scope of ["read", "launch"] as const) {
      const allowed = row.method === "GET" || EVERY_SCOPE.has(key) || (scope === "launch" && LAUNCH_SCOPE.has(key));
      // What the scope lets through would act (launch, approve…): tokens.test.ts covers those.
      if (allowed && row.method !== "GET") continue;
      const response = await fetch(`${app.url}${row.url()}`, {
        method: row.method,
        headers: { authorization: `Bearer ${scoped[scope]}`, ...(row.body === undefined ? {} : { "content-type": "application/json" }) },
        body: row.body === undefined ? undefined : JSON.stringify(row.body),
        redirect: "manual",
      });
      const text = await response.text();
      const byScope = response.status === 403 && text.includes(`scope \\"${scope}\\"`);
      if (byScope === allowed) wrong.push(`${key} with a ${scope} token: ${response.status} ${text.slice(0, 120)}`);
      if (byScope) refused++;
      // As the admin's own full token answers, for what the scope allows.
      if (allowed && row.expect.admin !== PASS && response.status !== row.expect.admin) {
        wrong.push(`${key} with a ${scope} token: expected ${row.expect.admin} as for admin, got ${response.status}`);
      }
    }
  }
  expect(wrong).toEqual([]);
  expect(refused).toBeGreaterThan(40);
}, 120_000);

it("lists and counts only the jobs each caller may see", async () => {
  const listed = async (role: Role) => {
    const response = await fetch(`${app.url}/api/jobs?limit=100`, { headers: { authorization: `Bearer ${tokens[role]}` } });
    return ((await response.json()) as { jobs: { id: number }[] }).jobs.map((job) => job.id);
  };
  const secured = [jobs.finished, jobs.finished2, jobs.waiting, jobs.waiting2];
  expect(await listed("outsider")).toEqual([]);
  expect(await listed("launcher")).toEqual(expect.arrayContaining([...secured, jobs.open]));
  for (const reader of ["observer", "approver"] as const) {
    const ids = await listed(reader);
    expect(ids).toEqual(expect.arrayContaining(secured));
    expect(ids).not.toContain(jobs.open);
  }
  const progress = async (role: Role) => {
    const response = await fetch(`${app.url}/api/jobs/progress?ids=${jobs.finished},${jobs.open}`, {
      headers: { authorization: `Bearer ${tokens[role]}` },
    });
    return ((await response.json()) as { progress: { job: number }[] }).progress.map((p) => p.job);
  };
  expect(await progress("outsider")).toEqual([]);
  expect(await progress("observer")).toEqual([jobs.finished]);
  expect(await progress("launcher")).toEqual([jobs.finished, jobs.open]);
  // A form's trend counts only the runs the caller may see: the open form's one run is the
  // launcher's, so the observer (who may ask: everyone launches it) counts none.
  const openRuns = async (role: Role) => {
    const response = await fetch(`${app.url}/api/forms/open/trend`, { headers: { authorization: `Bearer ${tokens[role]}` } });
    expect(response.status).toBe(200);
    return ((await response.json()) as { completed_runs: number }).completed_runs;
  };
  expect(await openRuns("observer")).toBe(0);
  expect(await openRuns("launcher")).toBe(1);
  expect(await openRuns("admin")).toBe(1);
});

it("sends a job's live status on the /ui socket only to those who may see it", async () => {
  const heard: Partial<Record<Role, boolean>> = {};
  const sockets = ROLES.filter((role) => role !== "anonymous").map((role) => {
    heard[role] = false;
    const socket = io(`${app.url}${UI_NAMESPACE}`, { auth: { token: tokens[role] }, transports: ["websocket"] });
    socket.on(UiEvents.status, (message: { jobId: number }) => {
      if (message.jobId === jobs.finished) heard[role] = true;
    });
    socket.on("connect", () => socket.emit(UiEvents.follow, { v: UI_CONTRACT_VERSION, jobId: jobs.finished, after: 0 }));
    return socket;
  });
  try {
    await waitFor("the readers to hear the job's status", () => heard.launcher && heard.observer && heard.approver && heard.admin, {
      timeoutMs: 15_000,
      details: () => JSON.stringify(heard),
    });
    // The outsider asked at the same time; readers were answered, and it was not.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(heard).toEqual({ outsider: false, launcher: true, observer: true, approver: true, admin: true });
  } finally {
    for (const socket of sockets) socket.close();
  }
});

// Last: it changes the observers group and launches a job of its own.
it("stops a follower's live output once they may no longer see the job, and drops a socket whose token was revoked", async () => {
  const password = "pw-late-observer-0123456789";
  expect((await admin.call("POST", "/api/users", { json: { username: "late", password } })).status).toBe(201);
  expect((await admin.call("PUT", "/api/groups/observers/members", { json: { users: ["observer", "late"] } })).status).toBe(204);
  const login = await fetch(`${app.url}/api/auth/token`, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from(`late:${password}`).toString("base64")}` },
  });
  expect(login.status).toBe(201);
  const lateToken = ((await login.json()) as { token: string }).token;
  const late = apiClient(app, lateToken);
  const personal = await late.call("POST", "/api/tokens", { json: { name: "watch script", expiresInDays: 1 } });
  expect(personal.status).toBe(201);
  const jobId = await apiClient(app, tokens.launcher!).launch("secured-approval");

  const statuses: Record<"late" | "revoked" | "admin", string[]> = { late: [], revoked: [], admin: [] };
  const open = (who: keyof typeof statuses, token: string) => {
    const socket = io(`${app.url}${UI_NAMESPACE}`, { auth: { token }, transports: ["websocket"], reconnection: false });
    socket.on(UiEvents.status, (message: { jobId: number; job: { status: string } }) => {
      if (message.jobId === jobId) statuses[who].push(message.job.status);
    });
    socket.on("connect", () => socket.emit(UiEvents.follow, { v: UI_CONTRACT_VERSION, jobId, after: 0 }));
    return socket;
  };
  const sockets = {
    late: open("late", lateToken),
    revoked: open("revoked", personal.json.token),
    admin: open("admin", tokens.admin!),
  };
  try {
    await waitFor(
      "every follower to hear the job waiting for approval",
      () => Object.values(statuses).every((heard) => heard.includes("approval")),
      {
        timeoutMs: 15_000,
        details: () => JSON.stringify(statuses),
      },
    );
    // A revoked token: the socket it opened is dropped at the next check.
    expect((await late.call("DELETE", `/api/tokens/${personal.json.id}`)).status).toBe(204);
    await waitFor("the revoked token's socket to be dropped", () => sockets.revoked.disconnected, { timeoutMs: 10_000 });
    expect(sockets.late.connected).toBe(true);
    // Out of the observers group: still connected, but the job is no longer sent.
    expect((await admin.call("PUT", "/api/groups/observers/members", { json: { users: ["observer"] } })).status).toBe(204);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await admin.call("POST", `/api/jobs/${jobId}/reject`, { json: { comment: "not today" } })).status).toBe(200);
    await waitFor("the admin to hear the rejection", () => statuses.admin.includes("rejected"), { timeoutMs: 15_000 });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(statuses.late).not.toContain("rejected");
    expect(sockets.late.connected).toBe(true);
  } finally {
    for (const socket of Object.values(sockets)) socket.close();
  }
});
