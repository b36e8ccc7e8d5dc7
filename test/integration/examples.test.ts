/**
 * The example forms a new user meets in the catalog (server/forms/examples), beyond hello-world
 * and the lab: one that fails at a task, one that waits for approval, one that offers a choice of
 * runners. Each through the real app, its local RTE and ansible-playbook, as the form's
 * description promises.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let api: ApiClient;

beforeAll(async () => {
  // No PLAYFORM_FORMS_DIR: the examples, as `npm start` has them.
  app = await startPlayform();
  api = apiClient(app, await adminToken(app));
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

it("lists the examples in the catalog", async () => {
  const names = (await api.get("/api/forms")).forms.map((f: { name: string }) => f.name);
  expect(names).toEqual(expect.arrayContaining(["choose-runner", "fails-on-purpose", "hello-world", "lab", "needs-approval"]));
});

it("fails at the task it says, with the failure and the ignored one in the recap", async () => {
  const job = await api.waitForEnd(await api.launch("fails-on-purpose", { service: "no-such-service" }));
  expect(job.status).toBe("failed");
  const recap = await api.get(`/api/jobs/${job.id}/recap`);
  expect(recap.failed_tasks).toEqual(["Stop if it is not"]);
  expect(recap.ignored_failures).toEqual(["Look for a cache (a failure this playbook ignores)"]);
  expect(recap.hosts).toEqual([expect.objectContaining({ host: "localhost", failed: 1, ignored: 1 })]);
  expect(await api.output(job.id)).toContain("The service no-such-service is not installed on localhost: nothing to do.");
  expect(await api.output(job.id)).not.toContain("Never reached");
});

it("waits for approval, then runs with the reason given", async () => {
  const id = await api.launch("needs-approval", { reason: "show the team" });
  expect((await api.get(`/api/jobs/${id}`)).job.status).toBe("approval");
  expect((await api.call("POST", `/api/jobs/${id}/approve`, { json: { comment: "fine" } })).status).toBe(200);
  const job = await api.waitForEnd(id);
  expect(job.status).toBe("success");
  expect(await api.output(id)).toContain("Approved and running. Reason given: show the team");
});

it("offers the local runner and a runner that has not joined yet, and runs on the one chosen", async () => {
  const { form } = await api.get("/api/forms/choose-runner");
  expect(form.runners).toEqual([
    { name: "local", status: "approved", connected: true },
    { name: "datacenter-2", status: "unknown", connected: false },
  ]);
  const refused = await api.call("POST", "/api/jobs", { json: { form: "choose-runner", values: {}, runner: "datacenter-2" } });
  expect(refused.status).toBe(422);
  const id = (await api.call("POST", "/api/jobs", { json: { form: "choose-runner", values: {}, runner: "local" } })).json.id;
  const job = await api.waitForEnd(id);
  expect(job.status).toBe("success");
  expect(await api.output(id)).toContain("Ran on the runner host");
});
