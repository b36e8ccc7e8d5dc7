/**
 * What a new user hit on the job page, in a real browser against the
 * production build: a running job's page reloads without a hydration error; a playbook that
 * fails before its first task says so and shows Ansible's error, without asking for a timeline
 * it cannot have; an aborted loop's partial recap counts its item results; long values are
 * folded, a table value is a table and a file value is the file's name. The forms are in
 * test/fixtures/forms-jobpage (and forms-incomplete/loop-me for the aborted loop).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { waitFor } from "../support/wait";
import { jobEnded, launchChromium, screenshot, signedInPage } from "./browser";

const FORMS = path.resolve(import.meta.dirname, "../fixtures/forms-jobpage");
/** A test that runs a job: on a loaded machine one short task took 28 s. */
const JOB_TEST_MS = 600_000;

let app: RunningPlayform;
let api: ApiClient;
let browser: Browser;
let context: BrowserContext | undefined;

beforeAll(async () => {
  // The aborted loop's form lives with the other incomplete-run forms: copy both folders into one.
  const forms = fs.mkdtempSync(path.join(os.tmpdir(), "playform-jobpage-forms-"));
  fs.cpSync(FORMS, forms, { recursive: true });
  fs.cpSync(path.resolve(import.meta.dirname, "../fixtures/forms-incomplete/loop-me"), path.join(forms, "loop-me"), { recursive: true });
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: forms } });
  api = apiClient(app, await adminToken(app));
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.stop();
});

async function openPage(): Promise<Page> {
  await context?.close();
  const opened = await signedInPage(browser, app);
  context = opened.context;
  return opened.page;
}

/** Console errors, uncaught page errors and answers >= 400 seen by `page` from now on. */
function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("response", (response) => {
    if (response.status() >= 400) problems.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  return problems;
}

describe("a running job's page (item 14)", () => {
  it(
    "reloads without a hydration error or any console error",
    async () => {
      const id = await api.launch("slow-steps");
      try {
        await reloadRunning(id);
      } finally {
        // The runner is free for the next tests, whatever happened here.
        await api.call("POST", `/api/jobs/${id}/abort`);
        await api.waitForEnd(id, 240_000);
      }
    },
    JOB_TEST_MS,
  );

  async function reloadRunning(id: number): Promise<void> {
    await waitFor(`job ${id} to run its loop`, async () => /\(item=2\)/.test(await api.output(id)), { timeoutMs: 240_000 });
    const page = await openPage();
    await page.goto(`/jobs/${id}`);
    await page.getByTestId("job-duration").waitFor();
    const problems = watchProblems(page);
    await page.reload();
    const status = page.getByTestId("job-status");
    await status.waitFor();
    expect(await status.getAttribute("data-status")).toBe("running");
    // Hydrated: the duration of the running job counts up in the browser.
    const duration = page.getByTestId("job-duration");
    const first = await duration.textContent();
    await expect.poll(() => duration.textContent(), { timeout: 15_000 }).not.toBe(first);
    await page.getByTestId("job-output").getByText("(item=", { exact: false }).first().waitFor({ timeout: 30_000 });
    expect(problems).toEqual([]);
  }
});

describe("a playbook with a syntax error (item 15)", () => {
  it(
    "says the playbook failed before its first task, shows Ansible's error, and asks for nothing that is not there",
    async () => {
      const id = await api.launch("syntax-error");
      const job = await api.waitForEnd(id, 240_000);
      expect(job.status).toBe("failed");
      const page = await openPage();
      const problems = watchProblems(page);
      let timelineAsked = 0;
      page.on("request", (request) => {
        if (new URL(request.url()).pathname === `/api/jobs/${id}/timeline`) timelineAsked++;
      });
      await page.goto(`/jobs/${id}`);
      expect(await jobEnded(page)).toBe("failed");
      const before = page.getByTestId("job-failed-before-tasks");
      await before.waitFor({ timeout: 30_000 });
      expect(await before.textContent()).toContain("The playbook failed before its first task");
      // Ansible's own error lines (stderr), as printed.
      const error = page.getByTestId("job-failed-before-tasks-error");
      await expect.poll(() => error.textContent(), { timeout: 30_000 }).toContain("ERROR!");
      expect(await error.textContent()).toContain("Syntax Error while loading YAML");
      expect(await page.getByTestId("output-task-jump").textContent()).not.toContain("No tasks yet");
      // Whatever else the page reads is read by now (the recap panel is its last panel to settle).
      await page.getByText("Reading the recap…").waitFor({ state: "detached", timeout: 30_000 });
      await page.waitForLoadState("networkidle");
      expect(timelineAsked).toBe(0);
      expect(problems).toEqual([]);
      await screenshot(page, "job-failed-before-tasks");
    },
    JOB_TEST_MS,
  );
});

describe("an aborted loop's partial recap (item 16)", () => {
  it(
    "counts the loop's item results as results of the host",
    async () => {
      const id = await api.launch("loop-me");
      await waitFor(
        `job ${id} to print three item results`,
        async () => ((await api.output(id)).match(/\(item=\d+\)/g) ?? []).length >= 3,
        {
          timeoutMs: 240_000,
        },
      );
      expect((await api.call("POST", `/api/jobs/${id}/abort`)).status).toBe(202);
      expect((await api.waitForEnd(id, 240_000)).status).toBe("aborted");
      const page = await openPage();
      await page.goto(`/jobs/${id}`);
      const partial = page.getByTestId("recap-partial-hosts");
      await partial.waitFor({ timeout: 30_000 });
      expect(await partial.textContent()).toContain("localhost");
      expect(await page.getByText("No task result before it stopped.").count()).toBe(0);
    },
    JOB_TEST_MS,
  );
});

describe("the values panel (item 17)", () => {
  const LONG = Array.from({ length: 2500 }, (_, i) => `line ${String(i + 1).padStart(5, "0")} ${"x".repeat(69)}`).join("\n");

  it(
    "folds a 200 KB text with its length, shows a table as a table and a file by its name",
    async () => {
      expect(LONG.length).toBeGreaterThan(200_000); // 2,500 lines of 81 characters
      const body = new FormData();
      body.append("file", new Blob(["key material"], { type: "text/plain" }), "deploy-key.txt");
      const uploaded = await api.call("POST", "/api/uploads?form=values-echo&field=keyfile", { body });
      expect(uploaded.status, JSON.stringify(uploaded.json)).toBe(201);
      const launched = await api.call("POST", "/api/jobs", {
        json: {
          form: "values-echo",
          values: {
            notes: LONG,
            rows: [
              { user: "ada", uid: 1000 },
              { user: "grace", uid: 1001 },
            ],
            keyfile: uploaded.json.id,
          },
        },
      });
      expect(launched.status, JSON.stringify(launched.json)).toBe(201);
      const id = launched.json.id as number;
      expect((await api.waitForEnd(id, 240_000)).status).toBe("success");

      const page = await openPage();
      const problems = watchProblems(page);
      await page.goto(`/jobs/${id}`);
      const values = page.getByTestId("job-values");
      await values.waitFor();
      const height = () => page.evaluate(() => document.documentElement.scrollHeight);
      // Folded: the page stays about a screen or two tall, and says how long the value is.
      expect(await height()).toBeLessThan(4000);
      const fold = page.getByTestId("value-fold-notes");
      expect(await fold.textContent()).toContain(`${LONG.length.toLocaleString("en-GB")} characters`);
      expect(await fold.textContent()).toContain("2,500 lines");
      expect(await values.textContent()).not.toContain("line 02500");
      await fold.getByRole("button", { name: /Show all/ }).click();
      await expect.poll(() => values.textContent()).toContain("line 02500");
      await fold.getByRole("button", { name: /Fold/ }).click();
      await expect.poll(() => values.textContent()).not.toContain("line 02500");

      // The table value: a table with a row per entry.
      const table = values.locator("table");
      expect(await table.count()).toBe(1);
      expect(await table.locator("th").allTextContents()).toEqual(["user", "uid"]);
      expect(await table.locator("tbody tr").count()).toBe(2);
      expect(await table.locator("tbody tr").first().textContent()).toContain("ada");

      // The file: its name (and size), not the upload's id.
      const file = page.getByTestId("value-file-keyfile");
      expect(await file.textContent()).toContain("deploy-key.txt");
      expect(await values.textContent()).not.toContain(uploaded.json.id as string);

      // What the playbook handed back with set_stats: the Results panel.
      const results = page.getByTestId("job-artifacts-run");
      await results.waitFor({ timeout: 30_000 });
      expect(await results.locator('[data-key="rows_seen"] dd').textContent()).toBe("2");
      expect(await results.locator('[data-key="users"] dd').textContent()).toBe(JSON.stringify(["ada", "grace"], null, 2));
      expect(problems).toEqual([]);
      await screenshot(page, "job-values-folded");
    },
    JOB_TEST_MS,
  );
});
