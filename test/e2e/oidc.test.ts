/**
 * Single sign-on in a real browser against a real OpenID Connect provider (oidc-provider,
 * test/support/oidc-provider.ts): the first sign-in creates the account with its mapped groups,
 * sign-out, the provider drops a group and grants the admin value, and the next sign-in follows;
 * a provider account whose name is a local account's is refused, the local account untouched.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { apiClient } from "../support/api";
import { freePort, startOidcProvider, type RunningOidcProvider } from "../support/oidc-provider";
import { adminToken, dbQuery, startPlayform, type RunningPlayform } from "../support/playform";
import { launchChromium, newPage, screenshot } from "./browser";

let app: RunningPlayform;
let oidc: RunningOidcProvider;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  // The provider must know the app's redirect URI before the app (which needs the issuer) starts.
  const port = await freePort();
  oidc = await startOidcProvider(`http://127.0.0.1:${port}`);
  app = await startPlayform({
    env: {
      PORT: String(port),
      ...oidc.playformEnv(),
      PLAYFORM_OIDC_LABEL: "Test SSO",
      PLAYFORM_OIDC_GROUP_MAP: "ldap-dba=dba,ldap-ops=ops",
      PLAYFORM_OIDC_ADMIN_VALUES: "ldap-admins",
    },
  });
  expect(app.url).toBe(`http://127.0.0.1:${port}`);
  browser = await launchChromium();
});
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await oidc?.stop();
});

async function freshPage(): Promise<Page> {
  const { context, page } = await newPage(browser, app.url);
  contexts.push(context);
  return page;
}

/** From Playform's login page through the provider's login (and, the first time, consent) pages. */
async function signOnAt(page: Page, accountId: string, next = "/"): Promise<void> {
  await page.goto(`/login?next=${encodeURIComponent(next)}`);
  await page.getByRole("link", { name: "Sign in with Test SSO" }).click();
  await page.waitForURL((url) => url.origin === oidc.issuer || url.origin === app.url);
  if (new URL(page.url()).origin !== oidc.issuer) return; // the provider's session signed in at once
  await page.locator('input[name="login"]').fill(accountId);
  await page.locator('input[name="password"]').fill("any password");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.waitForURL((url) => url.origin === app.url || /\/interaction\//.test(url.pathname));
  if (new URL(page.url()).origin === oidc.issuer) await page.getByRole("button", { name: "Continue" }).click();
  await page.waitForURL((url) => url.origin === app.url);
}

type Me = { user: { username: string; role: string }; profile: { email: string | null; displayName: string | null; source: string } };

async function me(page: Page): Promise<{ status: number } & Partial<Me>> {
  const answer = await page.request.get("/api/auth/me");
  return { status: answer.status(), ...(answer.ok() ? ((await answer.json()) as Me) : {}) };
}

const membershipsOf = (username: string) =>
  dbQuery<{ name: string; source: string }>(
    app,
    'SELECT g.name AS name, m.source AS source FROM "GroupMember" m JOIN "Group" g ON g.id = m."groupId" JOIN "User" u ON u.id = m."userId" WHERE u.username = $1 ORDER BY g.name',
    [username],
  );

it("signs a new user in with mapped groups, and follows the provider's changes at the next sign-in", async () => {
  oidc.setAccount("carol-sub", {
    preferred_username: "Carol",
    email: "carol@example.com",
    name: "Carol C",
    groups: ["ldap-dba", "ldap-ops", "unmapped"],
  });
  const page = await freshPage();
  await signOnAt(page, "carol-sub", "/jobs");
  expect(new URL(page.url()).pathname).toBe("/jobs");
  // The provider's email and name are the account's profile (the {user.email} default of forms).
  expect(await me(page)).toEqual({
    status: 200,
    user: expect.objectContaining({ username: "carol", role: "user" }),
    profile: { email: "carol@example.com", displayName: "Carol C", source: "oidc" },
  });
  expect(await membershipsOf("carol")).toEqual([
    { name: "dba", source: "oidc" },
    { name: "ops", source: "oidc" },
  ]);
  const [row] = await dbQuery<Record<string, unknown>>(
    app,
    'SELECT source, "externalId", "passwordHash", "displayName", email, "lastLoginAt" FROM "User" WHERE username = $1',
    ["carol"],
  );
  expect(row).toMatchObject({
    source: "oidc",
    externalId: `${oidc.issuer}#carol-sub`,
    passwordHash: "",
    displayName: "Carol C",
    email: "carol@example.com",
  });
  expect(row!.lastLoginAt).not.toBeNull();
  await screenshot(page, "oidc-signed-in");

  // Sign out in Playform: the session ends; the login page offers to sign out of the provider too.
  await page.getByRole("button", { name: "Logout" }).click();
  await page.waitForURL((url) => url.pathname === "/login");
  await page.getByTestId("sso-logout").waitFor();
  expect((await me(page)).status).toBe(401);

  // At the provider, carol leaves ops and becomes an admin.
  oidc.setAccount("carol-sub", {
    preferred_username: "Carol",
    email: "carol@example.com",
    name: "Carol C",
    groups: ["ldap-dba", "ldap-admins"],
  });
  await signOnAt(page, "carol-sub");
  expect(await me(page)).toEqual({
    status: 200,
    user: expect.objectContaining({ username: "carol", role: "admin" }),
    profile: expect.objectContaining({ source: "oidc" }),
  });
  expect(await membershipsOf("carol")).toEqual([{ name: "dba", source: "oidc" }]);
  // Access follows: the admin-only users list is open to carol now.
  expect((await page.request.get("/api/users")).status()).toBe(200);
  // Still one account for carol.
  expect(await dbQuery(app, 'SELECT id FROM "User" WHERE "externalId" = $1', [`${oidc.issuer}#carol-sub`])).toHaveLength(1);
});

it("refuses a sign-in whose user name is a local account's, leaving that account alone", async () => {
  const admin = apiClient(app, await adminToken(app));
  expect((await admin.call("POST", "/api/users", { json: { username: "frank", password: "frank-password-1", role: "user" } })).status).toBe(
    201,
  );
  oidc.setAccount("frank-at-sso", { preferred_username: "frank", groups: ["ldap-ops"] });
  const page = await freshPage();
  await signOnAt(page, "frank-at-sso");
  expect(new URL(page.url()).pathname).toBe("/login");
  await expect.poll(() => page.getByTestId("login-error").textContent()).toMatch(/already exists and is not linked to single sign-on/);
  expect((await me(page)).status).toBe(401);
  const [frank] = await dbQuery<{ source: string; externalId: string | null }>(
    app,
    'SELECT source, "externalId" FROM "User" WHERE username = $1',
    ["frank"],
  );
  expect(frank).toEqual({ source: "local", externalId: null });
  expect(await membershipsOf("frank")).toEqual([]);
});
