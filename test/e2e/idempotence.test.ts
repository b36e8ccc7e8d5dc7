/**
 * The form page's "Idempotence across the last N runs" in a real browser against the
 * production build: after one run it asks for a second complete run; after three, it lists the
 * always-changing task first ("in 3 of 3 runs", its host, first and last run linking to the
 * jobs), then the once-changing one, with the CSV and JSON export links.
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
  const ids = [await run()];
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
