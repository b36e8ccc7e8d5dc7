/**
 * Drift watch (issue 22 §5) in a real browser against the production build: on the form page a
 * user schedules the form with "Drift check" ticked; its check finds web1's file edited by hand;
 * the Schedules page and the job list label the schedule and its check; the Hosts page marks web1
 * (and not db1) drifted, and web1's page shows the task with its diff lines.
 */
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { managedFiles, MANAGED_FORM, MANAGED_TASK, type ManagedFiles } from "../support/drift-form";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { waitFor } from "../support/wait";
import { launchChromium, logIn, newPage, screenshot } from "./browser";

let app: RunningPlayform;
let api: ApiClient;
let browser: Browser;
let context: BrowserContext | undefined;
let files: ManagedFiles;

beforeAll(async () => {
  files = managedFiles();
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: files.formsDir } });
  api = apiClient(app, await adminToken(app));
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.stop();
  files?.remove();
});

it("schedules drift checks from the form page, and shows the drifted host with the task and its diff lines", async () => {
  files.write("web1", "edited by hand\n");
  const opened = await newPage(browser, app.url);
  context = opened.context;
  const page = opened.page;
  await logIn(page, "admin", app.adminPassword);
  await page.waitForURL((url) => url.pathname === "/");
  await page.goto(`${app.url}/forms/${MANAGED_FORM}`);
  await page.getByLabel("Folder").fill(files.managed);
  await page.getByTestId("schedule-button").click();
  await page.getByTestId("schedule-cron-input").fill("*/2 * * * * *");
  await page.getByTestId("schedule-drift-input").check();
  await page.getByTestId("schedule-save").click();
  await page.getByText(/Saved as schedule #\d+/).waitFor();

  // One check is enough: pause the schedule once it launched one.
  const { schedules } = await api.get("/api/schedules");
  const schedule = (schedules as { id: number; mode: string }[])[0]!;
  expect(schedule.mode).toBe("drift");
  const check = await waitFor(
    "the first drift check",
    async () => (await api.get(`/api/jobs?form=${MANAGED_FORM}&limit=1`)).jobs[0]?.id as number,
  );
  expect((await api.call("PATCH", `/api/schedules/${schedule.id}`, { json: { enabled: false } })).status).toBe(200);
  const ended = await api.waitForEnd(check, 90_000);
  expect(ended.status).toBe("success");
  await waitFor("web1's drift", async () => ((await api.get("/api/hosts/web1")).host.drift ? true : null));

  await page.goto(`${app.url}/schedules`);
  await page.getByTestId("schedule-drift").waitFor();
  await page.goto(`${app.url}/jobs`);
  const label = page.getByTestId("job-drift");
  await label.first().waitFor();
  expect(await label.first().textContent()).toBe("drift check");

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Hosts" }).click();
  await page.waitForURL((url) => url.pathname === "/hosts");
  const web1 = page.locator('[data-testid="host-row"][data-host="web1"]');
  await web1.getByTestId("host-drifted").waitFor();
  expect(await page.locator('[data-testid="host-row"][data-host="db1"]').getByTestId("host-drifted").count()).toBe(0);
  await screenshot(page, "hosts-drift");

  await web1.getByRole("link", { name: "web1" }).click();
  await page.waitForURL((url) => url.pathname === "/hosts/web1");
  const panel = page.getByTestId("host-drift");
  await panel.waitFor();
  expect(await panel.getByRole("heading").textContent()).toMatch(/^Drifted since /);
  expect(await panel.getByRole("link", { name: `#${check}` }).getAttribute("href")).toBe(`/jobs/${check}`);
  const task = panel.getByTestId("host-drift-task");
  expect(await task.count()).toBe(1);
  expect(await task.locator("p").first().textContent()).toBe(MANAGED_TASK);
  await task.getByText("-edited by hand").waitFor();
  await task.getByText("+managed by playform").waitFor();
  await screenshot(page, "host-drift");
  // The check changed nothing.
  expect(files.read("web1")).toBe("edited by hand\n");
});
