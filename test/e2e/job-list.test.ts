/**
 * The jobs page in a real browser: filtering by status and paging keep their state in the
 * address (the back button undoes each step), rows show the date and the time, and a filter
 * that matches nothing says so. 130 jobs are put in the database directly.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { insertJobs, insertUsers, type JobRow } from "../support/job-rows";
import { dbQuery, startPlayform, type RunningPlayform } from "../support/playform";
import { launchChromium, logIn, newPage, screenshot } from "./browser";

let app: RunningPlayform;
let browser: Browser;
let context: BrowserContext | undefined;
/** Ids of the failed jobs, newest first. */
const failed: number[] = [];

beforeAll(async () => {
  app = await startPlayform();
  browser = await launchChromium();
  await insertUsers(app.databaseUrl, [{ id: "u-alice", username: "alice" }]);
  const [form] = await dbQuery<{ id: string }>(app, `SELECT id FROM "Form" WHERE name = 'hello-world'`);
  const start = Date.UTC(2026, 2, 1, 9, 0, 0);
  const rows: JobRow[] = [];
  for (let k = 0; k < 130; k++) {
    rows.push({
      formId: form!.id,
      formName: "hello-world",
      userId: "u-alice",
      runnerId: null,
      // 65 failed, 65 success.
      status: k % 2 === 0 ? "failed" : "success",
      createdAt: new Date(start + k * 3_600_000),
    });
  }
  await insertJobs(app.databaseUrl, rows);
  const stored = await dbQuery<{ id: number }>(app, `SELECT id FROM "Job" WHERE status = 'failed' ORDER BY "createdAt" DESC, id DESC`);
  failed.push(...stored.map((r) => Number(r.id)));
  expect(failed).toHaveLength(65);
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.stop();
});

async function rowIds(page: Page): Promise<number[]> {
  return page.$$eval('[data-testid="jobs-table"] tbody tr', (rows) => rows.map((row) => Number((row as HTMLElement).dataset.jobId)));
}

/** Waits until the table shows exactly these jobs. */
async function expectRows(page: Page, ids: number[]): Promise<void> {
  await page.waitForFunction(
    (expected) =>
      JSON.stringify(
        [...document.querySelectorAll('[data-testid="jobs-table"] tbody tr')].map((row) => Number((row as HTMLElement).dataset.jobId)),
      ) === JSON.stringify(expected),
    ids,
    { timeout: 15_000 },
  );
}

it("filters by status and pages through the cursor, with the state in the address", async () => {
  const opened = await newPage(browser, app.url);
  context = opened.context;
  const page = opened.page;
  await logIn(page, "admin", app.adminPassword);
  await page.waitForURL((url) => url.pathname === "/");
  await page.goto("/jobs");
  await page.getByTestId("jobs-table").waitFor();
  expect(await rowIds(page)).toHaveLength(50);

  // Date and time, in the browser's locale (en-GB, UTC here); the full timestamp on hover.
  const newest = page.locator(`[data-testid="jobs-table"] tr[data-job-id="${failed[0]}"] td[data-created]`);
  expect(await newest.textContent()).toBe("06 Mar 2026, 17:00:00");
  const title = (await newest.getAttribute("title")) ?? "";
  expect(title).toMatch(/^Friday,? 6 March 2026 at 17:00:00 UTC \(2026-03-06T17:00:00\.000Z\)$/);

  await page.getByTestId("status-filter-failed").click();
  await page.waitForURL((url) => url.searchParams.get("status") === "failed");
  await expectRows(page, failed.slice(0, 50));
  expect(await page.getByTestId("status-filter-failed").getAttribute("aria-pressed")).toBe("true");
  expect(await page.getByTestId("jobs-newer").isDisabled()).toBe(true);
  await screenshot(page, "jobs-filtered");

  await page.getByTestId("jobs-older").click();
  await page.waitForURL((url) => url.searchParams.has("cursor") && url.searchParams.get("status") === "failed");
  await expectRows(page, failed.slice(50));
  expect(await page.getByTestId("jobs-older").isDisabled()).toBe(true);

  // A shared address shows the same page.
  const shared = page.url();
  const other = await context.newPage();
  await other.goto(shared);
  await expectRows(other, failed.slice(50));
  await other.close();

  // Newer comes back; then the back button retraces every step.
  await page.getByTestId("jobs-newer").click();
  await expectRows(page, failed.slice(0, 50));
  await page.goBack();
  await expectRows(page, failed.slice(50));
  await page.goBack();
  await page.goBack();
  await page.waitForURL((url) => url.search === "");
  await expect.poll(() => page.getByTestId("status-filter-failed").getAttribute("aria-pressed")).toBe("false");
  expect(await rowIds(page)).toHaveLength(50);

  // Oldest first, and a filter that matches nothing says so.
  await page.getByLabel("Sort").selectOption("created");
  await page.waitForURL((url) => url.searchParams.get("sort") === "created");
  await page.getByLabel("Filter by user").fill("nobody");
  await page.waitForURL((url) => url.searchParams.get("user") === "nobody");
  await page.getByText("No jobs match these filters").waitFor();
  await page.getByTestId("clear-filters").click();
  await page.waitForURL((url) => url.search === "?sort=created");
  // The address changes first; the box follows at the next render (on a busy machine, later).
  await expect.poll(() => page.getByLabel("Filter by user").inputValue()).toBe("");
  await page.getByTestId("jobs-table").waitFor();
  await screenshot(page, "jobs-oldest-first");

  // A name typed with a pause in it is one step back, not one per pause (issue 36).
  const user = page.getByLabel("Filter by user");
  await user.pressSequentially("ali");
  await page.waitForURL((url) => url.searchParams.get("user") === "ali");
  await user.pressSequentially("ce");
  await page.waitForURL((url) => url.searchParams.get("user") === "alice");
  await page.goBack();
  await page.waitForURL((url) => url.search === "?sort=created");
  await expect.poll(() => user.inputValue()).toBe("");
});
