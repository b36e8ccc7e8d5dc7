/**
 * An aborted run's analytics in a real browser (not "no host ran a task"): the job is aborted from its
 * page while its last task waits; the page then says the run is incomplete, shows the host rows
 * it did get as a partial PLAY RECAP, and gives no idempotence verdict against the previous
 * complete run. The form is test/fixtures/forms-incomplete/interrupt-me (as in the integration
 * test recap-incomplete.test.ts).
 */
import path from "node:path";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { jobEnded, launchChromium, screenshot, signedInPage } from "./browser";

const FORMS = path.resolve(import.meta.dirname, "../fixtures/forms-incomplete");

let app: RunningPlayform;
let api: ApiClient;
let browser: Browser;
let context: BrowserContext | undefined;

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: FORMS } });
  api = apiClient(app, await adminToken(app));
  browser = await launchChromium();
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.stop();
});

it("aborted from its page: says the run is incomplete, shows what it did get, and judges no idempotence", async () => {
  const complete = await api.launch("interrupt-me", { hold: false });
  expect((await api.waitForEnd(complete)).status).toBe("success");
  const held = await api.launch("interrupt-me", { hold: true });

  const opened = await signedInPage(browser, app);
  context = opened.context;
  const { page } = opened;
  await page.goto(`/jobs/${held}`);
  const output = page.getByTestId("job-output");
  await expect.poll(() => output.textContent(), { timeout: 60_000 }).toContain("Hold until aborted");

  await page.getByRole("button", { name: "Abort", exact: true }).click();
  await page.getByRole("button", { name: "Yes, abort" }).click();
  expect(await jobEnded(page)).toBe("aborted");

  const incomplete = page.getByTestId("recap-incomplete");
  await incomplete.waitFor({ timeout: 30_000 });
  expect(await incomplete.textContent()).toContain("Incomplete run");
  // What it did get: the host's results so far, not "no host ran a task".
  const partial = page.getByTestId("recap-partial-hosts");
  await partial.waitFor();
  expect(await partial.textContent()).toContain("localhost");
  expect(await page.getByText("No task result before it stopped.").count()).toBe(0);

  const verdict = page.getByTestId("changed-again");
  await verdict.waitFor({ timeout: 30_000 });
  expect(await verdict.getAttribute("data-judgeable")).toBe("false");
  expect(await verdict.textContent()).toContain("Cannot judge idempotence");
  expect(await page.getByText("Nothing changed again").count()).toBe(0);
  // Its host is compared by the results it printed so far, said so, not "not in this run".
  await page.getByTestId("comparison-hosts-partial").waitFor();
  expect(await page.getByTestId("comparison-hosts").textContent()).not.toContain("not in this run");
  // Its elapsed so far is measured from its events, as precise as the timeline's ("2.57 s", not "2–3 s").
  // The events' figure comes with the timeline, which may load after the recap: until then the
  // page shows the recap's whole seconds ("6–7 s"), as a clean-clone run saw.
  await expect.poll(() => page.getByTestId("recap-elapsed").textContent(), { timeout: 30_000 }).toMatch(/^\d+\.\d{2} s$/);
  await screenshot(page, "aborted-run");
});
