/**
 * The Credentials page in a real browser against the production build (default example forms,
 * so the vault-demo form and its demo-vault credential exist): add credentials of two kinds
 * with a field error on the way, see one a form uses refused deletion, delete one that is free,
 * and run the vault demo with the credential the app created.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { launchChromium, logIn, newPage, screenshot } from "./browser";

let app: RunningPlayform;
let browser: Browser;
let keyDir: string;

beforeAll(async () => {
  keyDir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-e2e-key-"));
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", path.join(keyDir, "id")]);
  app = await startPlayform();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  if (keyDir) fs.rmSync(keyDir, { recursive: true, force: true });
});

it("adds, lists and deletes credentials; the demo vault credential opens the vault demo", async () => {
  const { context, page } = await newPage(browser, app.url);
  try {
    await logIn(page, "admin", app.adminPassword);
    await page.waitForURL((url) => url.pathname === "/");
    await page.getByRole("link", { name: "Credentials" }).click();
    const demo = page.getByTestId("credential-row-demo-vault");
    await demo.waitFor();
    expect(await demo.textContent()).toContain("vault-demo"); // used by the example form
    expect(await demo.getByTestId("credential-delete-demo-vault").count()).toBe(0);

    // ssh: a bad key is refused under its field, a real one is stored.
    await page.getByTestId("credential-name").fill("prod-ssh");
    await page.getByTestId("credential-username").fill("deploy");
    await page.getByTestId("credential-private-key").fill("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI pasted-the-public-one");
    await page.getByTestId("new-credential-submit").click();
    await page.getByText("this is a public key").waitFor();
    // Garbage between the markers: read at save time, refused under the key's field.
    const keyField = page.getByTestId("credential-private-key");
    await keyField.fill("-----BEGIN OPENSSH PRIVATE KEY-----\nthis is not a key at all\n-----END OPENSSH PRIVATE KEY-----\n");
    await page.getByTestId("new-credential-submit").click();
    await page.getByText("cannot be read as a private key").waitFor();
    expect(await keyField.getAttribute("aria-invalid")).toBe("true");
    const errorId = (await keyField.getAttribute("aria-describedby"))!.split(" ").find((id) => id.endsWith("-error"))!;
    expect(await page.locator(`[id="${errorId}"]`).textContent()).toMatch(/cannot be read as a private key: .*not base64/);
    await page.getByTestId("credential-private-key").fill(fs.readFileSync(path.join(keyDir, "id"), "utf8"));
    await page.getByTestId("new-credential-submit").click();
    await page.getByTestId("credential-row-prod-ssh").waitFor();
    // The form is emptied for the next one: the key is not left on screen.
    expect(await page.getByTestId("credential-name").inputValue()).toBe("");

    // secret: two variables.
    await page.getByTestId("credential-kind-secret").click();
    await page.getByTestId("credential-name").fill("tokens");
    await page.getByTestId("credential-variable-name-0").fill("api_token");
    await page.getByTestId("credential-variable-value-0").fill("e2e-token-value");
    await page.getByRole("button", { name: "Add variable" }).click();
    await page.getByTestId("credential-variable-name-1").fill("db_password");
    await page.getByTestId("credential-variable-value-1").fill("e2e-db-password");
    await page.getByTestId("new-credential-submit").click();
    await page.getByTestId("credential-row-tokens").waitFor();
    const table = (await page.getByTestId("credentials-table").textContent()) ?? "";
    expect(table).not.toContain("e2e-token-value");
    await screenshot(page, "credentials");

    await page.getByTestId("credential-delete-tokens").click();
    await page.getByTestId("credential-delete-tokens-confirm").click();
    await page.getByTestId("credential-row-tokens").waitFor({ state: "detached" });
  } finally {
    await context.close();
  }

  const api = apiClient(app, await adminToken(app));
  const id = await api.launch("vault-demo");
  const job = await api.waitForEnd(id);
  const output = await api.output(id);
  expect(job.status, output).toBe("success");
  expect(output).toContain("Opened by Playform with the demo-vault credential");
});
