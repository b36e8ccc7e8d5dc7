/**
 * The Audit page in a real browser: an admin launches a form through the API, opens the page
 * from the admin navigation, filters by action (kept in the address) and sees the launch with
 * who and from where; the JSON lines download link carries the filter.
 */
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { launchChromium, logIn, newPage, screenshot } from "./browser";

let app: RunningPlayform;
let browser: Browser;
let context: BrowserContext | undefined;

beforeAll(async () => {
  app = await startPlayform();
  browser = await launchChromium();
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.stop();
});

it("an admin filters the audit trail by action and sees the launch", async () => {
  const api = apiClient(app, await adminToken(app));
  const forms = (await api.get("/api/forms")) as { forms: { name: string }[] };
  const id = await api.launch(forms.forms.find((form) => form.name === "hello-world")!.name, {});

  const opened = await newPage(browser, app.url);
  context = opened.context;
  const page = opened.page;
  await logIn(page, "admin", app.adminPassword);
  await page.waitForURL((url) => !url.pathname.startsWith("/login"));
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Audit" }).click();
  await page.waitForURL(/\/audit$/);
  await page.getByTestId("audit-table").waitFor();

  await page.getByLabel("Filter by action").fill("job.launch");
  await page.getByLabel("Filter by action").press("Enter");
  await page.waitForURL(/\/audit\?action=job\.launch$/);
  const rows = page.locator('[data-testid="audit-table"] tbody tr');
  await expect.poll(() => rows.count()).toBe(1);
  const row = rows.first();
  expect(await row.getAttribute("data-action")).toBe("job.launch");
  expect(await row.locator('[data-cell="actor"]').textContent()).toBe("admin");
  expect(await row.locator('[data-cell="target"]').textContent()).toBe(`job:${id}`);
  expect(await row.locator('[data-cell="outcome"]').textContent()).toBe("success");
  expect(await row.textContent()).toContain("127.0.0.1");
  expect(await page.getByTestId("audit-export").getAttribute("href")).toBe("/api/audit/export?action=job.launch");
  await screenshot(page, "audit");
});
