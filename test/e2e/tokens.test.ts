/**
 * Personal API tokens in a real browser: a user makes one on the account page, sees its secret
 * once, a script uses it, the user revokes it; an admin revokes another user's token on the
 * Users page. Every click is a same-origin request the cross-site check must let through.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { launchChromium, logIn, newPage, screenshot } from "./browser";

let app: RunningPlayform;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  app = await startPlayform();
  browser = await launchChromium();
  const response = await fetch(`${app.url}/api/users`, {
    method: "POST",
    headers: { authorization: `Bearer ${await adminToken(app)}`, "content-type": "application/json" },
    body: JSON.stringify({ username: "erin", password: "erin-password-1" }),
  });
  expect(response.status).toBe(201);
});
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function signedIn(username: string, password: string): Promise<Page> {
  const { context, page } = await newPage(browser, app.url);
  contexts.push(context);
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: app.url });
  await logIn(page, username, password);
  await page.waitForURL((url) => !url.pathname.startsWith("/login"));
  return page;
}

/** A script's call with the token: GET /api/auth/me. */
async function me(token: string): Promise<{ status: number; user?: string }> {
  const response = await fetch(`${app.url}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await response.json()) as { user?: { username: string } };
  return { status: response.status, user: body.user?.username };
}

it("a user makes a token on the account page, sees it once, uses it from a script and revokes it", async () => {
  const erin = await signedIn("erin", "erin-password-1");
  await erin.goto("/account");
  await erin.getByTestId("tokens-table-empty").waitFor();

  // Bad input: the server's message lands under the field.
  await erin.getByTestId("new-token-submit").click();
  await expect.poll(() => erin.getByText("Name is required").count()).toBe(1);

  await erin.getByTestId("new-token-name").fill("nightly backup");
  await erin.getByTestId("new-token-days").selectOption("90");
  await erin.getByTestId("new-token-submit").click();
  const secret = (await erin.getByTestId("new-token-secret").textContent())!.trim();
  expect(secret).toMatch(/^pfp_[A-Za-z0-9_-]{43}$/);
  await expect.poll(() => erin.getByText("it is shown only this once").count()).toBe(1);
  await erin.getByTestId("copy-token").click();
  await expect.poll(() => erin.getByTestId("copy-token").textContent()).toBe("Copied");
  expect(await erin.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  await erin.getByTestId("token-row-nightly backup").waitFor();
  await screenshot(erin, "account-tokens");

  // Before the fix: after "Done" or a reload, the secret is nowhere on the page.
  await erin.getByTestId("dismiss-token").click();
  expect(await erin.getByTestId("new-token-secret").count()).toBe(0);
  await erin.reload();
  await erin.getByTestId("token-row-nightly backup").waitFor();
  expect(await erin.content()).not.toContain(secret);
  expect(await erin.getByTestId("token-row-nightly backup").getByTestId("token-last-used").textContent()).toBe("never");

  expect(await me(secret)).toEqual({ status: 200, user: "erin" });
  await erin.reload();
  await expect.poll(() => erin.getByTestId("token-row-nightly backup").getByTestId("token-last-used").textContent()).not.toBe("never");

  await erin.getByTestId("revoke-token-nightly backup").click();
  await erin.getByTestId("revoke-token-nightly backup-confirm").click();
  await erin.getByTestId("tokens-table-empty").waitFor();
  expect((await me(secret)).status).toBe(401);
});

it("an admin sees and revokes another user's token on the Users page", async () => {
  const erin = await signedIn("erin", "erin-password-1");
  await erin.goto("/account");
  await erin.getByTestId("new-token-name").fill("ci deploy");
  await erin.getByTestId("new-token-submit").click();
  const secret = (await erin.getByTestId("new-token-secret").textContent())!.trim();
  expect((await me(secret)).status).toBe(200);

  const admin = await signedIn("admin", app.adminPassword);
  await admin.goto("/users");
  await admin.getByTestId("tokens-user-filter").selectOption("erin");
  const row = admin.getByTestId("admin-tokens-table").getByTestId("token-row-ci deploy");
  await row.waitFor();
  expect(await row.getAttribute("data-user")).toBe("erin");
  await screenshot(admin, "users-tokens");
  await admin.getByTestId("revoke-token-ci deploy").click();
  await admin.getByTestId("revoke-token-ci deploy-confirm").click();
  await admin.getByTestId("admin-tokens-table-empty").waitFor();
  expect((await me(secret)).status).toBe(401);
});

it("a user chooses a token's scope and expiry date, and sees and revokes the sign-in tokens of their scripts", async () => {
  const erin = await signedIn("erin", "erin-password-1");
  await erin.goto("/account");
  await erin.getByTestId("new-token-name").fill("read only report");
  await erin.getByTestId("new-token-scope").selectOption("read");
  await erin.getByTestId("new-token-days").selectOption("date");
  // The browser runs in UTC (browser.ts): the token ends at the end of that day, UTC.
  const day = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
  await erin.getByTestId("new-token-date").fill(day);
  await erin.getByTestId("new-token-submit").click();
  const secret = (await erin.getByTestId("new-token-secret").textContent())!.trim();
  const row = erin.getByTestId("token-row-read only report");
  await row.waitFor();
  expect(await row.getByTestId("token-scope").textContent()).toBe("read");

  // As listed by the API: that scope, expiring at the end of the chosen day (browser's time zone).
  const listed = (await (await fetch(`${app.url}/api/tokens`, { headers: { authorization: `Bearer ${secret}` } })).json()) as {
    tokens: { name: string; scope: string; expiresAt: string }[];
  };
  const made = listed.tokens.find((t) => t.name === "read only report")!;
  expect(made.scope).toBe("read");
  expect(made.expiresAt).toBe(`${day}T23:59:59.000Z`);
  // A read token reads, and may not launch.
  const launch = await fetch(`${app.url}/api/jobs`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ form: "anything", values: {} }),
  });
  expect(launch.status).toBe(403);

  // A script trades erin's password for a sign-in token: it shows in the list, and is revoked there.
  const traded = await fetch(`${app.url}/api/auth/token`, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from("erin:erin-password-1").toString("base64")}` },
  });
  expect(traded.status).toBe(201);
  const signIn = ((await traded.json()) as { token: string }).token;
  expect((await me(signIn)).status).toBe(200);
  await erin.reload();
  const signInRow = erin.locator('[data-kind="sign-in"]');
  await signInRow.waitFor();
  expect(await signInRow.getByTestId("token-scope").textContent()).toBe("admin");
  await screenshot(erin, "account-tokens-scopes");
  const rowId = (await signInRow.getAttribute("data-testid"))!.replace(/^token-row-/, "");
  await erin.getByTestId(`revoke-token-${rowId}`).click();
  await erin.getByTestId(`revoke-token-${rowId}-confirm`).click();
  await expect.poll(() => erin.locator('[data-kind="sign-in"]').count()).toBe(0);
  expect((await me(signIn)).status).toBe(401);
  expect((await me(secret)).status).toBe(200);
});
