/**
 * The form page's "Idempotence across the last N runs" in a real browser against the
 * production build: after one run it asks for a second complete run; after three, it lists the
 * always-changing task first ("in 3 of 3 runs", its host, first and last run linking to the
 * jobs), then the once-changing one, with the CSV and JSON export links. Then the report across
 * runs (issue 22 section 2): runs picked in the runs panel, side by side on the report page,
 * and its Markdown downloaded.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { launchChromium, logIn, newPage, screenshot } from "./browser";

const ROOT = path.resolve(import.meta.dirname, "../..");
const FORM = "idempotence-mix";

let app: RunningPlayform;
let api: ApiClient;
let browser: Browser;
let context: BrowserContext | undefined;
let stateDir: string;
/** The three runs of the first test, oldest first. */
let ids: number[] = [];

beforeAll(async () => {
  // The playbook reads or writes the test's state folder in /tmp, which its private /tmp would hide.
  app = await startPlayform({
    env: { RTE_PLAYBOOK_PRIVATE_TMP: "off", PLAYFORM_FORMS_DIR: path.join(ROOT, "test/fixtures/forms-idempotence") },
  });
  api = apiClient(app, await adminToken(app));
  browser = await launchChromium();
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-idempotence-"));
  fs.chmodSync(stateDir, 0o777); // the playbook's user (not the test's) writes into it
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.stop();
  if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true });
});

async function run(): Promise<number> {
  const job = await api.waitForEnd(await api.launch(FORM, { state_dir: stateDir }));
  expect(job.status).toBe("success");
  return job.id as number;
}

it("lists the tasks that keep changing, worst first, once there are two complete runs", async () => {
  ids = [await run()];
  const opened = await newPage(browser, app.url);
  context = opened.context;
  const page = opened.page;
  await logIn(page, "admin", app.adminPassword);
  await page.waitForURL((url) => url.pathname === "/");

  await page.goto(`/forms/${FORM}`);
  const panel = page.getByTestId("form-idempotence");
  await panel.getByTestId("idempotence-needs-runs").waitFor();
  expect(await panel.getByTestId("idempotence-needs-runs").textContent()).toContain("Needs two complete runs");

  ids.push(await run(), await run());
  await page.reload();
  const rows = panel.locator('[data-testid="idempotence-table"] tbody tr');
  await rows.first().waitFor();
  expect(await panel.locator("h2").textContent()).toBe("Idempotence across the last 3 runs");
  expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-task")))).toEqual([
    'Always changes, "every time"',
    "Changes only the first time",
  ]);
  const always = rows.nth(0);
  expect(await always.textContent()).toContain("in 3 of 3 runs");
  expect(await always.locator("[data-host]").getAttribute("data-host")).toBe("localhost");
  expect(await always.getByTestId("idempotence-first").getAttribute("href")).toBe(`/jobs/${ids[0]}`);
  expect(await always.getByTestId("idempotence-last").getAttribute("href")).toBe(`/jobs/${ids[2]}`);
  expect(await rows.nth(1).textContent()).toContain("in 1 of 3 runs");
  expect(await panel.getByRole("link", { name: "Export CSV" }).getAttribute("href")).toBe(
    `/api/forms/${FORM}/idempotence?last=20&format=csv`,
  );
  expect(await panel.getByRole("link", { name: "Export JSON" }).getAttribute("href")).toBe(
    `/api/forms/${FORM}/idempotence?last=20&format=json`,
  );
  await screenshot(page, "form-idempotence");
});

it("picks runs in the runs panel and shows them side by side, with the Markdown to download", async () => {
  const page = context!.pages()[0]!;
  await page.goto(`/forms/${FORM}`);
  const runs = page.getByTestId("form-trend");
  await runs.getByRole("button", { name: "Report…" }).click();
  const picker = runs.getByTestId("report-picker");
  expect(await picker.textContent()).toContain("Pick 2 to 20 finished runs");
  const report = picker.getByRole("button", { name: "Report" });
  expect(await report.isDisabled()).toBe(true);
  // Picked newest first; the report lists them oldest first.
  await runs.getByRole("checkbox", { name: `Pick run #${ids[2]}` }).check();
  expect(await picker.textContent()).toContain("1 picked: pick at least 2");
  await runs.getByRole("checkbox", { name: `Pick run #${ids[0]}` }).check();
  await picker.getByRole("link", { name: "Report" }).click();
  await page.waitForURL((url) => url.pathname === `/forms/${FORM}/report` && url.searchParams.get("jobs") === `${ids[0]},${ids[2]}`);

  const tasks = page.getByTestId("report-tasks");
  const always = tasks.locator('tr[data-task="Always changes, \\"every time\\""]');
  await always.waitFor();
  expect(await page.locator("h1").textContent()).toBe("Report over 2 runs");
  expect(await always.locator("td[data-cell]").evaluateAll((cells) => cells.map((c) => c.getAttribute("data-cell")))).toEqual([
    "changed",
    "changed",
  ]);
  const once = tasks.locator('tr[data-task="Changes only the first time"]');
  expect(await once.locator("td[data-cell]").evaluateAll((cells) => cells.map((c) => c.getAttribute("data-cell")))).toEqual([
    "changed",
    "ok",
  ]);
  // Only what changed somewhere: both stay, a task that never changed goes.
  const before = await tasks.locator("tbody tr").count();
  await tasks.getByRole("checkbox", { name: "Only tasks that changed in some run" }).check();
  const after = await tasks.locator("tbody tr").count();
  expect(after).toBe(2);
  expect(before).toBeGreaterThan(after);
  expect(await page.getByTestId("report-hosts").locator('tr[data-host="localhost"] td[data-cell="host"]').count()).toBe(2);
  expect(await page.getByTestId("report-runs").textContent()).toContain("full run");

  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Markdown" }).click()]);
  expect(download.suggestedFilename()).toBe(`${FORM}-report-${ids[0]}-${ids[2]}.md`);
  const markdown = fs.readFileSync((await download.path())!, "utf8");
  expect(markdown).toContain(`| Run | #${ids[0]} | #${ids[2]} |`);
  expect(markdown).toMatch(/\| Changes only the first time \| \*\*changed\*\* [\d.]+ s \| ok [\d.]+ s \|/);
  await screenshot(page, "form-report");

  // A list the API refuses is shown with its reason.
  await page.goto(`/forms/${FORM}/report?jobs=${ids[0]}`);
  await page.locator('[role="alert"]', { hasText: "jobs: give 2 to 20 jobs, not 1" }).waitFor();
});
