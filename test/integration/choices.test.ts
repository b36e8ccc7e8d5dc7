/**
 * Choice sources and hosts fields end to end (test/fixtures/forms-choices): the app asks a
 * local HTTP server for a select's choices with the values URL-encoded and the credential as a
 * Bearer token, caches them, maps a slow or failing server to 504 and 502, and checks a
 * launch's values against the current choices; a hosts field offers its inventory's names.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

const FIXTURE = path.resolve(import.meta.dirname, "../fixtures/forms-choices");

let app: RunningPlayform;
let api: ApiClient;
let server: http.Server;
let formsDir: string;
/** What the source server received: path and query as sent, and the Authorization header. */
const received: { url: string; authorization: string | undefined }[] = [];
/** How the source server answers: normally, too slowly (2 s, over the field's 1 s), or 503. */
let mode: "ok" | "slow" | "down" = "ok";

beforeAll(async () => {
  server = http.createServer((request, response) => {
    received.push({ url: request.url!, authorization: request.headers.authorization });
    if (mode === "down") return void response.writeHead(503).end("maintenance");
    const answer = JSON.stringify({ items: [{ id: "p1", name: "Product one" }, { id: "p2", name: "Product two" }, { name: "no id" }] });
    const send = () => response.writeHead(200, { "content-type": "application/json" }).end(answer);
    if (mode === "slow") setTimeout(send, 2000);
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  // The form names the source's port, which is known only now: a copy of the fixture gets it.
  formsDir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-choices-"));
  fs.cpSync(FIXTURE, formsDir, { recursive: true });
  const formFile = path.join(formsDir, "choices/form.yaml");
  fs.writeFileSync(formFile, fs.readFileSync(formFile, "utf8").replaceAll("__PORT__", String((server.address() as AddressInfo).port)));
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: formsDir } });
  api = apiClient(app, await adminToken(app));
  const credential = await api.call("POST", "/api/credentials", {
    json: { name: "choices-token", kind: "secret", variables: { token: "tok-choices-123" } },
  });
  expect(credential.status, JSON.stringify(credential.json)).toBe(201);
}, 240_000);

afterAll(async () => {
  await app?.stop();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  if (formsDir) fs.rmSync(formsDir, { recursive: true, force: true });
});

beforeEach(() => {
  mode = "ok";
  received.length = 0;
});

const choices = (values: Record<string, unknown>, field = "product") =>
  api.call("POST", `/api/forms/choices/choices/${field}`, { json: { values } });

it("gives the page the source's dependencies (never its URL) and the hosts field's inventory names", async () => {
  const { form } = await api.get("/api/forms/choices");
  const product = form.fields.find((f: { name: string }) => f.name === "product");
  expect(product.source).toEqual({ dependsOn: ["env"] });
  expect(JSON.stringify(form)).not.toContain("127.0.0.1");
  const targets = form.fields.find((f: { name: string }) => f.name === "targets");
  expect(targets.choices).toEqual([
    { value: "db", label: "group: db" },
    { value: "prod", label: "group: prod" },
    { value: "web", label: "group: web" },
    { value: "db1.example.test", label: "host: db1.example.test" },
    { value: "localhost", label: "host: localhost" },
    { value: "web1.example.test", label: "host: web1.example.test" },
    { value: "web2.example.test", label: "host: web2.example.test" },
  ]);
});

it("fetches the choices with the values URL-encoded and the credential as a Bearer token, then from the cache", async () => {
  const first = await choices({ env: "a b/&?" });
  expect(first.status, JSON.stringify(first.json)).toBe(200);
  expect(first.json).toEqual({
    choices: [
      { value: "p1", label: "Product one" },
      { value: "p2", label: "Product two" },
    ],
  });
  expect(received).toEqual([{ url: "/items/a%20b%2F%26%3F?env=a%20b%2F%26%3F", authorization: "Bearer tok-choices-123" }]);
  expect(app.output()).not.toContain("tok-choices-123");

  // Cached for the field's cacheSeconds: the same filled URL is not asked again, another one is.
  expect((await choices({ env: "a b/&?" })).status).toBe(200);
  expect(received).toHaveLength(1);
  expect((await choices({ env: "other" })).status).toBe(200);
  expect(received.map((r) => r.url)).toEqual(["/items/a%20b%2F%26%3F?env=a%20b%2F%26%3F", "/items/other?env=other"]);
});

it("asks to fill in a field the URL names first, and answers 404 for a field without a source", async () => {
  const empty = await choices({ env: "" });
  expect(empty.status).toBe(422);
  expect(empty.json.error.message).toBe("fill in Environment first");
  expect((await choices({}, "targets")).status).toBe(404);
  expect((await choices({}, "nope")).status).toBe(404);
  expect((await api.call("POST", "/api/forms/nope/choices/product", { json: { values: {} } })).status).toBe(404);
  expect(received).toEqual([]);
});

it("answers 504 when the source is too slow and 502 when it fails, and caches neither", async () => {
  mode = "slow";
  const slow = await choices({ env: "slow" });
  expect(slow.status).toBe(504);
  expect(slow.json.error.message).toBe("the choices source did not answer within 1 s");
  mode = "down";
  const down = await choices({ env: "slow" });
  expect(down.status).toBe(502);
  expect(down.json.error.message).toBe("the choices source answered 503 Service Unavailable");
  mode = "ok";
  expect((await choices({ env: "slow" })).status).toBe(200);
  expect(received).toHaveLength(3);
});

it("refuses at launch a value that is not among the current choices, or a host not in the inventory", async () => {
  const launch = await api.call("POST", "/api/jobs", {
    json: { form: "choices", values: { env: "prod", product: "p9", targets: ["web", "nowhere.example.test"] } },
  });
  expect(launch.status).toBe(422);
  expect(launch.json.error.fields.product).toMatch(/must be one of: p1, p2/);
  expect(launch.json.error.fields.targets).toMatch(/must be one of|not one of the choices/);
});

it("fails a launch whose source cannot answer, naming the field", async () => {
  mode = "down";
  const launch = await api.call("POST", "/api/jobs", { json: { form: "choices", values: { env: "down-at-launch", product: "p1" } } });
  expect(launch.status).toBe(502);
  expect(launch.json.error.message).toBe("the choices of Product cannot be checked: the choices source answered 503 Service Unavailable");
});

it("runs a launch whose values are among the choices; the playbook gets them", async () => {
  const id = await api.launch("choices", { env: "a b/&?", product: "p2", targets: ["web", "localhost"] });
  const job = await api.waitForEnd(id);
  const output = await api.output(id);
  expect(job.status, output).toBe("success");
  expect(output).toContain("CHOSEN product=p2 targets=web,localhost");
});
