/**
 * Preview on the form page, in a real browser against the production build: a required field
 * left empty is marked as for a launch, and nothing is asked of the server; then the plan (plays, host patterns, tasks) appears, a tag found is
 * chosen for the tags option with a click, and nothing ran. The forms: test/fixtures/forms-preview.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startPlayform, type RunningPlayform } from "../support/playform";
import { launchChromium, logIn, newPage, screenshot } from "./browser";

let app: RunningPlayform;
let browser: Browser;
let context: BrowserContext | undefined;
const marker = path.join(os.tmpdir(), `playform-preview-e2e-${randomBytes(6).toString("hex")}`);

beforeAll(async () => {
  // The marker is in the runner's /tmp, where the test looks for it: a playbook's private /tmp would hide it.
  app = await startPlayform({
    env: { RTE_PLAYBOOK_PRIVATE_TMP: "off", PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms-preview") },
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.stop();
  fs.rmSync(marker, { force: true });
});

it("previews the plan of the form as filled in, offers its tags, and runs nothing", async () => {
  const opened = await newPage(browser, app.url);
  context = opened.context;
  const { page } = opened;
  await logIn(page, "admin", app.adminPassword);
  await page.waitForURL((url) => url.pathname === "/");
  await page.goto("/forms/plan-probe");

  // The required marker left empty: the form's rules mark it, as for a launch, and no preview
  // is asked for (the page runs the API's rules, server/form-rules).
  const previews: string[] = [];
  page.on("request", (r) => {
    if (new URL(r.url()).pathname === "/api/forms/plan-probe/preview") previews.push(r.method());
  });
  await page.getByTestId("preview-button").click();
  expect(await page.getByTestId("field-error-marker").textContent()).toBe("is required");
  expect(previews).toEqual([]);

  await page.locator("#field-marker").fill(marker);
  await page.getByTestId("preview-button").click();
  const panel = page.getByTestId("preview-panel");
  await panel.waitFor();
  await page.getByTestId("preview-play").nth(1).waitFor({ timeout: 60_000 });
  const text = await panel.textContent();
  expect(text).toContain("Write the marker");
  expect(text).toContain("all:!nothing");
  expect(text).toContain("Write the marker file");
  expect(text).toContain("Greet again");

  // The tags found are choices for "Only tasks tagged".
  await panel.getByRole("button", { name: "write", exact: true }).click();
  expect(await page.getByLabel("Only tasks tagged").inputValue()).toBe("write");
  expect(await panel.getByRole("button", { name: "write", exact: true }).getAttribute("aria-pressed")).toBe("true");
  await screenshot(page, "preview");

  // Previewing again with that tag lists only the tagged task.
  await page.getByTestId("preview-button").click();
  await page.waitForFunction(() => document.querySelectorAll("[data-testid=preview-play] li").length === 1, null, { timeout: 60_000 });
  expect(fs.existsSync(marker), "a preview wrote the marker: the playbook ran").toBe(false);
});

it("says that task names are shown as written when they hold {{ }}", async () => {
  // Before the fix: "Show {{ item }}" was listed without a word about it.
  const opened = await newPage(browser, app.url);
  await context?.close();
  context = opened.context;
  const { page } = opened;
  await logIn(page, "admin", app.adminPassword);
  await page.waitForURL((url) => url.pathname === "/");
  await page.goto("/forms/templated-names");
  await page.getByTestId("preview-button").click();
  await page.getByTestId("preview-play").waitFor({ timeout: 60_000 });
  expect(await page.getByTestId("preview-play").textContent()).toContain("Show {{ item }}");
  expect(await page.getByTestId("preview-templated-note").textContent()).toContain("filled in when the job runs");

  // A plan without Jinja in its names says nothing of it.
  await page.goto("/forms/plan-probe");
  await page.locator("#field-marker").fill(marker);
  await page.getByTestId("preview-button").click();
  await page.getByTestId("preview-play").nth(1).waitFor({ timeout: 60_000 });
  expect(await page.getByTestId("preview-templated-note").count()).toBe(0);
});

it("shows Ansible's error for a playbook that does not parse", async () => {
  const opened = await newPage(browser, app.url);
  await context?.close();
  context = opened.context;
  const { page } = opened;
  await logIn(page, "admin", app.adminPassword);
  await page.waitForURL((url) => url.pathname === "/");
  await page.goto("/forms/broken");
  await page.getByTestId("preview-button").click();
  const error = page.getByTestId("preview-error");
  await error.waitFor({ timeout: 60_000 });
  expect(await error.textContent()).toMatch(/Syntax Error while loading YAML/);
});
