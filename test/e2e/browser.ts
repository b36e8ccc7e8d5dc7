/**
 * Chromium for the browser tests: the distribution's binary (no download), headless, with
 * everything that phones home switched off so a test run never waits on the network.
 */
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

export const SCREENSHOT_DIR = path.join(import.meta.dirname, "screenshots");

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
  });
}

export async function newPage(browser: Browser, baseURL: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL, viewport: { width: 1440, height: 960 }, locale: "en-GB", timezoneId: "UTC" });
  const page = await context.newPage();
  return { context, page };
}

export async function logIn(page: Page, username: string, password: string): Promise<void> {
  await page.goto("/login");
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

export function screenshot(page: Page, name: string): Promise<Buffer> {
  return page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/**
 * A page of a new context signed in (as the admin unless told), on the catalog. Close the
 * context after the test.
 */
export async function signedInPage(
  browser: Browser,
  app: { url: string; adminPassword: string },
  user: { username: string; password: string } = { username: "admin", password: app.adminPassword },
): Promise<{ context: BrowserContext; page: Page }> {
  const opened = await newPage(browser, app.url);
  await logIn(opened.page, user.username, user.password);
  await opened.page.waitForURL((url) => url.pathname === "/");
  return opened;
}

const ENDED = ["success", "failed", "aborted", "abandoned"];

/** Waits until the job shown on the page has ended; answers its status. */
export async function jobEnded(page: Page, timeoutMs = 90_000): Promise<string> {
  const status = await page.waitForFunction(
    (ended) => {
      const value = document.querySelector<HTMLElement>('[data-testid="job-status"]')?.dataset.status;
      return value && ended.includes(value) ? value : false;
    },
    ENDED,
    { timeout: timeoutMs },
  );
  return (await status.jsonValue()) as string;
}
