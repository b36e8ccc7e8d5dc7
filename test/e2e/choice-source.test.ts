/**
 * A select whose choices come from an HTTP source, in a real browser against the production
 * build (test/fixtures/forms-choices, a local JSON server): "Fill in … first" until the field
 * its URL names has a value, the choices once it has, asked again when it changes, the source's
 * error when it fails; launched, the playbook gets the chosen value.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { launchChromium, logIn, newPage, screenshot } from "./browser";

let app: RunningPlayform;
let browser: Browser;
let context: BrowserContext | undefined;
let server: http.Server;
let formsDir: string;
const asked: string[] = [];
let down = false;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    asked.push(request.url!);
    if (down) return void response.writeHead(503).end("maintenance");
    const env = decodeURIComponent(new URL(request.url!, "http://x").pathname.split("/").pop()!);
    const items = [1, 2].map((n) => ({ id: `${env}-p${n}`, name: `${env} product ${n}` }));
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ items }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  formsDir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-e2e-choices-"));
  fs.cpSync(path.resolve(import.meta.dirname, "../fixtures/forms-choices"), formsDir, { recursive: true });
  const formFile = path.join(formsDir, "choices/form.yaml");
  const port = String((server.address() as AddressInfo).port);
  // No caching here: a change of the server's mood shows at once.
  fs.writeFileSync(formFile, fs.readFileSync(formFile, "utf8").replaceAll("__PORT__", port).replace("cacheSeconds: 60", "cacheSeconds: 0"));
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: formsDir } });
  const api = apiClient(app, await adminToken(app));
  expect(
    (await api.call("POST", "/api/credentials", { json: { name: "choices-token", kind: "secret", variables: { token: "t" } } })).status,
  ).toBe(201);
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.stop();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  if (formsDir) fs.rmSync(formsDir, { recursive: true, force: true });
});

it("asks the source for the choices of what is typed, shows its failure, and launches with the chosen value", async () => {
  const opened = await newPage(browser, app.url);
  context = opened.context;
  const { page } = opened;
  await logIn(page, "admin", app.adminPassword);
  await page.waitForURL((url) => url.pathname === "/");
  await page.goto("/forms/choices");

  const product = page.getByLabel("Product");
  const field = page.locator('[data-field="product"]');
  await field.getByText("Fill in env first.").waitFor();
  expect(asked).toEqual([]);

  // Typed, then a pause: one question for the whole word, its answer as the choices.
  await page.getByLabel("Environment").pressSequentially("prod", { delay: 30 });
  await product.locator("option", { hasText: "prod product 2" }).waitFor({ state: "attached" });
  expect(asked).toEqual(["/items/prod?env=prod"]);

  // The source fails: its answer is said under the field.
  down = true;
  await page.getByLabel("Environment").fill("stage");
  await field.getByText(/Could not load the choices: .*503/).waitFor();
  await screenshot(page, "choice-source-error");

  down = false;
  await page.getByLabel("Environment").fill("qa");
  await product.locator("option", { hasText: "qa product 1" }).waitFor({ state: "attached" });
  await product.selectOption("qa-p1");
  await page.getByTestId("choices-targets").getByLabel("host: localhost").check();
  await page.getByRole("button", { name: "Launch" }).click();
  await page.waitForURL((url) => /^\/jobs\/\d+$/.test(url.pathname));
  await page.waitForFunction(
    () => (document.querySelector('[data-testid="job-output"]')?.textContent ?? "").includes("CHOSEN product=qa-p1 targets=localhost"),
    undefined,
    { timeout: 90_000 },
  );
});
