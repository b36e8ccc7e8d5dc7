/**
 * Playbooks from Git, as an admin does it in a real browser: a local bare repository made here
 * (no network) is added on the Sources page, synced with the Sync button, its form appears in
 * the catalog, and the job launched from it names the source and commit it ran.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startPlayform, type RunningPlayform } from "../support/playform";
import { jobEnded, launchChromium, screenshot, signedInPage } from "./browser";

let app: RunningPlayform;
let browser: Browser;
let context: BrowserContext | undefined;
let root: string;
let bare: string;
let commit: string;

const git = async (cwd: string, ...args: string[]) =>
  (await execa("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], { cwd })).stdout.trim();

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "playform-e2e-git-"));
  bare = path.join(root, "origin.git");
  const work = path.join(root, "work");
  await execa("git", ["init", "-q", "--bare", "--initial-branch=main", bare]);
  await execa("git", ["clone", "-q", bare, work]);
  const form = path.join(work, "forms", "git-hello");
  fs.mkdirSync(form, { recursive: true });
  fs.writeFileSync(
    path.join(form, "form.yaml"),
    "name: git-hello\ntitle: Hello from Git\ncategory: From Git\nplaybook: playbook.yml\ninventories: [inventory.ini]\n",
  );
  fs.writeFileSync(
    path.join(form, "inventory.ini"),
    'localhost ansible_connection=local ansible_python_interpreter="{{ ansible_playbook_python }}"\n',
  );
  fs.writeFileSync(
    path.join(form, "playbook.yml"),
    '- hosts: localhost\n  gather_facts: false\n  tasks:\n    - ansible.builtin.debug:\n        msg: "committed in git"\n',
  );
  await git(work, "add", "-A");
  await git(work, "commit", "-q", "-m", "a form");
  await git(work, "push", "-q", "origin", "HEAD:main");
  commit = await git(work, "rev-parse", "HEAD");
  app = await startPlayform();
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.stop();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

it("adds a Git source, syncs it, and runs its form at the synced commit", async () => {
  const opened = await signedInPage(browser, app);
  context = opened.context;
  const { page } = opened;
  await page.getByRole("link", { name: "Sources" }).click();
  await page.waitForURL((url) => url.pathname === "/sources");

  await page.getByLabel("Name").fill("ops");
  await page.getByLabel("Repository URL").fill(`file://${bare}`);
  await page.getByLabel("Branch or tag").fill("main");
  await page.getByLabel("Forms folder").fill("forms");
  await page.getByRole("button", { name: "Add source" }).click();
  const source = page.getByTestId("source-ops");
  await source.waitFor();
  expect(await source.textContent()).toContain("none yet");

  await page.getByTestId("sync-ops").click();
  await source.getByText(/Synced [0-9a-f]{12}: 1 form\(s\) imported \(git-hello\)/).waitFor({ timeout: 60_000 });
  expect(await source.textContent()).toContain(commit.slice(0, 12));
  await screenshot(page, "sources");

  // Edit: a bad interval is refused on its field and nothing changes; a good one is saved.
  await source.getByTestId("edit-ops").click();
  const edit = page.getByTestId("source-edit-ops");
  expect(await edit.getByLabel("Name").isDisabled()).toBe(true);
  expect(await edit.getByLabel("Repository URL").inputValue()).toBe(`file://${bare}`);
  await edit.getByLabel("Sync every (minutes)").fill("0");
  await edit.getByTestId("source-save").click();
  await expect.poll(() => edit.getByLabel("Sync every (minutes)").getAttribute("aria-invalid")).toBe("true");
  await edit.getByLabel("Sync every (minutes)").fill("30");
  await edit.getByTestId("source-save").click();
  await edit.waitFor({ state: "detached" });
  await expect.poll(() => source.textContent()).toContain("every 30 min");

  await source.getByRole("link", { name: "git-hello" }).click();
  await page.waitForURL((url) => url.pathname === "/forms/git-hello");
  await page.getByRole("button", { name: "Launch" }).click();
  await page.waitForURL((url) => /^\/jobs\/\d+$/.test(url.pathname));
  expect(await jobEnded(page)).toBe("success");
  expect(await page.getByTestId("job-source").textContent()).toBe(`ops@${commit.slice(0, 7)}`);
  await page.waitForFunction(() => (document.querySelector('[data-testid="job-output"]')?.textContent ?? "").includes("committed in git"));
});
