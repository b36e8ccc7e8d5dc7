/**
 * Groups in a real browser: an admin creates a group on the Groups page (a bad name is marked
 * on its field), puts a user in it, and that user's catalog then shows the form whose
 * `access.launch` names the group (test/fixtures/forms-access); before, it did not exist for them.
 */
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { apiClient } from "../support/api";
import { launchChromium, logIn, newPage, screenshot } from "./browser";

let app: RunningPlayform;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms-access") } });
  browser = await launchChromium();
  const admin = apiClient(app, await adminToken(app));
  expect((await admin.call("POST", "/api/users", { json: { username: "erin", password: "erin-password-1" } })).status).toBe(201);
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

it("an admin puts a user in a group, and the form that group may launch appears in the user's catalog", async () => {
  const erin = await signedIn("erin", "erin-password-1");
  const catalog = erin.getByTestId("form-catalog");
  await catalog.getByText("Open", { exact: true }).first().waitFor();
  expect(await catalog.getByTestId("form-card").count()).toBe(1);
  await erin.goto(`${app.url}/forms/secured`);
  await erin.getByTestId("not-found").waitFor();

  const admin = await signedIn("admin", app.adminPassword);
  await admin.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Groups" }).click();
  await admin.waitForURL(/\/groups$/);
  await admin.getByTestId("new-group-name").fill("launch ers");
  await admin.getByTestId("new-group-submit").click();
  await expect.poll(() => admin.getByText(/must be letters, digits/).count()).toBe(1);
  await admin.getByTestId("new-group-name").fill("launchers");
  await admin.getByTestId("new-group-description").fill("May launch the secured forms");
  await admin.getByTestId("new-group-submit").click();
  const row = admin.getByTestId("group-launchers");
  await row.waitFor();
  await row.getByTestId("edit-members").click();
  await row.getByTestId("member-erin").check();
  await row.getByTestId("save-members").click();
  await expect.poll(() => row.getByTestId("group-members").textContent()).toContain("erin");
  await screenshot(admin, "groups");

  await erin.goto(app.url);
  await catalog.getByText("Secured", { exact: true }).first().waitFor();
  // Secured and Secured with approval now; the open form as before.
  expect(await catalog.getByTestId("form-card").count()).toBe(3);
  await erin.goto(`${app.url}/forms/secured`);
  await erin
    .getByRole("button", { name: /launch/i })
    .first()
    .waitFor();
});
