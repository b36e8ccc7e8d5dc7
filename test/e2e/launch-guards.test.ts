/**
 * The launch page and the Runners page in a real browser against the production build: a
 * double click on Launch starts one job; a form with a choice of runners shows them with their
 * state and launches on the one picked; a join request card shows where it came from and the
 * host name the runner reports, and a rejected runner can be deleted.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CONTRACT_VERSION } from "../../server/protocol/rte-messages";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, dbQuery, startPlayform, type RunningPlayform } from "../support/playform";
import { jobEnded, launchChromium, screenshot, signedInPage } from "./browser";

const INVENTORY = 'localhost ansible_connection=local ansible_python_interpreter="{{ ansible_playbook_python }}"\n';
const PLAYBOOK = `- name: Guarded
  hosts: localhost
  gather_facts: false
  tasks:
    - ansible.builtin.debug:
        msg: "{{ note | default('') }}"
`;
const FORMS: Record<string, string> = {
  plain: "name: plain\ntitle: Plain\nplaybook: playbook.yml\ninventories: [inventory.ini]\nfields:\n  - { name: note, type: text }\n",
  // dc9 is approved but never connects: a job for it would wait in the queue.
  choose: "name: choose\ntitle: Choose a runner\nplaybook: playbook.yml\ninventories: [inventory.ini]\nrunners: [dc9, local]\n",
};

let app: RunningPlayform;
let admin: ApiClient;
let browser: Browser;
let context: BrowserContext | undefined;
let formsDir: string;

beforeAll(async () => {
  formsDir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-e2e-guard-forms-"));
  for (const [name, yaml] of Object.entries(FORMS)) {
    fs.mkdirSync(path.join(formsDir, name));
    fs.writeFileSync(path.join(formsDir, name, "form.yaml"), yaml);
    fs.writeFileSync(path.join(formsDir, name, "playbook.yml"), PLAYBOOK);
    fs.writeFileSync(path.join(formsDir, name, "inventory.ini"), INVENTORY);
  }
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: formsDir } });
  admin = apiClient(app, await adminToken(app));
  browser = await launchChromium();
});
afterEach(async () => {
  await context?.close();
  context = undefined;
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  if (formsDir) fs.rmSync(formsDir, { recursive: true, force: true });
});

/** A join request as an RTE sends it (POST /api/runners/join, no credentials): the runner's id. */
async function askToJoin(name: string, hostName: string): Promise<string> {
  const joined = await admin.call("POST", "/api/runners/join", {
    json: { v: CONTRACT_VERSION, name, version: "e2e", capacity: 1, hostName },
    auth: false,
  });
  expect(joined.status, JSON.stringify(joined.json)).toBe(202);
  return joined.json.runnerId;
}

const jobsOfForm = async (form: string) =>
  (await dbQuery<{ id: number }>(app, 'SELECT id FROM "Job" WHERE "formName" = $1 ORDER BY id', [form])).map((row) => row.id);

describe("the launch form", () => {
  it("starts one job for a double click on Launch, however fast", async () => {
    const opened = await signedInPage(browser, app);
    context = opened.context;
    const { page } = opened;
    await page.goto("/forms/plain");
    await page.getByLabel("note").fill("double");
    // Two clicks before the page could render anything in between (a double click on a slow
    // machine): the button cannot be disabled in time, the page itself must send one launch.
    await page.getByRole("button", { name: "Launch" }).evaluate((button: HTMLButtonElement) => {
      button.click();
      button.click();
    });
    await page.waitForURL((url) => /^\/jobs\/\d+$/.test(url.pathname));
    expect(await jobEnded(page)).toBe("success");
    // Both clicks' requests, had there been two, were sent before the page moved on and long
    // answered by the time the job ended.
    const jobs = await jobsOfForm("plain");
    expect(jobs).toEqual([Number(new URL(page.url()).pathname.split("/").pop())]);
  });

  it("shows the form's runners with their state and launches on the one picked", async () => {
    const dc9 = await askToJoin("dc9", "dc9.example");
    expect((await admin.call("POST", `/api/runners/${dc9}/approve`)).status).toBe(200);
    const opened = await signedInPage(browser, app);
    context = opened.context;
    const { page } = opened;
    await page.goto("/forms/choose");
    const select = page.getByTestId("runner-select");
    await select.waitFor();
    // The first approved runner is chosen unless the launcher picks another.
    expect(await select.inputValue()).toBe("dc9");
    const options = await select.locator("option").allTextContents();
    expect(options).toEqual(["dc9 (not connected: jobs wait for it)", "local (connected)"]);
    await select.selectOption("local");
    await screenshot(page, "form-runner-choice");
    await page.getByRole("button", { name: "Launch" }).click();
    await page.waitForURL((url) => /^\/jobs\/\d+$/.test(url.pathname));
    expect(await jobEnded(page)).toBe("success");
    const id = Number(new URL(page.url()).pathname.split("/").pop());
    expect((await admin.get(`/api/jobs/${id}`)).job.runner).toBe("local");
  });
});

describe("the Runners page", () => {
  it("shows a join request's address and reported host name, and deletes a rejected runner", async () => {
    await askToJoin("e2e-visitor", "visitor-host.example");
    const opened = await signedInPage(browser, app);
    context = opened.context;
    const { page } = opened;
    await page.goto("/runners");
    const request = page.locator('[data-testid="join-requests"] li[data-runner="e2e-visitor"]');
    await request.waitFor({ timeout: 30_000 });
    expect(await request.getByTestId("join-address").textContent()).toBe("127.0.0.1");
    expect(await request.getByTestId("join-host-name").textContent()).toBe("visitor-host.example");
    await screenshot(page, "runners-join-request-address");

    await request.getByTestId("runner-reject").click();
    await request.getByTestId("runner-reject-confirm").click();
    const rejected = page.locator('[data-testid="runners-table"] tr[data-runner="e2e-visitor"][data-status="rejected"]');
    await rejected.waitFor({ timeout: 30_000 });
    await rejected.getByTestId("runner-delete").click();
    await rejected.getByTestId("runner-delete-confirm").click();
    await page.locator('tr[data-runner="e2e-visitor"]').waitFor({ state: "detached", timeout: 30_000 });
    expect((await admin.get("/api/runners")).runners.map((r: { name: string }) => r.name)).not.toContain("e2e-visitor");
  });
});
