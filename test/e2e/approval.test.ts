/**
 * A form that requires approval, in a real browser: the job page says the job waits and shows
 * what will run (frozen at launch), an admin approves it there, and the page follows it to
 * success, still showing what it ran.
 */
import path from "node:path";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startPlayform, type RunningPlayform } from "../support/playform";
import { launchChromium, logIn, newPage, screenshot } from "./browser";

let app: RunningPlayform;
let browser: Browser;
let context: BrowserContext | undefined;

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms") } });
  browser = await launchChromium();
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.stop();
});

it("shows a job waiting for approval and runs it once an admin approves it", async () => {
  const opened = await newPage(browser, app.url);
  context = opened.context;
  const page = opened.page;
  await logIn(page, "admin", app.adminPassword);
  await page.waitForURL((url) => !url.pathname.startsWith("/login"));
  await page.goto("/forms/needs-approval");
  await page.getByLabel(/reason/i).fill("quarterly patching");
  await page.getByRole("button", { name: "Launch" }).click();
  await page.waitForURL(/\/jobs\/\d+$/);

  const status = page.getByTestId("job-status");
  await expect.poll(() => status.textContent()).toMatch(/approval/i);
  await page.getByTestId("approval-panel").waitFor();
  // What the approver approves: the plan frozen at launch.
  const panel = page.getByTestId("approval-panel");
  expect(await panel.getByTestId("plan-playbook").textContent()).toBe("playbook.yml");
  expect(await panel.getByTestId("plan-inventories").textContent()).toBe("inventory.ini");
  expect(await panel.getByTestId("plan-options").textContent()).toBe("none");
  expect(await panel.getByTestId("plan-files").textContent()).toMatch(/^content [0-9a-f]{12}$/);
  expect(await panel.getByTestId("plan-runner").textContent()).toBe("local");
  await screenshot(page, "job-approval");

  await page.getByTestId("approval-comment").fill("within the window");
  await page.getByTestId("approve-job").click();
  await expect.poll(() => status.textContent(), { timeout: 60_000 }).toMatch(/success/i);
  expect(await page.getByTestId("approval-panel").count()).toBe(0);
  expect(await page.getByTestId("job-plan").getByTestId("plan-playbook").textContent()).toBe("playbook.yml");
  await expect.poll(() => page.getByTestId("job-output").textContent()).toContain("approved change: quarterly patching");
});
