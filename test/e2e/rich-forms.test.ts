/**
 * The rich fields in a real browser against the production build, with the example form
 * user-accounts (server/forms/examples): a field shown when a box is ticked, package choices
 * that follow the operating system, a table of accounts, an uploaded key file and a host from
 * the form's inventory; launched, the playbook's output shows every value; Run again opens the
 * form with them, file included, and the new job shows them again.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
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

/** Waits for the job shown to end; answers its status and its output's text. */
async function finished(page: Page): Promise<{ status: string; output: string }> {
  const status = await jobEnded(page);
  // The last lines (the PLAY RECAP) are on screen once the job has ended.
  await page.waitForFunction(
    () => (document.querySelector('[data-testid="job-output"]')?.textContent ?? "").includes("PLAY RECAP"),
    undefined,
    {
      timeout: 30_000,
    },
  );
  return { status, output: (await page.getByTestId("job-output").textContent()) ?? "" };
}

const jobIdOf = (page: Page) => Number(new URL(page.url()).pathname.split("/").pop());

it("fills dependent fields, a table and a file, launches, sees the values in the output, and runs it again", async () => {
  const page = await signedIn();
  await page.goto("/forms/user-accounts");
  await page.getByLabel("Operating system").waitFor();

  // Shown only when the box is ticked; required then.
  expect(await page.locator('[data-field="notify_email"]').count()).toBe(0);
  await page.getByLabel("Send a notice when done").check();
  const notify = page.getByLabel("Notice to");
  await notify.waitFor();

  // The package choices follow the operating system.
  const packages = page.getByTestId("choices-packages");
  await packages.getByLabel("vim", { exact: true }).waitFor();
  await page.getByLabel("Operating system").selectOption("rhel");
  await packages.getByLabel("vim-enhanced").check();
  await packages.getByLabel("htop").check();
  expect(await packages.getByLabel("vim", { exact: true }).count()).toBe(0);

  // The table starts with its default row; a second row, first with a bad name.
  await page.getByRole("button", { name: "Add row" }).click();
  await page.getByLabel("User name, row 2").fill("Ada!");
  await page.getByLabel("UID, row 2").fill("2001");
  await page.getByLabel("Expires, row 2").fill("2027-01-31");

  // The key file is uploaded as soon as it is chosen.
  await page.locator("#field-authorized_keys").setInputFiles({
    name: "keys.pub",
    mimeType: "text/plain",
    buffer: Buffer.from("ssh-ed25519 AAAAC3Nza one@example\nssh-ed25519 AAAAC3Nzb two@example\n"),
  });
  await page.getByTestId("upload-authorized_keys").waitFor();

  // A host from the form's inventory (its groups are offered too).
  await page.locator("#field-target").selectOption("runner-self");

  // The page runs the form's rules: the empty notice address and the bad cell are marked, and
  // nothing is sent.
  await page.getByRole("button", { name: "Launch" }).click();
  expect(await page.getByTestId("field-error-notify_email").textContent()).toBe("is required");
  // The form's patternMessage, not the raw regex.
  expect(await page.locator("#field-accounts-1-user-error").textContent()).toBe(
    "must start with a lowercase letter or _, then lowercase letters, digits, _ or - (at most 32)",
  );
  await screenshot(page, "rich-form-errors");
  await notify.fill("ops@example.org");
  await page.getByLabel("User name, row 2").fill("ada");

  await page.getByRole("button", { name: "Launch" }).click();
  await page.waitForURL((url) => /^\/jobs\/\d+$/.test(url.pathname));
  const firstId = jobIdOf(page);
  const first = await finished(page);
  expect(first.status).toBe("success");
  expect(first.output).toContain("deploy uid=1500 shell=/bin/bash sudo=True expires=never");
  expect(first.output).toContain("ada uid=2001 shell=/bin/bash sudo=False expires=2027-01-31");
  expect(first.output).toContain("packages: vim-enhanced, htop");
  expect(first.output).toContain("keys.pub: 2 key(s)");
  expect(first.output).toMatch(/ok: \[runner-self\]/);
  await screenshot(page, "rich-form-job");

  // Run again: the same values, the table's rows and the uploaded file included.
  await page.getByTestId("run-again").click();
  await page.waitForURL((url) => url.pathname === "/forms/user-accounts" && url.searchParams.get("from") === String(firstId));
  await page.getByLabel("User name, row 2").waitFor();
  expect(await page.getByLabel("User name, row 2").inputValue()).toBe("ada");
  expect(await page.getByLabel("Operating system").inputValue()).toBe("rhel");
  expect(await packages.getByLabel("htop").isChecked()).toBe(true);
  expect(await page.getByLabel("Notice to").inputValue()).toBe("ops@example.org");
  await page.getByTestId("upload-authorized_keys").waitFor();
  await page.getByLabel("UID, row 2").fill("2002");

  await page.getByRole("button", { name: "Launch" }).click();
  await page.waitForURL((url) => /^\/jobs\/\d+$/.test(url.pathname) && jobIdOf(page) !== firstId);
  const second = await finished(page);
  expect(second.status).toBe("success");
  expect(second.output).toContain("ada uid=2002 shell=/bin/bash sudo=False expires=2027-01-31");
  expect(second.output).toContain("keys.pub: 2 key(s)");
  expect(await page.getByTestId("job-relaunch-of").textContent()).toBe(`Repeats job #${firstId}`);
});

it("sets your email on the account page, and user-accounts' Notice to starts with it", async () => {
  // Before the fix: "Notice to" defaults to {user.email}, which a local user had no way to set.
  const page = await signedIn();
  await page.goto("/account");
  const email = page.getByTestId("own-email");
  await email.waitFor();
  await email.fill("not an email");
  await page.getByTestId("save-email").click();
  await page.getByText("Email must be an email address like ops@example.org").waitFor();
  await email.fill("admin@example.org");
  await page.getByTestId("save-email").click();
  await page.waitForFunction(() => !document.querySelector("[data-testid=save-email]")?.hasAttribute("disabled"));
  await page.reload();
  await page.getByTestId("own-email").waitFor();
  await page.waitForFunction(
    () => (document.querySelector<HTMLInputElement>("[data-testid=own-email]")?.value ?? "") === "admin@example.org",
  );

  await page.goto("/forms/user-accounts");
  await page.getByLabel("Send a notice when done").check();
  expect(await page.getByLabel("Notice to").inputValue()).toBe("admin@example.org");
});
