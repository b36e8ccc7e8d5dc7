/**
 * The job page past the browser's cap on an element's height (Chromium: 2^25 px, 2,097,152
 * rows of 16 px): a finished job of three million lines, stored straight into the app's
 * database (a playbook printing them would take an hour), in a real browser against the
 * production build. Its last line is reachable by scrolling, "Go to line", #L, "Jump to task"
 * and search, and every line drawn is where it belongs: one row apart, never over another.
 */
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { seedLongJob } from "../support/output-rows";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { launchChromium, logIn, newPage, screenshot } from "./browser";

const FORMS = path.resolve(import.meta.dirname, "../fixtures/forms-page");
const LINES = 3_000_000;
/** Past Chromium's cap on an element's height (2^25 px) in rows of 16 px. */
const CHROMIUM_CAP_ROWS = 2 ** 25 / 16;
const FIRST_TASK = { line: 3, name: "First task" };
const DEEP_TASK = { line: 2_999_000, name: "Deep task" };
const NEEDLE = { line: 2_987_654, text: "needle in line 2987654" };
const MAX_ELEMENTS = 5000;
const PANE = '[data-testid="job-output"]';

let app: RunningPlayform;
let api: ApiClient;
let browser: Browser;
let context: BrowserContext | undefined;
let jobId: number;

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: FORMS } });
  api = apiClient(app, await adminToken(app));
  // The form's row exists once the catalog has been read.
  await api.get("/api/forms");
  const started = Date.now();
  jobId = seedLongJob(app.databaseUrl.replace(/^file:/, ""), {
    lines: LINES,
    userName: "admin",
    formName: "page-output",
    tasks: [FIRST_TASK, DEEP_TASK],
    texts: [NEEDLE],
  });
  console.log(`stored a job of ${LINES.toLocaleString("en")} lines in ${Date.now() - started} ms`);
  const { job } = await api.get(`/api/jobs/${jobId}`);
  expect(job.lines).toBe(LINES);
  browser = await launchChromium();
});

afterEach(async () => {
  await context?.close();
  context = undefined;
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function openJob(hash = ""): Promise<Page> {
  const opened = await newPage(browser, app.url);
  context = opened.context;
  const page = opened.page;
  await logIn(page, "admin", app.adminPassword);
  await page.waitForURL((url) => url.pathname === "/");
  await page.goto(`/jobs/${jobId}${hash}`);
  return page;
}

/** The rows drawn with their text, in view or not: line number, text, top and bottom. */
function drawnRows(page: Page) {
  return page.evaluate((selector) => {
    const pane = document.querySelector<HTMLElement>(selector)!;
    const box = pane.getBoundingClientRect();
    return {
      paneTop: box.top,
      paneBottom: box.bottom,
      scrollHeight: pane.scrollHeight,
      rows: [...pane.querySelectorAll<HTMLElement>("[data-line]")].map((row) => {
        const b = row.getBoundingClientRect();
        return {
          n: Number(row.dataset.line),
          text: row.textContent ?? "",
          top: b.top,
          bottom: b.bottom,
          loaded: row.dataset.stream !== undefined,
        };
      }),
    };
  }, PANE);
}

/** Waits until line n is drawn with its text and wholly inside the pane. */
async function waitForLineInView(page: Page, n: number, timeout = 20_000): Promise<void> {
  await page.waitForFunction(
    ({ selector, n }) => {
      const pane = document.querySelector<HTMLElement>(selector);
      const row = pane?.querySelector<HTMLElement>(`[data-line="${n}"][data-stream]`);
      if (!pane || !row) return false;
      const box = pane.getBoundingClientRect();
      const b = row.getBoundingClientRect();
      return b.top >= box.top - 1 && b.bottom <= box.bottom + 1;
    },
    { selector: PANE, n },
    { timeout, polling: 20 },
  );
}

/** What line n says (seedLongJob). */
function expectedText(n: number): string {
  const task = [FIRST_TASK, DEEP_TASK].find((t) => t.line === n);
  if (task) return `TASK [${task.name}]`;
  return n === NEEDLE.line ? NEEDLE.text : `line ${n}`;
}

/** Every row in view is drawn with its own text, 16 px below the one before: nothing overlaps, nothing is missing. */
async function expectCleanRows(page: Page, around: number): Promise<void> {
  await page.waitForFunction(
    (selector) => {
      const pane = document.querySelector<HTMLElement>(selector)!;
      const box = pane.getBoundingClientRect();
      const shown = [...pane.querySelectorAll<HTMLElement>("[data-line]")].filter((row) => {
        const b = row.getBoundingClientRect();
        return b.bottom > box.top && b.top < box.bottom;
      });
      return shown.length > 10 && shown.every((row) => row.dataset.stream !== undefined);
    },
    PANE,
    { timeout: 20_000, polling: 20 },
  );
  const { rows, paneTop, paneBottom } = await drawnRows(page);
  const inView = rows.filter((row) => row.bottom > paneTop && row.top < paneBottom).sort((a, b) => a.top - b.top);
  expect(inView.map((row) => row.n)).toContain(around);
  for (const [i, row] of inView.entries()) {
    expect(row.text, `line ${row.n}`).toContain(expectedText(row.n));
    if (i === 0) continue;
    const before = inView[i - 1]!;
    expect(row.n, "rows in order, none missing").toBe(before.n + 1);
    expect(row.top - before.top, `line ${row.n} one row below line ${before.n}`).toBeCloseTo(16, 0);
  }
}

const firstInView = async (page: Page) => {
  const { rows, paneTop, paneBottom } = await drawnRows(page);
  return Math.min(...rows.filter((row) => row.top >= paneTop - 1 && row.bottom <= paneBottom + 1).map((row) => row.n));
};

describe(`a finished job of ${LINES.toLocaleString("en")} lines, past the browser's height cap`, () => {
  it("scrolls from the first line to the last, drawn cleanly, the pane under the cap and the DOM bounded", async () => {
    expect(LINES).toBeGreaterThan(CHROMIUM_CAP_ROWS);
    const page = await openJob();
    await waitForLineInView(page, 1);
    expect(await page.getByTestId("output-line-count").textContent()).toBe(`${LINES.toLocaleString("en-GB")} lines`);
    await expectCleanRows(page, 1);
    // Laid out compressed: the pane's content stays under every browser's cap, wrapping is off.
    const { scrollHeight } = await drawnRows(page);
    expect(scrollHeight).toBeLessThan(17_000_000);
    expect(await page.getByRole("button", { name: /wrap/i }).isDisabled()).toBe(true);

    // The end of the scroll range is the last line.
    await page.locator(PANE).evaluate((pane) => (pane.scrollTop = pane.scrollHeight));
    await waitForLineInView(page, LINES);
    await expectCleanRows(page, LINES);
    await screenshot(page, "job-output-huge-end");

    // Anywhere between, and past Chromium's cap: the rows drawn are the right ones, in order.
    let most = 0;
    for (const fraction of [0.1, 0.5, 0.7, 0.9, 0.999]) {
      await page.locator(PANE).evaluate((pane, f) => (pane.scrollTop = (pane.scrollHeight - pane.clientHeight) * f), fraction);
      const expected = Math.round(LINES * fraction);
      await expect.poll(async () => Math.abs((await firstInView(page)) - expected) < LINES / 1000, { timeout: 20_000 }).toBe(true);
      await expectCleanRows(page, (await firstInView(page)) + 1);
      most = Math.max(most, await page.evaluate(() => document.getElementsByTagName("*").length));
    }
    expect(most).toBeLessThan(MAX_ELEMENTS);

    // Back to the top.
    await page.locator(PANE).evaluate((pane) => (pane.scrollTop = 0));
    await waitForLineInView(page, 1);
  });

  it("moves by the wheel's and the arrow keys' usual distance, not the compressed one", async () => {
    const page = await openJob("#L2500000");
    await waitForLineInView(page, 2_500_000);
    await expectCleanRows(page, 2_500_000);
    const before = await firstInView(page);
    await page.locator(PANE).hover();
    // 160 px of wheel: ten rows of 16 px, as in an ordinary pane (compressed it would be over a hundred).
    await page.mouse.wheel(0, 160);
    await expect.poll(() => firstInView(page)).not.toBe(before);
    const wheeled = await firstInView(page);
    expect(wheeled - before).toBeGreaterThanOrEqual(8);
    expect(wheeled - before).toBeLessThanOrEqual(12);
    await expectCleanRows(page, wheeled);

    // The arrow key: 40 px, two or three rows.
    await page.locator(PANE).focus();
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => firstInView(page)).not.toBe(wheeled);
    const arrowed = await firstInView(page);
    expect(arrowed - wheeled).toBeGreaterThanOrEqual(1);
    expect(arrowed - wheeled).toBeLessThanOrEqual(4);
  });

  it("goes to any line by #L and by the box, to a task near the end, and to a search hit", async () => {
    const page = await openJob(`#L${LINES - 10}`);
    await waitForLineInView(page, LINES - 10);
    expect(await page.locator(`${PANE} [data-line="${LINES - 10}"]`).getAttribute("data-marked")).toBe("hash");
    await expectCleanRows(page, LINES - 10);

    await page.getByLabel("Go to line").fill("2222222");
    await page.getByLabel("Go to line").press("Enter");
    await waitForLineInView(page, 2_222_222);
    expect(new URL(page.url()).hash).toBe("#L2222222");
    await expectCleanRows(page, 2_222_222);

    const list = page.getByLabel("Jump to task");
    await expect.poll(() => list.locator("option").count()).toBe(3);
    await list.selectOption({ label: DEEP_TASK.name });
    await waitForLineInView(page, DEEP_TASK.line);
    await expectCleanRows(page, DEEP_TASK.line);

    const box = page.getByLabel("Search the output");
    await box.fill("needle in line");
    await box.press("Enter");
    await expect.poll(() => page.getByTestId("output-search-status").textContent(), { timeout: 60_000 }).toBe("1 / 1");
    await waitForLineInView(page, NEEDLE.line);
    expect(await page.locator(`${PANE} [data-line="${NEEDLE.line}"]`).getAttribute("data-marked")).toBe("match");
    await expectCleanRows(page, NEEDLE.line);
    await screenshot(page, "job-output-huge-search");
  });
});
