/**
 * Run again in a real browser: a finished job's page opens its form with the job's values and
 * options, and what is launched from there is a job that says which one it repeats. Also the
 * first-use details a machine can check: the icon answers, and a form without fields has no
 * Reset and no "* required".
 */
import { randomBytes } from "node:crypto";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startPlayform, type RunningPlayform } from "../support/playform";
import { jobEnded, launchChromium, screenshot, signedInPage } from "./browser";

let app: RunningPlayform;
let browser: Browser;
let context: BrowserContext | undefined;

beforeAll(async () => {
  app = await startPlayform();
  browser = await launchChromium();
});

afterEach(async () => {
  await context?.close();
  context = undefined;
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function signedIn(): Promise<Page> {
  const opened = await signedInPage(browser, app);
  context = opened.context;
  return opened.page;
}

const jobIdOf = (page: Page) => Number(new URL(page.url()).pathname.split("/").pop());

describe("Run again", () => {
  it("opens the form with the job's values and options, and the new job repeats it", async () => {
    const page = await signedIn();
    await page.goto("/forms/hello-world");
    const text = `again-${randomBytes(4).toString("hex")}`;
    await page.getByLabel("Message").fill(text);
    await page.getByLabel(/Check mode/).check();
    await page.getByRole("button", { name: "Launch" }).click();
    await page.waitForURL((url) => /^\/jobs\/\d+$/.test(url.pathname));
    const firstId = jobIdOf(page);
    expect(await jobEnded(page)).toBe("success");
    // A job launched from a blank form repeats nothing.
    expect(await page.getByTestId("job-relaunch-of").count()).toBe(0);

    await page.getByTestId("run-again").click();
    await page.waitForURL((url) => url.pathname === "/forms/hello-world" && url.searchParams.get("from") === String(firstId));
    await page.getByTestId("relaunch-note").waitFor();
    expect(await page.getByLabel("Message").inputValue()).toBe(text);
    expect(await page.getByLabel(/Check mode/).isChecked()).toBe(true);
    await screenshot(page, "run-again-form");

    const answer = page.waitForResponse(
      (r) => new URL(r.url()).pathname === `/api/jobs/${firstId}/relaunch` && r.request().method() === "POST",
    );
    await page.getByRole("button", { name: "Launch" }).click();
    expect((await answer).status()).toBe(201);
    await page.waitForURL((url) => /^\/jobs\/\d+$/.test(url.pathname) && jobIdOf(page) !== firstId);
    const repeats = page.getByTestId("job-relaunch-of");
    await repeats.waitFor();
    expect(await repeats.textContent()).toBe(`Repeats job #${firstId}`);
    expect(await repeats.getByRole("link").getAttribute("href")).toBe(`/jobs/${firstId}`);
    expect(await jobEnded(page)).toBe("success");
    await screenshot(page, "run-again-job");
  });
});

describe("first use", () => {
  it("answers /favicon.ico and links an icon", async () => {
    const response = await fetch(`${app.url}/favicon.ico`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/image\//);
    // Next streams a page's metadata after its content (React moves the links into the head).
    const page = await signedIn();
    await page.locator('link[rel="icon"]').first().waitFor({ state: "attached" });
    expect(await page.locator('head link[rel="icon"]').count()).toBeGreaterThan(0);
  });

  it("shows no Reset and no '* required' on a form without fields", async () => {
    const page = await signedIn();
    await page.goto("/forms/vault-demo");
    await page.getByRole("button", { name: "Launch" }).waitFor();
    expect(await page.getByRole("button", { name: "Reset" }).count()).toBe(0);
    expect(await page.getByTestId("required-legend").count()).toBe(0);
    // A form with a required field keeps both.
    await page.goto("/forms/hello-world");
    await page.getByTestId("required-legend").waitFor();
    expect(await page.getByRole("button", { name: "Reset" }).count()).toBe(1);
  });
});
