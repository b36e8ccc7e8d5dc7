/**
 * Takes the README's screenshot, docs/images/job-page.png: a finished job of the example form
 * "System report" on its job page (output and recap), 1280x900, in the headless Chromium the
 * browser tests use. Run it after `npm run build`: `npx tsx scripts/screenshot.ts`.
 * It starts the production bundle as the tests do (a fresh SQLite database in the temp folder,
 * its local RTE) and stops it afterwards. SCREENSHOT_FULL_PAGE=FILE also writes the whole page
 * there, to check what the viewport leaves out.
 */
import path from "node:path";
import { launchChromium, logIn, jobEnded } from "../test/e2e/browser";
import { startPlayform } from "../test/support/playform";

const OUT = path.resolve(import.meta.dirname, "../docs/images/job-page.png");
/** Pixels of the recap (its title and first rows) at the bottom of the 900-pixel viewport. */
const SHOWN_OF_RECAP = 230;

const app = await startPlayform();
const browser = await launchChromium();
try {
  const basic = Buffer.from(`admin:${app.adminPassword}`).toString("base64");
  const tokenAnswer = await fetch(`${app.url}/api/auth/token`, { method: "POST", headers: { authorization: `Basic ${basic}` } });
  if (!tokenAnswer.ok) throw new Error(`POST /api/auth/token: ${tokenAnswer.status} ${await tokenAnswer.text()}`);
  const { token } = (await tokenAnswer.json()) as { token: string };
  const launched = await fetch(`${app.url}/api/jobs`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ form: "system-report", values: { detail: "short", repeat: 1 } }),
  });
  if (launched.status !== 201) throw new Error(`POST /api/jobs: ${launched.status} ${await launched.text()}`);
  const { id } = (await launched.json()) as { id: number };

  const context = await browser.newContext({
    baseURL: app.url,
    viewport: { width: 1280, height: 900 },
    locale: "en-GB",
    timezoneId: "UTC",
  });
  const page = await context.newPage();
  await logIn(page, "admin", app.adminPassword);
  await page.waitForURL((url) => url.pathname === "/");
  await page.goto(`/jobs/${id}`);
  const status = await jobEnded(page, 180_000);
  // The recap is read once the job has ended; wait until nothing more is being fetched.
  const recapTitle = page.getByText("Play recap", { exact: true });
  await recapTitle.waitFor();
  // The recap may be written a moment after the final status: wait until it and the
  // comparison with the previous run are shown, not their spinners.
  await page.getByText("Reading the recap…").waitFor({ state: "hidden", timeout: 60_000 });
  await page.getByText("Comparing with the previous run…").waitFor({ state: "hidden", timeout: 60_000 });
  await page.waitForLoadState("networkidle");
  // The viewport holds the job's header or its recap, not both: scroll so that the recap's
  // first rows show under the output (the job's name and status scroll out of sight).
  const top = await recapTitle.evaluate((element) => element.getBoundingClientRect().top + window.scrollY);
  await page.evaluate((y) => window.scrollTo(0, y), Math.max(0, top - (900 - SHOWN_OF_RECAP)));
  if (process.env.SCREENSHOT_FULL_PAGE) await page.screenshot({ path: process.env.SCREENSHOT_FULL_PAGE, fullPage: true });
  await page.screenshot({ path: OUT });
  console.log(`job ${id} ended ${status}; wrote ${OUT}`);
  await context.close();
} finally {
  await browser.close();
  await app.stop();
}
