/**
 * The task timeline of a real run through the API: hello-world on the local RTE, its
 * callback-plugin events turned into tasks on a time axis that agree with the recap.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

const HELLO_TASKS = [
  "Print the message",
  "Take a short breath (so you can watch the output arrive live)",
  "Write the message to a marker file",
  "Done",
];

let app: RunningPlayform;
let api: ApiClient;
let job: { id: number; status: string; startedAt: string; finishedAt: string };

beforeAll(async () => {
  app = await startPlayform();
  api = apiClient(app, await adminToken(app));
  job = await api.waitForEnd(await api.launch("hello-world", { message: "timeline" }));
  expect(job.status).toBe("success");
});
afterAll(async () => {
  await app?.stop();
});

describe("GET /api/jobs/ID/timeline", () => {
  it("puts hello-world's four tasks on a time axis that agrees with the recap", async () => {
    const timeline = await api.get(`/api/jobs/${job.id}/timeline`);
    const recap = await api.get(`/api/jobs/${job.id}/recap`);

    const names = timeline.tasks.map((t: { task: string }) => t.task);
    expect(names).toEqual(HELLO_TASKS);
    // The same names the recap gives the same tasks.
    expect([...names].sort()).toEqual(recap.slowest_tasks.map((t: { task: string }) => t.task).sort());
    expect(timeline.plays).toEqual([{ number: 1, name: "Hello world", start_sec: 0, end_sec: expect.any(Number) }]);
    expect(timeline.tasks.every((t: { play: number; kind: string }) => t.play === 1 && t.kind === "task")).toBe(true);

    // started_at is an epoch time within the job's own run.
    expect(timeline.started_at * 1000).toBeGreaterThanOrEqual(Date.parse(job.startedAt) - 1000);
    expect(timeline.started_at * 1000).toBeLessThanOrEqual(Date.parse(job.finishedAt));

    const breath = timeline.tasks[1];
    expect(breath.duration_sec).toBeGreaterThanOrEqual(1.5);
    expect(breath.duration_sec).toBeLessThan(10);

    // One task at a time: each starts when the one before it ends, and none runs backwards.
    let previousEnd = 0;
    for (const task of timeline.tasks) {
      expect(task.start_sec, task.task).toBeGreaterThanOrEqual(previousEnd);
      expect(task.end_sec, task.task).toBeGreaterThanOrEqual(task.start_sec);
      expect(task.duration_sec, task.task).toBeCloseTo(task.end_sec - task.start_sec, 2);
      for (const host of task.hosts) {
        expect(host.at_sec, `${task.task} ${host.host}`).toBeGreaterThanOrEqual(task.start_sec);
        expect(host.at_sec, `${task.task} ${host.host}`).toBeLessThanOrEqual(task.end_sec);
      }
      previousEnd = task.end_sec;
    }
    expect(timeline.tasks[0].start_sec).toBe(0);
    expect(timeline.plays[0].end_sec).toBeGreaterThanOrEqual(previousEnd);

    const statuses = timeline.tasks.map((t: { hosts: { host: string; status: string }[] }) => t.hosts.map((h) => `${h.host}:${h.status}`));
    expect(statuses).toEqual([["localhost:ok"], ["localhost:ok"], ["localhost:changed"], ["localhost:ok"]]);
    expect(recap.changed_tasks).toEqual([HELLO_TASKS[2]]);

    expect(timeline.total_sec).toBeGreaterThanOrEqual(previousEnd);
    expect(Math.abs(timeline.total_sec - recap.elapsed_sec)).toBeLessThanOrEqual(1);
  });

  it("answers 404 for an unknown job and 401 without a token", async () => {
    const unknown = await api.call("GET", "/api/jobs/999999/timeline");
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe("not_found");
    expect(unknown.json.error.message).toContain("999999");
    expect((await api.call("GET", "/api/jobs/not-a-number/timeline")).status).toBe(404);
    expect((await api.call("GET", `/api/jobs/${job.id}/timeline`, { auth: false })).status).toBe(401);
  });
});
