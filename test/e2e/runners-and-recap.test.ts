/**
 * The admin and analysis pages in a real browser against the production build: a runner
 * asks to join and is approved from the Runners page; two runs of hello-world are compared
 * on the job page ("changed again"); a log Playform did not run is analysed; unknown pages
 * land on the 404 page.
 */
import Database from "better-sqlite3";
import { execa, type ResultPromise } from "execa";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, BrowserContext, ConsoleMessage, Page, Response } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "../../server/security/password";
import { startPlayform, type RunningPlayform } from "../support/playform";
import { waitFor } from "../support/wait";
import { launchChromium, logIn, newPage, screenshot } from "./browser";

const ROOT = path.resolve(import.meta.dirname, "../..");
const FAILED_HOST_LOG = fs.readFileSync(path.join(ROOT, "test/fixtures/recap/failed_host/log.txt"), "utf8");
const LOG_PATH_LOG = path.join(ROOT, "test/fixtures/recap/log_path_basic/log.txt");
const KILLED_LOG = path.join(ROOT, "test/fixtures/recap/killed_sigint/log.txt");
const MARKER_TASK = "Write the message to a marker file";

let app: RunningPlayform;
let browser: Browser;
let context: BrowserContext | undefined;
let rte: ResultPromise | undefined;
let rteOutput = "";
let rteDir: string | undefined;
/**
 * The local RTE's RTE_ENVIRONMENTS: the system ansible as `default` (hello-world names no
 * environment) and as `system`, and one whose folder does not exist.
 */
let environmentsDir: string | undefined;

beforeAll(async () => {
  environmentsDir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-e2e-envs-"));
  const environments = path.join(environmentsDir, "environments.yaml");
  fs.writeFileSync(
    environments,
    "environments:\n  - name: default\n    bin: /usr/bin\n  - name: system\n    bin: /usr/bin\n  - name: broken\n    bin: missing/bin\n",
  );
  // RTE_* settings reach the app's local RTE.
  app = await startPlayform({ env: { RTE_ENVIRONMENTS: environments } });
  browser = await launchChromium();
});

afterEach(async () => {
  await context?.close();
  context = undefined;
});

afterAll(async () => {
  if (rte && rte.exitCode === null) {
    rte.kill("SIGKILL");
    await rte;
  }
  await browser?.close();
  await app?.stop();
  if (rteDir) fs.rmSync(rteDir, { recursive: true, force: true });
  if (environmentsDir) fs.rmSync(environmentsDir, { recursive: true, force: true });
});

async function openAs(username: string, password: string): Promise<Page> {
  const opened = await newPage(browser, app.url);
  context = opened.context;
  await logIn(opened.page, username, password);
  await opened.page.waitForURL((url) => url.pathname === "/");
  return opened.page;
}

function openAsAdmin(): Promise<Page> {
  return openAs("admin", app.adminPassword);
}

/** Playform has no user admin UI yet: a plain user goes straight into the test's SQLite file. */
async function addPlainUser(username: string, password: string): Promise<void> {
  const db = new Database(app.databaseUrl.slice("file:".length));
  try {
    db.prepare(`INSERT INTO "User" ("id", "username", "passwordHash", "role") VALUES (?, ?, ?, 'user')`).run(
      randomUUID(),
      username,
      await hashPassword(password),
    );
  } finally {
    db.close();
  }
}

/**
 * A second RTE, started as an operator would: a name and the app's address, and no token (it
 * asks to join) or the token an admin was shown.
 */
function startRte(name: string, token?: string): void {
  rteDir ??= fs.mkdtempSync(path.join(os.tmpdir(), `playform-e2e-rte-`));
  rteOutput = "";
  rte = execa(process.execPath, ["dist/rte.js"], {
    cwd: ROOT,
    env: {
      APP_URL: app.url,
      RTE_RUNNER_NAME: name,
      RTE_INSTANCE_ID: `${name}-0`,
      PORT: "0",
      RTE_SPOOL_PATH: path.join(rteDir, "spool"),
      RTE_WORK_DIR: path.join(rteDir, "work"),
      RTE_STATE_PATH: path.join(rteDir, "state"),
      RTE_TOKEN: token,
    },
    all: true,
    reject: false,
    buffer: false,
  });
  rte.all?.setEncoding("utf8").on("data", (text: string) => (rteOutput += text));
}

/** Launches hello-world from its form page and waits for the job page to show it finished. */
async function launchHelloWorld(page: Page, message: string): Promise<number> {
  await page.goto("/forms/hello-world");
  await page.getByLabel("Message").fill(message);
  await page.getByRole("button", { name: "Launch" }).click();
  await page.waitForURL((url) => /^\/jobs\/\d+$/.test(url.pathname));
  const jobId = Number(new URL(page.url()).pathname.split("/").pop());
  const final = await page.waitForFunction(
    () => {
      const status = document.querySelector<HTMLElement>('[data-testid="job-status"]')?.dataset.status;
      return status && ["success", "failed", "aborted", "abandoned"].includes(status) ? status : false;
    },
    undefined,
    { timeout: 90_000, polling: 200 },
  );
  const status = await final.jsonValue();
  if (status !== "success") {
    throw new Error(
      `job ${jobId} ended ${status}:\n${await page.getByTestId("job-output").textContent()}\n--- app log ---\n${app.output()}`,
    );
  }
  // hello-world names no environment: it ran in `default`, shown next to the runner with its versions.
  const environment = page.getByTestId("job-environment");
  await environment.waitFor({ timeout: 10_000 });
  expect(await environment.textContent()).toBe("default");
  expect(await environment.locator("..").textContent()).toMatch(/ansible-core 2\.\d+.*, Python 3\.\d+/);
  return jobId;
}

describe("runners page", () => {
  it("shows the local runner connected, and a runner that asks to join can be approved", async () => {
    const page = await openAsAdmin();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Runners" }).click();
    await page.waitForURL((url) => url.pathname === "/runners");

    const local = page.locator('[data-testid="runners-table"] tr[data-runner="local"]');
    await local.waitFor();
    await page.locator('tr[data-runner="local"][data-connected="true"]').waitFor({ timeout: 30_000 });
    expect(await local.getAttribute("data-status")).toBe("approved");
    expect(await local.getByTestId("runner-default").count()).toBe(1);
    expect(await local.locator('[data-testid="runner-instance"][data-connected="true"]').count()).toBeGreaterThanOrEqual(1);
    // A fresh heartbeat is not flagged.
    expect(await local.getByTestId("runner-heartbeat").getAttribute("data-stale")).toBe("false");
    expect(await page.getByTestId("join-requests").count()).toBe(0);
    // Its environments: versions of the one that works, the error of the broken one in red.
    const system = local.locator('[data-testid="runner-environment"][data-environment="system"]');
    expect(await system.getAttribute("data-broken")).toBe("false");
    expect(await system.getByTestId("environment-ansible-core").textContent()).toMatch(/^ansible-core 2\.\d+/);
    expect(await system.getByTestId("environment-python").textContent()).toMatch(/Python 3\.\d+/);
    const broken = local.locator('[data-testid="runner-environment"][data-environment="broken"]');
    expect(await broken.getByTestId("environment-error").textContent()).toBe(`the folder ${environmentsDir}/missing/bin does not exist`);
    expect(await broken.getByTestId("environment-error").getAttribute("class")).toContain("text-red-");

    startRte("e2e-runner");
    // The page refreshes by itself: no reload.
    const request = page.locator('[data-testid="join-requests"] li[data-runner="e2e-runner"]');
    await request.waitFor({ timeout: 60_000 });
    expect(await request.textContent()).toContain("e2e-runner");
    await screenshot(page, "runners-join-request");

    // Approving takes a confirmation.
    await request.getByTestId("runner-approve").click();
    const confirm = request.getByTestId("runner-approve-confirm");
    await confirm.waitFor();
    await screenshot(page, "runners-approve-confirm");
    await confirm.click();

    // The waiting RTE collects its token on its next poll, connects, and its instance turns green.
    const joined = page.locator('[data-testid="runners-table"] tr[data-runner="e2e-runner"][data-connected="true"]');
    await joined.waitFor({ timeout: 60_000 }).catch((error: unknown) => {
      throw new Error(`e2e-runner did not connect: ${String(error)}\n--- rte ---\n${rteOutput}`);
    });
    expect(await joined.getAttribute("data-status")).toBe("approved");
    expect(await joined.locator('[data-testid="runner-instance"][data-instance="e2e-runner-0"]').getAttribute("data-connected")).toBe(
      "true",
    );
    expect(await page.getByTestId("join-requests").count()).toBe(0);
    await screenshot(page, "runners");

    // Rotating shows the new token once, with the warning, and disconnects the runner.
    await joined.getByTestId("runner-rotate").click();
    await joined.getByTestId("runner-rotate-confirm").click();
    const token = page.getByTestId("rotated-token-value");
    await token.waitFor();
    expect(await token.inputValue()).toMatch(/^pfr_/);
    const box = page.getByTestId("rotated-token");
    expect(await box.textContent()).toContain("will not be shown again");
    expect(await box.textContent()).toContain("rollout restart");
    const newToken = await token.inputValue();
    await page.locator('tr[data-runner="e2e-runner"][data-connected="false"]').waitFor({ timeout: 30_000 });
    await screenshot(page, "runners-rotated-token");
    await page.getByRole("button", { name: "I have stored it" }).click();
    await box.waitFor({ state: "detached" });

    // The old token stopped working at once: the app closed the link, and the RTE, which still
    // holds it (in its state file), is refused when it comes back, and stays away.
    await waitFor(
      "the RTE to be refused with its old token",
      () =>
        /the app closed this runner's link: token rotated by an admin/.test(rteOutput) &&
        /cannot connect to http:\/\/\S+: unknown runner token/.test(rteOutput),
      { timeoutMs: 30_000, details: () => `--- rte ---\n${rteOutput}` },
    );
    expect(rteOutput.match(/connected to http/g)).toHaveLength(1);
    expect(await page.locator('tr[data-runner="e2e-runner"]').getAttribute("data-connected")).toBe("false");

    // The token shown is the one that works: the runner restarted with it connects again.
    rte!.kill("SIGKILL");
    await rte;
    startRte("e2e-runner", newToken);
    await page.locator('tr[data-runner="e2e-runner"][data-connected="true"]').waitFor({ timeout: 60_000 });
  });

  it("shows an inbound runner's pinned certificate, the one it presents instead and why it is refused; Re-pin pins that one", async () => {
    const pinned = Array.from({ length: 32 }, () => "AA").join(":");
    const presented = Array.from({ length: 32 }, () => "BB").join(":");
    const now = new Date().toISOString().replace("Z", "+00:00");
    const db = new Database(app.databaseUrl.slice("file:".length));
    try {
      // Nothing listens at its address: the app's attempts fail, saying so; what it presented
      // last time (another certificate) stays known.
      db.prepare(
        `INSERT INTO "Runner" ("id", "name", "status", "tokenHash", "isDefault", "mode", "address", "capacity", "certFingerprint", "certPinnedAt", "presentedFingerprint", "createdAt", "decidedAt")
         VALUES (?, 'e2e-inbound', 'approved', ?, 0, 'inbound', 'https://127.0.0.1:9', 2, ?, ?, ?, ?, ?)`,
      ).run(randomUUID(), "0".repeat(64), pinned, now, presented, now, now);
    } finally {
      db.close();
    }
    const page = await openAsAdmin();
    await page.goto("/runners");
    const row = page.locator('[data-testid="runners-table"] tr[data-runner="e2e-inbound"]');
    await row.waitFor();
    expect(await row.getByTestId("runner-pinned").textContent()).toBe(pinned);
    await row.getByTestId("runner-link-error").waitFor({ timeout: 30_000 });
    expect(await row.getByTestId("runner-link-error").textContent()).toMatch(
      /cannot connect to https:\/\/127\.0\.0\.1:9: connect ECONNREFUSED/,
    );
    expect(await row.getByTestId("runner-inbound").textContent()).toContain(`presents SHA-256 ${presented}`);
    await screenshot(page, "runners-inbound-refused");

    await row.getByTestId("runner-repin").click();
    const confirm = row.getByTestId("runner-repin-confirm");
    await confirm.waitFor();
    await confirm.click();
    await waitFor(
      "the presented certificate to be pinned",
      async () => (await row.getByTestId("runner-pinned").textContent()) === presented,
      {
        timeoutMs: 30_000,
      },
    );
    expect(await row.getByTestId("runner-repin").count()).toBe(0);
  });

  it("tells a user who is not an admin that the page is for admins, without a nav link to it", async () => {
    await addPlainUser("operator", "operator-password");
    const page = await openAs("operator", "operator-password");
    expect(await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Runners" }).count()).toBe(0);
    await page.goto("/runners");
    const notice = page.getByTestId("admins-only");
    await notice.waitFor();
    expect(await notice.textContent()).toContain("Admins only");
    expect(await page.getByTestId("runners-table").count()).toBe(0);
    await screenshot(page, "runners-not-admin");
  });
});

describe("job page compared with the previous run", () => {
  it("lists the task that changed in both runs of hello-world as changed again", async () => {
    const page = await openAsAdmin();

    // The first run's page asks for a previous run that does not exist;
    // that is an answer, not an error: no console error, no response >= 400 on the job page.
    const onJobPage = () => /^\/jobs\/\d+$/.test(new URL(page.url()).pathname);
    const problems: string[] = [];
    const onConsole = (message: ConsoleMessage) => {
      if (message.type() === "error" && onJobPage()) problems.push(`console: ${message.text()}`);
    };
    let askedPrevious = 0;
    const onResponse = (response: Response) => {
      if (response.status() >= 400 && onJobPage()) problems.push(`${response.status()} ${response.url()}`);
      if (new URL(response.url()).pathname.endsWith("/compare/previous") && response.status() === 200) askedPrevious++;
    };
    page.on("console", onConsole);
    page.on("response", onResponse);
    const firstId = await launchHelloWorld(page, "first run");
    // Nothing to compare the first run with: a quiet note, no panel (and not the error state).
    const none = page.getByTestId("comparison-none");
    await none.waitFor({ timeout: 30_000 });
    expect(await none.textContent()).toContain("No earlier complete run");
    expect(await page.getByTestId("comparison-error").count()).toBe(0);
    expect(await page.getByTestId("job-comparison").count()).toBe(0);
    page.off("console", onConsole);
    page.off("response", onResponse);
    expect(problems).toEqual([]);
    expect(askedPrevious).toBeGreaterThan(0); // the listeners did see the page's question

    // One complete run says nothing about idempotence ("Never idempotent" once showed
    // above a form with one run): the form's trend has the run but no such heading.
    await page.goto("/forms/hello-world");
    await page.locator('[data-testid="trend-durations"] li[data-run]').first().waitFor();
    expect(await page.locator('[data-testid="trend-durations"] li[data-run]').count()).toBe(1);
    expect(await page.getByTestId("trend-never-idempotent").count()).toBe(0);
    expect(await page.getByTestId("form-trend").textContent()).not.toContain("Never idempotent");

    const secondId = await launchHelloWorld(page, "second run");
    const again = page.getByTestId("changed-again");
    await again.waitFor({ timeout: 30_000 });
    expect(Number(await again.getAttribute("data-count"))).toBeGreaterThanOrEqual(1);
    expect(await again.textContent()).toContain(MARKER_TASK);

    const previous = page.getByTestId("previous-job-link");
    expect(await previous.getAttribute("href")).toBe(`/jobs/${firstId}`);
    // The kind both runs share, and what else differs between them (the message typed).
    expect(await page.getByTestId("comparison-kind").textContent()).toContain("Same kind of run: playbook.yml · full run");
    expect(await page.getByTestId("comparison-differences").textContent()).toBe("different form values");
    expect(secondId).toBeGreaterThan(firstId);
    // profile_tasks times: two decimals, as the callback prints them.
    const slowest = await page.getByTestId("recap-slowest-tasks").textContent();
    expect(slowest).toMatch(/\d+\.\d\d s/);
    await screenshot(page, "job-compared");

    // The form's trend sees both runs: the marker task changed every time.
    await page.goto("/forms/hello-world");
    const never = page.getByTestId("trend-never-idempotent");
    await never.waitFor();
    expect(await never.textContent()).toContain(MARKER_TASK);
    expect(await page.locator('[data-testid="trend-durations"] li[data-run]').count()).toBe(2);
    expect(await page.locator('[data-testid="trend-hosts"] li[data-host="localhost"]').getAttribute("data-failure-rate")).toBe("0");
    await screenshot(page, "form-trend");
  });
});

describe("analyse a log", () => {
  it("shows the failed host and task of a pasted log, and the server's message for an empty file", async () => {
    const page = await openAsAdmin();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Analyse log" }).click();
    await page.waitForURL((url) => url.pathname === "/recap");

    await page.getByLabel("Log text").fill(FAILED_HOST_LOG);
    await page.getByRole("button", { name: "Analyse" }).click();

    const node2 = page.locator('[data-testid="recap-table"] tr[data-host="node2"]');
    await node2.waitFor();
    expect(await node2.locator('td[data-counter="failed"]').textContent()).toBe("1");
    expect(await page.locator('[data-testid="recap-table"] tr[data-host]').count()).toBe(3);
    expect(await page.getByTestId("recap-failed-tasks").textContent()).toContain("Check free space");
    expect(await page.getByTestId("recap-slowest-tasks").textContent()).toContain("2.61 s");
    await screenshot(page, "analyse-log");

    // An empty file reaches the server, whose 400 message is shown.
    await page.getByTestId("log-file").setInputFiles({ name: "empty.log", mimeType: "text/plain", buffer: Buffer.alloc(0) });
    await page.getByTestId("chosen-file").waitFor();
    const answer = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/recap");
    await page.getByRole("button", { name: "Analyse" }).click();
    expect((await answer).status()).toBe(400);
    const error = page.getByTestId("analyse-error");
    await error.waitFor();
    expect(await error.textContent()).toContain("the log is empty");
    expect(await page.getByTestId("analyse-result").count()).toBe(0);
    await screenshot(page, "analyse-log-error");
  });
});

describe("analyse a log file", () => {
  it("reads Ansible's log file (log_path), and says what a killed run did before it stopped", async () => {
    const page = await openAsAdmin();
    await page.goto("/recap");
    const table = page.locator('[data-testid="recap-table"] tr[data-host]');

    await page.getByTestId("log-file").setInputFiles(LOG_PATH_LOG);
    await page.getByTestId("chosen-file").waitFor();
    await page.getByRole("button", { name: "Analyse" }).click();
    await page.getByTestId("analyse-result").waitFor();
    await table.first().waitFor();
    expect(await table.count()).toBe(2);
    expect(await page.locator('[data-testid="recap-table"] tr[data-host="node1"] td[data-counter="changed"]').textContent()).toBe("4");
    const changed = await page.getByTestId("recap-changed-tasks").textContent();
    for (const task of ["Write the release marker", "Install packages", "Reload the service"]) expect(changed).toContain(task);
    expect(await page.getByTestId("recap-slowest-tasks").textContent()).toContain("1.67 s");
    expect(await page.getByTestId("recap-incomplete").count()).toBe(0);
    await screenshot(page, "analyse-log-file");

    await page.getByRole("button", { name: "Remove the chosen file" }).click();
    await page.getByTestId("log-file").setInputFiles(KILLED_LOG);
    await page.getByTestId("chosen-file").waitFor();
    await page.getByRole("button", { name: "Analyse" }).click();
    const incomplete = page.getByTestId("recap-incomplete");
    await incomplete.waitFor();
    expect(await incomplete.textContent()).toContain("printed so far");
    const partial = page.locator('[data-testid="recap-partial-hosts"] tr[data-host]');
    expect(await partial.count()).toBe(2);
    expect(await page.locator('[data-testid="recap-partial-hosts"] tr[data-host="node1"] td[data-counter="changed"]').textContent()).toBe(
      "2",
    );
    expect(await page.getByText("Play recap (partial)").count()).toBe(1);
    expect(await page.getByText("No task result before it stopped.").count()).toBe(0);
    expect(await page.getByTestId("recap-elapsed").textContent()).not.toBe("—");
    expect(await page.getByTestId("recap-slowest-tasks").textContent()).toContain("2.87 s");
    await screenshot(page, "analyse-log-killed");
  });
});

describe("unknown pages", () => {
  it("answers 404 with the styled page for a job id that is no number, an unknown job and an unknown form", async () => {
    const page = await openAsAdmin();
    for (const target of ["/jobs/abc", "/jobs/999999", "/forms/no-such-form", "/no/such/page"]) {
      const response = await page.goto(target);
      expect(response?.status(), target).toBe(404);
      await page.getByTestId("not-found").waitFor();
    }
    await screenshot(page, "not-found");
    await page.getByRole("link", { name: "Back to the forms" }).click();
    await page.waitForURL((url) => url.pathname === "/");
  });
});
