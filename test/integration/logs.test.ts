/**
 * Structured logs of a real app and its local RTE: JSON lines carrying jobId and reqId, the
 * request id sent back, one access line per API request at debug level, and no secret, neither
 * a job's password value nor a wrong password typed at login, nor the admin password.
 */
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let api: ApiClient;

beforeAll(async () => {
  app = await startPlayform({
    env: { PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms"), LOG_LEVEL: "debug" },
  });
  api = apiClient(app, await adminToken(app));
});
afterAll(async () => {
  await app?.stop();
});

type Line = Record<string, unknown> & { level: string; msg: string };

/** The app's (and its local RTE's) output lines that are JSON objects. */
function jsonLines(): Line[] {
  return app
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Line);
}

function leakedForms(secret: string): string[] {
  return [
    secret,
    JSON.stringify(secret).slice(1, -1),
    JSON.stringify(JSON.stringify(secret)).slice(1, -1),
    Buffer.from(secret).toString("base64").replace(/=+$/, ""),
    encodeURIComponent(secret),
    "S3cret%21%40/x%20y",
  ];
}

it("writes JSON lines with jobId and reqId, and never a secret", async () => {
  const secret = 'S3cret!@/x y"quoted"';
  const id = await api.launch("secret-echo", { api_key: secret, note: "visible" });
  const job = await api.waitForEnd(id);
  expect(job.status).toBe("success");
  await app.waitForOutput(new RegExp(`job ${id}: finished`), 20_000);

  const wrongPassword = "Wr0ng-pa$$word-typed-at-login";
  // Raw: what is tested is the x-request-id header, sent and answered.
  const login = await fetch(`${app.url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-request-id": "test-login-1" },
    body: JSON.stringify({ username: "admin", password: wrongPassword }),
  });
  expect(login.status).toBe(401);
  expect(login.headers.get("x-request-id")).toBe("test-login-1");
  // An id that is not sane is replaced by one of the app's.
  for (const odd of ["has spaces and <html>", "x".repeat(129)]) {
    const answer = await fetch(`${app.url}/api/auth/me`, { headers: { "x-request-id": odd } });
    expect(answer.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  }
  await app.waitForOutput(/"reqId":"test-login-1".*failed login for/, 10_000);
  await app.waitForOutput(/POST \/api\/auth\/login 401/, 10_000);

  const lines = jsonLines();
  // The RTE's lines about the job, from its own process, forwarded as they are.
  const jobLines = lines.filter((line) => line.jobId === id);
  expect(jobLines.some((line) => line.source === "rte" && line.msg === `job ${id}: claimed (1/4 running)`)).toBe(true);
  expect(jobLines.some((line) => line.source === "rte" && line.msg === `job ${id}: finished`)).toBe(true);
  // The failed login, with the request's id, the name and the address: not the password.
  const failed = lines.find((line) => line.reqId === "test-login-1" && /failed login for "admin"/.test(line.msg));
  expect(failed).toMatchObject({ level: "warn", source: "app", user: "admin" });
  // One access line per API request, at debug level: method, route, status, duration.
  const access = lines.find((line) => line.reqId === "test-login-1" && line.route === "/api/auth/login");
  expect(access).toMatchObject({ level: "debug", method: "POST", status: 401 });
  expect(typeof access!.ms).toBe("number");
  // The app's own lines are JSON too, with their context.
  expect(lines.some((line) => line.source === "app" && /^Playform is running at http/.test(line.msg))).toBe(true);
  expect(lines.some((line) => line.source === "rte" && line.instance === "local-0" && /^connected to http/.test(line.msg))).toBe(true);
  expect(app.output()).not.toMatch(/^\[(rte|playform)\]/m);

  const output = app.output();
  for (const leaked of [...leakedForms(secret), ...leakedForms(wrongPassword), ...leakedForms(app.adminPassword)])
    expect(output).not.toContain(leaked);
});

it("writes nothing but JSON lines on stdout and stderr, Next.js's own lines included", () => {
  const other = app
    .output()
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("{"));
  expect(other).toEqual([]);
  expect(jsonLines().some((line) => line.component === "console" && /Running next\.config/.test(line.msg))).toBe(true);
});
