/**
 * The product's main path in a real browser against the production build: log in, pick a
 * form from the catalog, launch it, watch the output arrive live and read the PLAY RECAP.
 */
import { randomBytes } from "node:crypto";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startPlayform, type RunningPlayform } from "../support/playform";
import { commandLine, descendantPids } from "../support/processes";
import { waitFor } from "../support/wait";
import { launchChromium, logIn, newPage, screenshot } from "./browser";

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

async function openPage(): Promise<Page> {
  const opened = await newPage(browser, app.url);
  context = opened.context;
  return opened.page;
}

describe("signing in", () => {
  it("says so when the password is wrong and stays on the login page", async () => {
    const page = await openPage();
    await logIn(page, "admin", "not-the-password");
    const error = page.getByTestId("login-error");
    await error.waitFor();
    expect(await error.textContent()).toBe("Wrong username or password");
    expect(new URL(page.url()).pathname).toBe("/login");
  });

  it("sends a signed-out visitor to the login page and back to where they were going", async () => {
    const page = await openPage();
    await page.goto("/jobs");
    await page.waitForURL((url) => url.pathname === "/login");
    expect(new URL(page.url()).searchParams.get("next")).toBe("/jobs");
    await page.getByLabel("Username").fill("admin");
    await page.getByLabel("Password").fill(app.adminPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.pathname === "/jobs");
    await page.getByRole("heading", { name: "Jobs", level: 1 }).waitFor();
  });
});

describe("launching a form", () => {
  it("marks a required field left empty with the server's message and launches nothing", async () => {
    const page = await openPage();
    await logIn(page, "admin", app.adminPassword);
    await page.waitForURL((url) => url.pathname === "/");
    await page.goto("/forms/hello-world");
    const message = page.getByLabel("Message");
    await message.fill("");

    // The page runs the form's rules itself (server/form-rules) and sends nothing; the API,
    // asked with the same values, answers the same message.
    const launches: string[] = [];
    page.on("request", (r) => {
      if (new URL(r.url()).pathname === "/api/jobs" && r.method() === "POST") launches.push(r.url());
    });
    await page.getByRole("button", { name: "Launch" }).click();
    const response = await page.request.post("/api/jobs", {
      data: { form: "hello-world", values: { message: "" } },
      headers: { origin: app.url },
    });
    expect(response.status()).toBe(422);
    const body = (await response.json()) as { error: { fields: Record<string, string> } };
    const serverMessage = body.error.fields.message;
    expect(serverMessage).toBe("is required");

    const fieldError = page.getByTestId("field-error-message");
    await fieldError.waitFor();
    expect(await fieldError.textContent()).toBe(serverMessage);
    expect(await message.getAttribute("aria-invalid")).toBe("true");
    expect(new URL(page.url()).pathname).toBe("/forms/hello-world");
    await screenshot(page, "form-error");

    // Typing clears the mark: the message was about the old value.
    await message.fill("fixed");
    await fieldError.waitFor({ state: "detached" });
    expect(await message.getAttribute("aria-invalid")).toBeNull();
    expect(launches).toEqual([]);
  });

  it("refuses a number field holding what is not a number, as typed, instead of launching with a part of it", async () => {
    const page = await openPage();
    await logIn(page, "admin", app.adminPassword);
    await page.waitForURL((url) => url.pathname === "/");
    await page.goto("/forms/big-output");
    const lines = page.getByLabel("Lines");
    const launches: string[] = [];
    page.on("request", (r) => {
      if (new URL(r.url()).pathname === "/api/jobs" && r.method() === "POST") launches.push(r.url());
    });
    // A number input would have handed the page "12" (or "" for "12e"): the field keeps what was typed.
    await lines.fill("12abc");
    expect(await lines.inputValue()).toBe("12abc");
    await page.getByRole("button", { name: "Launch" }).click();
    const fieldError = page.getByTestId("field-error-lines");
    await fieldError.waitFor();
    expect(await fieldError.textContent()).toBe("must be a number");
    expect(await lines.getAttribute("aria-invalid")).toBe("true");
    const api = await page.request.post("/api/jobs", {
      data: { form: "big-output", values: { lines: "12abc" } },
      headers: { origin: app.url },
    });
    expect(api.status()).toBe(422);
    expect(((await api.json()) as { error: { fields: Record<string, string> } }).error.fields.lines).toBe("must be a number");
    expect(launches).toEqual([]);
  });

  it("keeps a paste longer than the field allows, counts it and says what the server would say", async () => {
    const page = await openPage();
    await logIn(page, "admin", app.adminPassword);
    await page.waitForURL((url) => url.pathname === "/");
    await page.goto("/forms/hello-world");
    const message = page.getByLabel("Message");
    const long = "x".repeat(10_000);
    await message.fill(long);
    // Not cut to 500 by a maxlength attribute: every character is still there.
    expect((await message.inputValue()).length).toBe(10_000);
    expect(await page.getByTestId("length-counter").textContent()).toContain("10,000 / 500");

    await page.getByRole("button", { name: "Launch" }).click();
    const fieldError = page.getByTestId("field-error-message");
    await fieldError.waitFor();
    const response = await page.request.post("/api/jobs", {
      data: { form: "hello-world", values: { message: long } },
      headers: { origin: app.url },
    });
    expect(response.status()).toBe(422);
    const body = (await response.json()) as { error: { fields: Record<string, string> } };
    expect(await fieldError.textContent()).toBe(body.error.fields.message);
    expect(body.error.fields.message).toBe("must be at most 500 characters (has 10000)");
  });

  it("runs hello-world: live output while it runs, then success and the PLAY RECAP", async () => {
    const page = await openPage();
    await logIn(page, "admin", app.adminPassword);
    await page.waitForURL((url) => url.pathname === "/");

    const card = page.locator('[data-testid="form-card"][data-form="hello-world"]');
    await card.waitFor();
    await screenshot(page, "catalog");
    // The card's title opens the form as its Open button does.
    expect(await card.getByTestId("form-card-title").getAttribute("href")).toBe("/forms/hello-world");
    await card.getByRole("link", { name: /open/i }).click();
    await page.waitForURL((url) => url.pathname === "/forms/hello-world");

    const text = `e2e-${randomBytes(6).toString("hex")}`;
    await page.getByLabel("Message").fill(text);
    await page.getByRole("button", { name: "Launch" }).click();
    await page.waitForURL((url) => /^\/jobs\/\d+$/.test(url.pathname));
    const jobId = Number(new URL(page.url()).pathname.split("/").pop());

    // The playbook takes a short breath (`sleep 2`) right after it printed the message. That
    // process is held (SIGSTOP) as soon as it appears, so the job cannot end while the test
    // looks at the page, however slow the machine: "live" is checked while it really runs.
    const breath = await waitFor(
      "the playbook's `sleep 2` to start",
      () => descendantPids(app.pid).find((pid) => commandLine(pid) === "sleep 2"),
      { timeoutMs: 60_000, intervalMs: 20, details: () => app.output() },
    );
    process.kill(breath, "SIGSTOP");
    try {
      // The playbook's own output (stdout, not just the runner's log lines) is on screen,
      // message included, while the job is still running and the socket is live. One
      // evaluation checks all of it, so every fact holds at the same moment.
      await page.waitForFunction(
        (expected) => {
          const status = document.querySelector<HTMLElement>('[data-testid="job-status"]')?.dataset.status;
          const pane = document.querySelector('[data-testid="job-output"]');
          const stdoutLines = pane?.querySelectorAll('[data-line][data-stream="stdout"]').length ?? 0;
          const connection = document.querySelector<HTMLElement>('[data-testid="live-indicator"]')?.dataset.connection;
          return stdoutLines > 0 && (pane?.textContent ?? "").includes(expected) && status === "running" && connection === "live";
        },
        text,
        { timeout: 60_000, polling: 100 },
      );
      await screenshot(page, "job-page-running");

      // Reload mid-run: what has arrived is there again at once, and the page keeps following.
      await page.reload();
      await page.waitForFunction(
        (expected) => (document.querySelector('[data-testid="job-output"]')?.textContent ?? "").includes(expected),
        text,
        { timeout: 30_000, polling: 100 },
      );
    } finally {
      process.kill(breath, "SIGCONT");
    }

    const finalStatus = await page.waitForFunction(
      () => {
        const status = document.querySelector<HTMLElement>('[data-testid="job-status"]')?.dataset.status;
        return status && ["success", "failed", "aborted", "abandoned"].includes(status) ? status : false;
      },
      undefined,
      { timeout: 90_000, polling: 200 },
    );
    const output = page.getByTestId("job-output");
    const status = await finalStatus.jsonValue();
    if (status !== "success") {
      throw new Error(`job ${jobId} ended ${status}; output:\n${await output.textContent()}\n--- app log ---\n${app.output()}`);
    }

    expect(await output.textContent()).toContain(text);
    expect(await output.textContent()).toContain("PLAY RECAP");
    // Nothing shown twice across the reload.
    expect(((await output.textContent()) ?? "").split("TASK [Print the message]").length - 1).toBe(1);

    const changed = page.locator('[data-testid="recap-table"] tr[data-host="localhost"] td[data-counter="changed"]');
    await changed.waitFor({ timeout: 30_000 });
    expect(Number(await changed.textContent())).toBeGreaterThanOrEqual(1);
    const failed = page.locator('[data-testid="recap-table"] tr[data-host="localhost"] td[data-counter="failed"]');
    expect(Number(await failed.textContent())).toBe(0);

    await screenshot(page, "job-page");

    // The job list shows it too, finished.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Jobs" }).click();
    const row = page.locator(`[data-testid="jobs-table"] tr[data-job-id="${jobId}"]`);
    await row.waitFor();
    expect(await row.locator("[data-status]").getAttribute("data-status")).toBe("success");
    await screenshot(page, "jobs");
  });
});
