/**
 * Run options chosen at launch: only those the form allows, validated, and passed to
 * ansible-playbook (check mode, diff, verbosity) on a real run.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let api: ApiClient;

beforeAll(async () => {
  app = await startPlayform();
  api = apiClient(app, await adminToken(app));
});
afterAll(async () => {
  await app?.stop();
});

it("runs hello-world in check mode with diffs, verbosely", async () => {
  const launch = await api.call("POST", "/api/jobs", {
    json: { form: "hello-world", values: { message: "dry run line" }, options: { check: true, diff: true, verbosity: 1 } },
  });
  expect(launch.status, JSON.stringify(launch.json)).toBe(201);
  const job = await api.waitForEnd(launch.json.id);
  const output = await api.output(job.id);
  expect(job.status, output).toBe("success");
  expect(job.runOptions).toEqual({ check: true, diff: true, verbosity: 1 });
  // --diff shows the file content the copy would write; -v shows ansible's config line.
  expect(output).toMatch(/\+dry run line/);
  expect(output).toMatch(/config file/);
  // check mode: `command` tasks are skipped (they cannot predict their effect).
  expect(output).toMatch(/skipping: \[localhost\]/);
});

it("refuses options the form does not offer, and malformed ones, naming them", async () => {
  const notOffered = await api.call("POST", "/api/jobs", {
    json: { form: "hello-world", values: { message: "x" }, options: { limit: "web" } },
  });
  expect(notOffered.status).toBe(422);
  expect(notOffered.json.error.fields).toEqual({ "options.limit": "this form does not let you choose it at launch" });

  const bad = await api.call("POST", "/api/jobs", {
    json: { form: "hello-world", values: { message: "" }, options: { check: "yes", verbosity: 9, shell: "rm -rf /" } },
  });
  expect(bad.status).toBe(422);
  expect(Object.keys(bad.json.error.fields).sort()).toEqual(["message", "options.check", "options.shell", "options.verbosity"]);
});
