/**
 * A running job's progress in a real browser: the first run of a form says it has nothing to
 * estimate from and shows the elapsed time; the next one, held at its third task, shows a bar
 * and "task 3 of about 6 · about … left" on its page and a small bar in the job list's row
 * (test/fixtures/forms-progress/timed-steps).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { launchChromium, logIn, newPage, screenshot } from "./browser";

const FORMS_DIR = path.resolve(import.meta.dirname, "../fixtures/forms-progress");

let app: RunningPlayform;
let browser: Browser;
let context: BrowserContext | undefined;
let releaseDir: string;

beforeAll(async () => {
  // The playbook reads or writes the test's release file in /tmp, which its private /tmp would hide.
  app = await startPlayform({ env: { RTE_PLAYBOOK_PRIVATE_TMP: "off", PLAYFORM_FORMS_DIR: FORMS_DIR } });
  browser = await launchChromium();
  releaseDir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-progress-e2e-"));
  fs.chmodSync(releaseDir, 0o755);
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.stop();
  if (releaseDir) fs.rmSync(releaseDir, { recursive: true, force: true });
});

it("shows a running job's progress on its page and in the job list", async () => {
  const api = apiClient(app, await adminToken(app));
  const opened = await newPage(browser, app.url);
  context = opened.context;
  const page = opened.page;
  await logIn(page, "admin", app.adminPassword);
  await page.waitForURL((url) => url.pathname === "/");

  const held = async (name: string) => {
    const file = path.join(releaseDir, name);
    const id = await api.launch("timed-steps", { step_seconds: 1, release_file: file });
    await page.goto(`/jobs/${id}`);
    return { id, release: () => fs.writeFileSync(file, "go\n") };
  };
  const text = page.getByTestId("job-progress-text");

  // The form's first run: nothing to estimate from.
  const first = await held("first");
  await expect
    .poll(() => text.textContent(), { timeout: 30_000 })
    .toMatch(/^no earlier run of this form to estimate from · \d+\.\d\d s elapsed$/);
  first.release();
  expect((await api.waitForEnd(first.id)).status).toBe("success");

  // The second, held at its third task: estimated from the first.
  const second = await held("second");
  await expect.poll(() => text.textContent(), { timeout: 30_000 }).toMatch(/^task 3 of about 6 · (about .+ left|almost done)$/);
  const bar = page.getByTestId("job-progress").getByRole("progressbar");
  const percent = Number(await bar.getAttribute("aria-valuenow"));
  expect(percent).toBeGreaterThan(0);
  expect(percent).toBeLessThan(100);
  await screenshot(page, "job-progress");

  // The job list: a small bar under the running job's status.
  await page.goto("/jobs");
  const cell = page.locator(`[data-testid="jobs-table"] tr[data-job-id="${second.id}"] [data-testid="job-row-progress"]`);
  await cell.waitFor({ timeout: 30_000 });
  expect(await cell.textContent()).toMatch(/^3\/~6 · /);
  await screenshot(page, "jobs-progress");

  second.release();
  expect((await api.waitForEnd(second.id)).status).toBe("success");
  // Ended, the row has no bar.
  await expect.poll(() => cell.count(), { timeout: 30_000 }).toBe(0);
});
