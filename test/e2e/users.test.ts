/**
 * Accounts in a real browser: an admin adds a user on the Users page; the user signs in, sees
 * no admin pages, and changes their password on the account page.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { startPlayform, type RunningPlayform } from "../support/playform";
import { launchChromium, logIn, newPage, screenshot } from "./browser";

let app: RunningPlayform;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  app = await startPlayform();
  browser = await launchChromium();
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
  await logIn(page, username, password);
  await page.waitForURL((url) => !url.pathname.startsWith("/login"));
  return page;
}

it("an admin adds a user, who signs in without admin pages and changes their password", async () => {
  const admin = await signedIn("admin", app.adminPassword);
  await admin.goto(`${app.url}/users`);
  await admin.getByTestId("new-user-name").fill("Dana!");
  await admin.getByTestId("new-user-password").fill("short");
  await admin.getByTestId("new-user-submit").click();
  // The server's field messages land under the fields.
  await expect.poll(() => admin.getByText("must be 2-63 lowercase letters, digits, . _ -").count()).toBe(1);
  await expect.poll(() => admin.getByText("must be at least 10 characters").count()).toBe(1);

  await admin.getByTestId("new-user-name").fill("dana");
  await admin.getByTestId("new-user-password").fill("dana-password-1");
  await admin.getByTestId("new-user-submit").click();
  await admin.getByTestId("user-row-dana").waitFor();
  await screenshot(admin, "users");

  const dana = await signedIn("dana", "dana-password-1");
  const nav = dana.getByRole("navigation", { name: "Main" });
  await expect.poll(() => nav.getByRole("link", { name: "Forms" }).count()).toBe(1);
  expect(await nav.getByRole("link", { name: "Users" }).count()).toBe(0);
  expect(await nav.getByRole("link", { name: "Runners" }).count()).toBe(0);

  await dana.getByTestId("current-user").click();
  await dana.waitForURL(/\/account$/);
  await dana.getByTestId("current-password").fill("wrong-password");
  await dana.getByTestId("new-password").fill("dana-password-2");
  await dana.getByTestId("change-password").click();
  await expect.poll(() => dana.getByText("Current password is wrong").count()).toBe(1);
  await dana.getByTestId("current-password").fill("dana-password-1");
  await dana.getByTestId("change-password").click();
  await dana.getByTestId("password-changed").waitFor();
  await screenshot(dana, "account");

  const again = await signedIn("dana", "dana-password-2");
  expect(again.url()).not.toContain("/login");
});
