/**
 * The task timeline on the job page in a real browser: after a hello-world run, one row per
 * task on a time axis, coloured by host status, below the run analytics.
 */
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { apiClient } from "../support/api";
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

it("shows the timeline of a finished hello-world run with one row per task", async () => {
  const api = apiClient(app, await adminToken(app));
  const job = await api.waitForEnd(await api.launch("hello-world", { message: "timeline e2e" }));
  expect(job.status).toBe("success");

  const opened = await newPage(browser, app.url);
  context = opened.context;
  const page = opened.page;
  await logIn(page, "admin", app.adminPassword);
  await page.waitForURL((url) => url.pathname === "/");
  await page.goto(`/jobs/${job.id}`);

  const timeline = page.getByTestId("job-timeline");
  await timeline.waitFor({ timeout: 30_000 });
  const rows = timeline.getByTestId("timeline-task");
  expect(await rows.count()).toBe(4);
  expect(await rows.nth(0).textContent()).toContain("Print the message");
  expect(await rows.nth(2).getAttribute("data-status")).toBe("changed");
  expect(await rows.nth(1).getAttribute("title")).toMatch(/localhost: ok at \d+\.\d\d s/);
  expect(await timeline.getByTestId("timeline-play").count()).toBe(1);

  // Below the run analytics, as a panel of its own.
  const analytics = await page.getByTestId("recap-analytics").boundingBox();
  const box = await timeline.boundingBox();
  expect(analytics && box && box.y > analytics.y + analytics.height).toBe(true);

  // The breath task's bar is the widest: the axis is to scale.
  const widths = await rows.evaluateAll((els) =>
    els.map((el) => el.querySelector('[data-testid="timeline-bar"]')!.getBoundingClientRect().width),
  );
  expect(Math.max(...widths)).toBe(widths[1]);

  await screenshot(page, "job-timeline");
});
