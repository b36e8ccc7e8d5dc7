/**
 * Single sign-on's edges over HTTP against a real provider (test/support/oidc-provider.ts):
 * the redirect to the provider (PKCE S256, state, nonce, the flow cookie's flags), the
 * callback's failures shown on the login page (the provider's error, a state that does not
 * match, no flow cookie, the provider unreachable), RP-initiated logout, and
 * PLAYFORM_LOCAL_LOGIN=false refusing password sign-in to everyone but the break-glass admin.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { freePort, startOidcProvider, type RunningOidcProvider } from "../support/oidc-provider";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let oidc: RunningOidcProvider;
let admin: ApiClient;

beforeAll(async () => {
  const port = await freePort();
  oidc = await startOidcProvider(`http://127.0.0.1:${port}`);
  app = await startPlayform({
    env: {
      PORT: String(port),
      ...oidc.playformEnv(),
      PLAYFORM_OIDC_LABEL: "Corp SSO",
      PLAYFORM_LOCAL_LOGIN: "false",
      PLAYFORM_LOCAL_RTE: "false",
    },
  });
  // The break-glass admin still gets a token with a password.
  admin = apiClient(app, await adminToken(app));
});
afterAll(async () => {
  await app?.stop();
  await oidc?.stop();
});

const get = (path: string, cookie?: string) => fetch(`${app.url}${path}`, { redirect: "manual", headers: cookie ? { cookie } : {} });

/** Starts a sign-on: the provider's authorization URL and the flow cookie (`name=value`). */
async function startSignOn(next = "/"): Promise<{ authorization: URL; cookie: string; setCookie: string }> {
  const response = await get(`/api/auth/oidc/login?next=${encodeURIComponent(next)}`);
  expect(response.status).toBe(303);
  const setCookie = response.headers.getSetCookie().find((c) => c.startsWith("playform_oidc=")) ?? "";
  return { authorization: new URL(response.headers.get("location")!), cookie: /^[^;]+/.exec(setCookie)![0], setCookie };
}

/** Where a callback sends the browser, and the sentence the login page shows there. */
async function callback(query: string, cookie?: string): Promise<{ location: string; page: string }> {
  const response = await get(`/api/auth/oidc/callback?${query}`, cookie);
  expect(response.status).toBe(303);
  const location = response.headers.get("location")!;
  const page = location.startsWith("/login") ? await (await get(location)).text() : "";
  return { location, page };
}

it("tells the login page what is configured", async () => {
  const answer = await admin.call("GET", "/api/auth/providers", { auth: false });
  expect(answer.status).toBe(200);
  expect(answer.json).toEqual({ localLogin: false, oidc: { label: "Corp SSO", loginUrl: "/api/auth/oidc/login" } });
  const page = await (await get("/login")).text();
  expect(page).toContain("Sign in with <!-- -->Corp SSO");
  expect(page).toContain("Administrator sign-in");
});

it("redirects to the provider with PKCE S256, state and nonce, kept in a short-lived HttpOnly cookie", async () => {
  const { authorization, setCookie } = await startSignOn("/jobs");
  expect(authorization.origin + authorization.pathname).toBe(`${oidc.issuer}/auth`);
  const params = authorization.searchParams;
  expect(params.get("client_id")).toBe(oidc.clientId);
  expect(params.get("redirect_uri")).toBe(`${app.url}/api/auth/oidc/callback`);
  expect(params.get("response_type")).toBe("code");
  expect(params.get("scope")).toBe("openid profile email");
  expect(params.get("code_challenge_method")).toBe("S256");
  expect(params.get("code_challenge")).toMatch(/^[\w-]{43}$/);
  expect(params.get("state")).toMatch(/^[\w-]{20,}$/);
  expect(params.get("nonce")).toMatch(/^[\w-]{20,}$/);
  expect(setCookie).toMatch(/HttpOnly/i);
  expect(setCookie).toMatch(/SameSite=lax/i);
  expect(setCookie).toMatch(/Path=\/api\/auth\/oidc/);
  expect(setCookie).toMatch(/Max-Age=600/);
  // The cookie is sealed: neither the state nor the verifier can be read from it.
  expect(setCookie).not.toContain(params.get("state")!);
});

it("shows the provider's refusal, a state mismatch and a missing flow on the login page, without a session", async () => {
  const { authorization, cookie } = await startSignOn();
  const state = authorization.searchParams.get("state")!;

  const denied = await callback(`error=access_denied&error_description=${encodeURIComponent("<b>phish</b>")}&state=${state}`, cookie);
  expect(denied.location).toBe("/login?sso_error=denied");
  expect(denied.page).toContain("The sign-in provider did not sign you in");
  expect(denied.page).not.toContain("phish");

  const wrongState = await callback(`code=abc&state=not-the-state`, cookie);
  expect(wrongState.location).toBe("/login?sso_error=state");
  expect(wrongState.page).toContain("did not match a sign-in started from this browser");

  const noFlow = await callback(`code=abc&state=${state}`);
  expect(noFlow.location).toBe("/login?sso_error=expired");
  expect(noFlow.page).toContain("took too long or was started in another browser");

  const forged = await callback(`code=abc&state=${state}`, "playform_oidc=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
  expect(forged.location).toBe("/login?sso_error=expired");

  // A code the provider never issued: its answer is refused, nobody is signed in.
  const badCode = await get(`/api/auth/oidc/callback?code=made-up&state=${state}&iss=${encodeURIComponent(oidc.issuer)}`, cookie);
  expect(badCode.headers.get("location")).toBe("/login?sso_error=rejected");
  expect(badCode.headers.getSetCookie().some((c) => c.startsWith("playform_session=") && !/Max-Age=0/.test(c))).toBe(false);
});

it("refuses password sign-in to everyone but the break-glass admin when local login is off", async () => {
  expect((await admin.call("POST", "/api/users", { json: { username: "dana", password: "dana-password-1", role: "user" } })).status).toBe(
    201,
  );
  const login = (username: string, password: string) =>
    fetch(`${app.url}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username, password }),
    });
  const refused = await login("dana", "dana-password-1");
  expect(refused.status).toBe(403);
  expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
    'password sign-in is turned off on this server: sign in with Corp SSO (only the break-glass account "admin" may use a password)',
  );
  const token = await fetch(`${app.url}/api/auth/token`, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from("dana:dana-password-1").toString("base64")}` },
  });
  expect(token.status).toBe(403);
  expect((await login("admin", app.adminPassword)).status).toBe(200);
});

it("offers RP-initiated logout at the provider's end_session_endpoint", async () => {
  const response = await get("/api/auth/oidc/logout");
  expect(response.status).toBe(303);
  const location = new URL(response.headers.get("location")!);
  expect(location.origin + location.pathname).toBe(`${oidc.issuer}/session/end`);
  expect(location.searchParams.get("client_id")).toBe(oidc.clientId);
  expect(location.searchParams.get("post_logout_redirect_uri")).toBe(`${app.url}/login`);
  expect(response.headers.getSetCookie().some((c) => /^playform_session=;.*Max-Age=0/i.test(c))).toBe(true);
});

it("says so when the provider cannot be reached", async () => {
  const { authorization, cookie } = await startSignOn();
  await oidc.stop();
  const unreachable = await callback(
    `code=abc&state=${authorization.searchParams.get("state")}&iss=${encodeURIComponent(oidc.issuer)}`,
    cookie,
  );
  expect(unreachable.location).toBe("/login?sso_error=unreachable");
  expect(unreachable.page).toContain("cannot be reached right now");
});
