/**
 * Schedules in a real browser: "Schedule…" on the form page saves the draft with a seconds-level
 * cron; the Schedules page lists it with its next runs and last job, whose page says it was
 * launched by the schedule; edit its cron and time zone, pause and delete from the list.
 */
import fs from "node:fs";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startPlayform, type RunningPlayform } from "../support/playform";
import { writeScheduleForms } from "../support/schedule-forms";
import { launchChromium, logIn, newPage, screenshot } from "./browser";

let app: RunningPlayform;
let browser: Browser;
let context: BrowserContext | undefined;
let formsDir: string;

beforeAll(async () => {
  formsDir = writeScheduleForms();
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: formsDir } });
  browser = await launchChromium();
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.stop();
  if (formsDir) fs.rmSync(formsDir, { recursive: true, force: true });
});

it("schedules a form from its page, lists it, links its job, pauses and deletes it", async () => {
  const opened = await newPage(browser, app.url);
  context = opened.context;
  const page = opened.page;
  await logIn(page, "admin", app.adminPassword);
  await page.waitForURL((url) => !url.pathname.startsWith("/login"));
  await page.goto("/forms/sched-sleep");

  await page.getByTestId("schedule-button").click();
  await page.getByTestId("schedule-cron-input").fill("61 * * * *");
  await page.getByLabel("Time zone").fill("UTC");
  await page.getByTestId("schedule-save").click();
  await expect.poll(() => page.getByText("Invalid value for minute: 61").count()).toBeGreaterThan(0);
  await page.getByTestId("schedule-cron-input").fill("*/2 * * * * *");
  await page.getByTestId("schedule-save").click();
  await page.getByText(/Saved as schedule #\d+/).waitFor();
  const id = Number(/#(\d+)/.exec((await page.getByText(/Saved as schedule #\d+/).textContent())!)![1]);

  await page.goto("/schedules");
  const row = page.getByTestId(`schedule-${id}`);
  await row.getByTestId("schedule-next-runs").waitFor();
  expect(await row.getByTestId("schedule-cron").textContent()).toBe("*/2 * * * * *");
  await expect
    .poll(
      async () => {
        await page.reload();
        return row.getByTestId("schedule-last-job").count();
      },
      { timeout: 20_000, interval: 1000 },
    )
    .toBe(1);
  await screenshot(page, "schedules");
  await row.getByTestId("schedule-toggle").click();
  await expect.poll(() => row.getByTestId("schedule-toggle").textContent()).toBe("Enable");

  await row.getByTestId("schedule-last-job").click();
  await page.getByTestId("job-launched-by").waitFor();
  expect(await page.getByTestId("job-launched-by").textContent()).toBe(`Launched by schedule #${id}`);

  await page.goto("/schedules");
  // Edit when it runs: a bad cron is marked on its field and nothing changes; a good one is saved.
  await page.getByTestId(`schedule-${id}`).getByTestId("schedule-edit").click();
  const dialog = page.getByTestId("schedule-dialog");
  await dialog.getByTestId("schedule-cron-input").fill("0 25 * * *");
  await dialog.getByTestId("schedule-save").click();
  // The message once, under its field; not again below the fields.
  await expect.poll(() => dialog.getByTestId("schedule-cron-input").getAttribute("aria-invalid")).toBe("true");
  expect(await dialog.getByTestId("schedule-error").count()).toBe(0);
  await dialog.getByTestId("schedule-cron-input").fill("30 5 * * 1-5");
  await dialog.getByTestId("schedule-timezone-input").fill("Europe/Paris");
  await dialog.getByTestId("schedule-save").click();
  await dialog.waitFor({ state: "detached" });
  const edited = page.getByTestId(`schedule-${id}`);
  await expect.poll(() => edited.getByTestId("schedule-cron").textContent()).toBe("30 5 * * 1-5");
  expect(await edited.textContent()).toContain("Europe/Paris");

  await page.getByTestId(`schedule-${id}`).getByTestId("schedule-delete").click();
  await page.getByTestId(`schedule-${id}`).getByRole("button", { name: "Delete", exact: true }).click();
  await page.getByText("No schedules yet").waitFor();
}, 90_000);
