/**
 * Drift watch (issue 22 section 5) through the real app, its local RTE and ansible-playbook: a
 * schedule in drift mode runs the form with --check --diff; a host whose file was edited by
 * hand is marked drifted since that check, with the task and its diff lines, and the form's
 * `drift` webhook is called once; later checks keep its start; a check after the edit is undone
 * clears it. The rules alone: test/unit/drift.test.ts.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { managedFiles, MANAGED_TASK, WANTED, type ManagedFiles } from "../support/drift-form";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { waitFor } from "../support/wait";

let app: RunningPlayform;
let api: ApiClient;
let files: ManagedFiles;
let receiver: http.Server;
const calls: { event: string; job: { id: number }; driftedHosts: string[] | null }[] = [];

beforeAll(async () => {
  receiver = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      calls.push(JSON.parse(body) as (typeof calls)[number]);
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  files = managedFiles({ webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/drift` });
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: files.formsDir, PLAYFORM_NOTIFY_BACKOFF_SECONDS: "1" } });
  api = apiClient(app, await adminToken(app));
});

afterAll(async () => {
  await app?.stop();
  receiver?.close();
  files?.remove();
});

let schedule: number;
const checks: number[] = [];

/** Lets the schedule launch one more drift check, pauses it, and waits for the check's hosts. */
async function nextCheck(): Promise<{
  id: number;
  status: string;
  finishedAt: string;
  drift: boolean;
  plan: { options: { check: boolean; diff: boolean } };
}> {
  const enabled = await api.call("PATCH", `/api/schedules/${schedule}`, { json: { enabled: true } });
  expect(enabled.status, JSON.stringify(enabled.json)).toBe(200);
  const id = await waitFor("the schedule's next check", async () => {
    const { jobs } = await api.get(`/api/jobs?form=managed-files&limit=5`);
    const fresh = (jobs as { id: number }[]).find((job) => !checks.includes(job.id));
    return fresh?.id;
  });
  expect((await api.call("PATCH", `/api/schedules/${schedule}`, { json: { enabled: false } })).status).toBe(200);
  checks.push(id);
  const job = await api.waitForEnd(id, 90_000);
  // Its hosts (and so its drift) are written just after it ends.
  await waitFor(`job ${id}'s hosts`, async () => ((await api.get("/api/hosts/web1")).runs[0]?.jobId === id ? true : null));
  return job;
}

it("saves a schedule in drift mode, whose jobs are checks with diffs, and a host in line has no drift", async () => {
  const saved = await api.call("POST", "/api/schedules", {
    json: { form: "managed-files", values: { dir: files.managed }, cron: "*/2 * * * * *", mode: "drift", enabled: false },
  });
  expect(saved.status, JSON.stringify(saved.json)).toBe(201);
  expect(saved.json.mode).toBe("drift");
  schedule = saved.json.id;
  const bad = await api.call("POST", "/api/schedules", {
    json: { form: "managed-files", values: { dir: files.managed }, cron: "0 6 * * *", mode: "watch" },
  });
  expect(bad.status).toBe(422);
  expect(bad.json.error.fields).toEqual({ mode: 'must be "run" or "drift"' });

  const job = await nextCheck();
  expect(job).toMatchObject({ status: "success", drift: true, plan: { options: { check: true, diff: true } } });
  for (const host of ["web1", "db1"]) expect((await api.get(`/api/hosts/${host}`)).host.drift).toBeNull();
});

it("marks a host edited by hand drifted, with the task and its diff lines, and tells the form's drift webhook once", async () => {
  files.write("web1", "edited by hand\n");
  const first = await nextCheck();
  expect(first.status).toBe("success");
  const { host } = await api.get("/api/hosts/web1");
  expect(host.drift).toMatchObject({ jobId: first.id, form: "managed-files", forms: ["managed-files"] });
  expect(host.drift.since).toBe(first.finishedAt);
  expect(host.drift.tasks).toHaveLength(1);
  expect(host.drift.tasks[0].task).toBe(MANAGED_TASK);
  expect(host.drift.tasks[0].diff).toContain("-edited by hand");
  expect(host.drift.tasks[0].diff).toContain("+managed by playform");
  expect((await api.get("/api/hosts/db1")).host.drift).toBeNull();
  const listed = (await api.get("/api/hosts")).hosts as { name: string; drift: unknown }[];
  expect(listed.find((h) => h.name === "web1")!.drift).toEqual({
    since: first.finishedAt,
    jobId: first.id,
    form: "managed-files",
    forms: ["managed-files"],
  });
  expect(listed.find((h) => h.name === "db1")!.drift).toBeNull();
  // The check changed nothing: the file is as the hand left it.
  expect(files.read("web1")).toBe("edited by hand\n");

  await waitFor("the drift webhook", () => (calls.some((call) => call.job.id === first.id) ? true : null));
  expect(calls.filter((call) => call.job.id === first.id).map((call) => [call.event, call.driftedHosts])).toEqual([["drift", ["web1"]]]);

  // Still drifted at the next check: same start, newer check; nobody is told again.
  const second = await nextCheck();
  expect((await api.get("/api/hosts/web1")).host.drift).toMatchObject({ since: first.finishedAt, jobId: second.id });
  const deliveries = (await api.get(`/api/jobs/${second.id}/notifications`)).deliveries as unknown[];
  expect(deliveries).toEqual([]);
});

it("clears the drift at the first check after the edit is undone", async () => {
  files.write("web1", WANTED);
  await nextCheck();
  expect((await api.get("/api/hosts/web1")).host.drift).toBeNull();
  expect(((await api.get("/api/hosts")).hosts as { drift: unknown }[]).every((h) => h.drift === null)).toBe(true);
  // Drift checks are runs of their own kind: the job list labels them, compares them with each other.
  const { jobs } = await api.get(`/api/jobs?form=managed-files&limit=10`);
  expect((jobs as { drift: boolean }[]).every((job) => job.drift)).toBe(true);
});
