/**
 * The Hosts pages (issue 22 section 4) in a real browser against the production build: two runs
 * of a form on web1 and db1; the list (from the main menu) shows both hosts with their newest
 * run, the search keeps the one that matches, and web1's page lists its runs newest first, each
 * with the task that changed it linking to its banner in the job's output.
 */
import path from "node:path";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { waitFor } from "../support/wait";
import { launchChromium, logIn, newPage, screenshot } from "./browser";

let app: RunningPlayform;
let api: ApiClient;
let browser: Browser;
let context: BrowserContext | undefined;
const runs: number[] = [];

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms-hosts") } });
  api = apiClient(app, await adminToken(app));
  browser = await launchChromium();
  for (let i = 0; i < 2; i++) {
    const job = await api.waitForEnd(await api.launch("two-hosts"));
    expect(job.status).toBe("success");
    runs.push(job.id);
  }
  await waitFor("both runs among web1's", async () => ((await api.get("/api/hosts/web1")).runs.length === 2 ? true : null));
}, 240_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.stop();
});

it("lists the hosts with their newest run, searches them, and shows a host's runs with the tasks that changed it", async () => {
  const opened = await newPage(browser, app.url);
  context = opened.context;
  const page = opened.page;
  await logIn(page, "admin", app.adminPassword);
  await page.waitForURL((url) => url.pathname === "/");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Hosts" }).click();
  await page.waitForURL((url) => url.pathname === "/hosts");

  const rows = page.getByTestId("host-row");
  await rows.first().waitFor();
  expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-host")))).toEqual(["db1", "web1"]);
  const web1 = page.locator('[data-testid="host-row"][data-host="web1"]');
  expect(await web1.getByRole("link", { name: `#${runs[1]}` }).getAttribute("href")).toBe(`/jobs/${runs[1]}`);
  expect(await web1.locator('[data-counter="changed"]').textContent()).toBe("changed 1");
  await screenshot(page, "hosts");

  await page.getByTestId("hosts-search").fill("WEB");
  await page.waitForURL((url) => url.searchParams.get("q") === "WEB");
  await waitFor("the search to leave web1 alone", async () => ((await rows.count()) === 1 ? true : null));
  expect(await rows.first().getAttribute("data-host")).toBe("web1");
  await page.getByTestId("hosts-search").fill("nothing-like-it");
  await page.getByText('No host matches "nothing-like-it"').waitFor();
  await page.getByTestId("hosts-search").fill("web");

  await page.getByRole("link", { name: "web1" }).click();
  await page.waitForURL((url) => url.pathname === "/hosts/web1");
  const hostRuns = page.getByTestId("host-run");
  await hostRuns.first().waitFor();
  expect(await hostRuns.evaluateAll((items) => items.map((item) => Number(item.getAttribute("data-job"))))).toEqual([runs[1], runs[0]]);
  expect(await hostRuns.first().textContent()).toContain("full run");
  const task = hostRuns.first().getByTestId("host-run-task");
  expect(await task.textContent()).toBe("Touch web only");
  await screenshot(page, "host");

  // The task opens the job's output at its banner.
  await task.click();
  await page.waitForURL((url) => url.pathname === `/jobs/${runs[1]}` && /^#L\d+$/.test(url.hash));
  const line = Number(new URL(page.url()).hash.slice(2));
  await page.locator(`[data-line="${line}"]`, { hasText: "TASK [Touch web only]" }).first().waitFor();
});

it("shows a host nobody may see as not found", async () => {
  const page = context!.pages()[0]!;
  await page.goto("/hosts/no-such-host");
  await page.locator('[role="alert"]', { hasText: 'no host named "no-such-host"' }).waitFor();
});
