/**
 * The job page on a big output, in a real browser against the production build: a
 * finished job of 200,000 lines opens at once and scrolls end to end with the DOM bounded;
 * #L, "Go to line", "Jump to task", the timeline's task links and search take you to a line;
 * a live job is followed while the pane is at the bottom, and scrolling up counts new lines.
 * Times and sizes are printed (console) for the record; the asserted bounds are generous.
 */
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { stripAnsi } from "../../server/protocol/ansi";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { launchChromium, logIn, newPage, screenshot } from "./browser";

const FORMS = path.resolve(import.meta.dirname, "../fixtures/forms-page");
const BIG = 200_000;
/** What the issue asks of the page, whatever the size of the job. */
const MAX_ELEMENTS = 5000;

let app: RunningPlayform;
let api: ApiClient;
let browser: Browser;
let context: BrowserContext | undefined;
let big: { id: number; lines: number };

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: FORMS } });
  api = apiClient(app, await adminToken(app));
  browser = await launchChromium();
  const job = await api.waitForEnd(await api.launch("page-output", { lines: BIG }), 200_000);
  expect(job.status).toBe("success");
  big = { id: job.id, lines: job.lines };
  expect(big.lines).toBeGreaterThan(BIG);
});

afterEach(async () => {
  await context?.close();
  context = undefined;
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function openPage(): Promise<Page> {
  const opened = await newPage(browser, app.url);
  context = opened.context;
  const page = opened.page;
  await logIn(page, "admin", app.adminPassword);
  await page.waitForURL((url) => url.pathname === "/");
  return page;
}

const PANE = '[data-testid="job-output"]';

/** Every element of the document. */
const elementCount = (page: Page) => page.evaluate(() => document.getElementsByTagName("*").length);

/** The first and last line fully inside the pane (placeholders included), and how far the pane is from its bottom. */
function view(page: Page) {
  return page.evaluate((selector) => {
    const pane = document.querySelector<HTMLElement>(selector)!;
    const box = pane.getBoundingClientRect();
    const rows = [...pane.querySelectorAll<HTMLElement>("[data-line]")].filter((row) => {
      const b = row.getBoundingClientRect();
      return b.top >= box.top - 1 && b.bottom <= box.bottom + 1;
    });
    return {
      first: Number(rows[0]?.dataset.line ?? 0),
      last: Number(rows.at(-1)?.dataset.line ?? 0),
      total: Number(pane.dataset.lines),
      scrollTop: pane.scrollTop,
      fromBottom: pane.scrollHeight - pane.scrollTop - pane.clientHeight,
    };
  }, PANE);
}

/** Waits until line n is rendered with its text (not a placeholder) and fully inside the pane. */
async function waitForLineInView(page: Page, n: number, timeout = 15_000): Promise<void> {
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

/** Waits until the pane shows rows and none of them is a placeholder any more. */
async function waitForLoadedView(page: Page, timeout = 15_000): Promise<void> {
  await page.waitForFunction(
    (selector) => {
      const pane = document.querySelector<HTMLElement>(selector);
      if (!pane) return false;
      const box = pane.getBoundingClientRect();
      const shown = [...pane.querySelectorAll<HTMLElement>("[data-line]")].filter((row) => {
        const b = row.getBoundingClientRect();
        return b.bottom > box.top && b.top < box.bottom;
      });
      return shown.length > 10 && shown.every((row) => row.dataset.stream !== undefined);
    },
    PANE,
    { timeout, polling: 20 },
  );
}

const lineText = (page: Page, n: number) => page.locator(`${PANE} [data-line="${n}"]`).textContent();

describe(`a finished job of ${BIG.toLocaleString("en")} lines`, () => {
  it("shows its first lines at once, scrolls end to end with the DOM bounded, and reads only windows", async () => {
    const page = await openPage();
    const reads: string[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.pathname === `/api/jobs/${big.id}/lines`) reads.push(url.search);
      if (url.pathname === `/api/jobs/${big.id}/output`) reads.push(`output${url.search}`);
    });

    const started = Date.now();
    await page.goto(`/jobs/${big.id}`);
    await waitForLineInView(page, 1);
    const firstLineMs = Date.now() - started;
    expect(await page.getByTestId("output-line-count").textContent()).toBe(`${big.lines.toLocaleString("en-GB")} lines`);
    expect(await elementCount(page)).toBeLessThan(MAX_ELEMENTS);
    await screenshot(page, "job-output-big");

    // To the end: the last line (the PLAY RECAP's host line is near it) is read and shown.
    let at = Date.now();
    await page.locator(PANE).evaluate((pane) => (pane.scrollTop = pane.scrollHeight));
    await waitForLineInView(page, big.lines);
    const toEndMs = Date.now() - at;
    const tail = await api.get(`/api/jobs/${big.id}/lines?tail=1`);
    expect(await lineText(page, big.lines)).toContain(stripAnsi(tail.lines[0].text).trim());

    // Back to line 1.
    at = Date.now();
    await page.locator(PANE).evaluate((pane) => (pane.scrollTop = 0));
    await waitForLineInView(page, 1);
    const toStartMs = Date.now() - at;

    // End to end in steps: the DOM stays bounded, every step shows its lines.
    let most = 0;
    const height = await page.locator(PANE).evaluate((pane) => pane.scrollHeight);
    for (let step = 1; step <= 40; step++) {
      await page.locator(PANE).evaluate((pane, top) => (pane.scrollTop = top), (height * step) / 40);
      await waitForLoadedView(page);
      most = Math.max(most, await elementCount(page));
    }
    expect(most).toBeLessThan(MAX_ELEMENTS);

    // Windows of at most 500 lines, never the chunk API or the whole output.
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((search) => /^\?(tail=500|from=\d+&count=500)$/.test(search))).toBe(true);
    // Far fewer reads than pages in the job: only those the view came near.
    expect(reads.length).toBeLessThan(Math.ceil(big.lines / 500) / 2);

    const cdp = await context!.newCDPSession(page);
    await cdp.send("Performance.enable");
    const { metrics } = await cdp.send("Performance.getMetrics");
    const heapMb = (metrics.find((m) => m.name === "JSHeapUsedSize")?.value ?? 0) / 1e6;
    expect(heapMb).toBeLessThan(150);
    console.log(
      `${big.lines} lines: first line in ${firstLineMs} ms (page load included), end in ${toEndMs} ms, line 1 in ${toStartMs} ms; ` +
        `at most ${most} elements while scrolling; JS heap ${heapMb.toFixed(1)} MB; ${reads.length} reads`,
    );
  });

  it("opens on #L, marks that line, and goes to a line from the box or a line number without history entries", async () => {
    const page = await openPage();
    await page.goto(`/jobs/${big.id}#L150000`);
    await waitForLineInView(page, 150_000);
    expect(await page.locator(`${PANE} [data-line="150000"]`).getAttribute("data-marked")).toBe("hash");
    expect(await lineText(page, 150_000)).toContain(`line ${String(150_000 - 12).padStart(8, "0")} of the page test`);
    const entries = await page.evaluate(() => history.length);

    await page.getByLabel("Go to line").fill("1234");
    await page.getByLabel("Go to line").press("Enter");
    await waitForLineInView(page, 1234);
    expect(new URL(page.url()).hash).toBe("#L1234");
    expect(await page.locator(`${PANE} [data-line="1234"]`).getAttribute("data-marked")).toBe("hash");
    expect(await page.locator(`${PANE} [data-line="150000"]`).count()).toBe(0);

    // A click on a line number names that line (shareable) and marks it, in place.
    const before = await view(page);
    const n = before.first + 3;
    await page.getByRole("link", { name: `Link to line ${n}`, exact: true }).click();
    await page.waitForFunction((n) => location.hash === `#L${n}`, n);
    expect(await page.locator(`${PANE} [data-line="${n}"]`).getAttribute("data-marked")).toBe("hash");
    expect((await view(page)).scrollTop).toBe(before.scrollTop);
    // Copying output copies output only: the number is drawn by CSS, not in the text.
    expect(await lineText(page, n)).not.toMatch(new RegExp(`^\\s*${n}`));

    expect(await page.evaluate(() => history.length)).toBe(entries);
    // The address is shareable: a new page on it lands on that line.
    const shared = page.url();
    await page.goto("about:blank");
    await page.goto(shared);
    await waitForLineInView(page, n);
  });

  it("jumps to a task from the list and from the timeline", async () => {
    const page = await openPage();
    const { tasks } = await api.get(`/api/jobs/${big.id}/tasks`);
    const change = tasks.find((t: { name: string }) => t.name === "A change");
    const print = tasks.find((t: { name: string }) => t.name === "Print them");
    expect(change.line).toBeGreaterThan(BIG);
    await page.goto(`/jobs/${big.id}`);
    await waitForLineInView(page, 1);

    const list = page.getByLabel("Jump to task");
    await expect.poll(() => list.locator("option").count()).toBe(tasks.length + 1);
    expect(await list.locator("optgroup").evaluateAll((groups) => groups.map((g) => g.getAttribute("label")))).toEqual([
      "Play: Bulk play",
      "Play: Trickle play",
    ]);
    await list.selectOption({ label: "A change" });
    await waitForLineInView(page, change.line);
    expect(await lineText(page, change.line)).toContain("TASK [A change]");
    expect(new URL(page.url()).hash).toBe(`#L${change.line}`);

    // The timeline below links each task to its first line too.
    const link = page.getByTestId("job-timeline").getByRole("link", { name: "Print them" });
    await link.waitFor({ timeout: 30_000 });
    await link.click();
    await waitForLineInView(page, print.line);
    expect(await lineText(page, print.line)).toContain("TASK [Print them]");
  });

  it("searches on the server, steps through the matches and marks them in the lines", async () => {
    const page = await openPage();
    await page.goto(`/jobs/${big.id}`);
    await waitForLineInView(page, 1);
    const box = page.getByLabel("Search the output");
    const status = page.getByTestId("output-search-status");

    await box.fill("LINE 00150000");
    await box.press("Enter");
    await expect.poll(() => status.textContent(), { timeout: 30_000 }).toBe("1 / 1");
    const found = 150_000 + 12;
    await waitForLineInView(page, found);
    expect(await page.locator(`${PANE} [data-line="${found}"]`).getAttribute("data-marked")).toBe("match");
    expect(await page.locator(`${PANE} [data-line="${found}"] mark`).allTextContents()).toEqual(["line 00150000"]);

    // Typing a new query drops the old results; this one matches every line: capped.
    await box.fill("of the page test");
    expect(await status.textContent()).toBe("");
    await box.press("Enter");
    await expect.poll(() => status.textContent(), { timeout: 30_000 }).toBe("1 / 1000+");
    expect(await page.getByTestId("output-search-capped").textContent()).toBe("(first 1,000 lines only)");
    await waitForLineInView(page, 13);
    await box.press("Enter");
    await expect.poll(() => status.textContent()).toBe("2 / 1000+");
    await waitForLineInView(page, 14);
    await box.press("Shift+Enter");
    await box.press("Shift+Enter");
    await expect.poll(() => status.textContent()).toBe("1000 / 1000+");
    await waitForLineInView(page, 1012);
    await page.getByRole("button", { name: /Next match/ }).click();
    await expect.poll(() => status.textContent()).toBe("1 / 1000+");
    await waitForLineInView(page, 13);
    expect(await page.locator(`${PANE} [data-line="13"]`).getAttribute("data-marked")).toBe("match");
    // The mark sits inside the line's colour: the text is unchanged.
    expect(await lineText(page, 13)).toBe('        "line 00000001 of the page test",');
    expect(await page.locator(`${PANE} [data-line="14"] mark`).allTextContents()).toEqual(["of the page test"]);
    await screenshot(page, "job-output-search");
  });
});

describe("a live job", () => {
  it("follows the end while at the bottom; scrolled up it stays put and counts new lines until asked to follow again", async () => {
    const id = await api.launch("page-output", { lines: 3000, ticks: 400 });
    try {
      const page = await openPage();
      await page.goto(`/jobs/${id}`);
      await page.waitForFunction(
        (selector) => {
          const live = document.querySelector<HTMLElement>('[data-testid="live-indicator"]')?.dataset.connection === "live";
          return live && Number(document.querySelector<HTMLElement>(selector)?.dataset.lines) > 3030;
        },
        PANE,
        { timeout: 90_000, polling: 100 },
      );

      // Following: as lines arrive, the last one is in view.
      const start = (await view(page)).total;
      await page.waitForFunction(
        (n) => Number(document.querySelector<HTMLElement>('[data-testid="job-output"]')?.dataset.lines) > n + 6,
        start,
        {
          timeout: 30_000,
        },
      );
      let now = await view(page);
      await waitForLineInView(page, now.total);
      expect((await view(page)).fromBottom).toBeLessThanOrEqual(24);
      expect(await page.getByTestId("output-new-lines").count()).toBe(0);

      // Scrolled up: the pane stays where it is and counts what arrives.
      await page.locator(PANE).hover();
      await page.mouse.wheel(0, -800);
      await page.getByTestId("output-new-lines").waitFor();
      const parked = await view(page);
      const seen = parked.total;
      await page.waitForFunction(
        (n) =>
          /^(\d+) new lines? ↓$/.test(document.querySelector('[data-testid="output-new-lines"]')?.textContent ?? "") &&
          Number(document.querySelector<HTMLElement>('[data-testid="job-output"]')?.dataset.lines) > n + 6,
        seen,
        { timeout: 30_000 },
      );
      now = await view(page);
      const label = (await page.getByTestId("output-new-lines").textContent()) ?? "";
      const counted = Number(/^(\d+)/.exec(label)?.[1]);
      expect(counted).toBeGreaterThanOrEqual(now.total - seen - 3);
      expect(counted).toBeLessThanOrEqual(now.total - seen + 30);
      expect(now.scrollTop).toBe(parked.scrollTop);
      expect(now.first).toBe(parked.first);
      await screenshot(page, "job-output-new-lines");

      // The button: to the end, following again.
      await page.getByTestId("output-new-lines").click();
      await page.getByTestId("output-new-lines").waitFor({ state: "detached" });
      const back = (await view(page)).total;
      await page.waitForFunction(
        (n) => Number(document.querySelector<HTMLElement>('[data-testid="job-output"]')?.dataset.lines) > n + 6,
        back,
        {
          timeout: 30_000,
        },
      );
      now = await view(page);
      await waitForLineInView(page, now.total);
      expect((await view(page)).fromBottom).toBeLessThanOrEqual(24);
      expect(await elementCount(page)).toBeLessThan(MAX_ELEMENTS);

      // Opened on a line of a live job: it stays there, and counts only what arrives after.
      await page.goto(`/jobs/${id}#L20`);
      await waitForLineInView(page, 20);
      const opened = (await view(page)).total;
      const button = page.getByTestId("output-new-lines");
      expect(await button.textContent()).toMatch(/^(Follow output ↓|[1-9]\d? new lines? ↓)$/);
      await page.waitForFunction(
        (n) => Number(document.querySelector<HTMLElement>('[data-testid="job-output"]')?.dataset.lines) > n + 6,
        opened,
        {
          timeout: 30_000,
        },
      );
      const arrived = Number(/^(\d+) new lines? ↓$/.exec((await button.textContent()) ?? "")?.[1]);
      expect(arrived).toBeGreaterThan(0);
      expect(arrived).toBeLessThan(100);
      await waitForLineInView(page, 20);
    } finally {
      await api.call("POST", `/api/jobs/${id}/abort`);
    }
  });
});
