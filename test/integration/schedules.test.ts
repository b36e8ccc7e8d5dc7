/**
 * Schedules on a real app and its local RTE, with seconds-level crons so each case takes a few
 * seconds: jobs start at their tick and name their schedule, the password value reaches the
 * playbook without being shown back, a tick while the previous job still goes is skipped (or
 * queued), and a schedule whose form changed under its values is paused with the reason.
 */
import fs from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, dbQuery, startPlayform, type RunningPlayform } from "../support/playform";
import { createdMs, rewriteForm, SCHEDULE_JOBS_SQL, writeScheduleForms } from "../support/schedule-forms";
import { sleep, waitFor } from "../support/wait";

let app: RunningPlayform;
let api: ApiClient;
let formsDir: string;

type JobRow = { id: number; status: string; createdAt: unknown };
const jobsOf = (schedule: number) => dbQuery<JobRow>(app, SCHEDULE_JOBS_SQL, [schedule]);

beforeAll(async () => {
  formsDir = writeScheduleForms();
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: formsDir } });
  api = apiClient(app, await adminToken(app));
});
afterAll(async () => {
  await app?.stop();
  if (formsDir) fs.rmSync(formsDir, { recursive: true, force: true });
});

async function save(body: Record<string, unknown>): Promise<{ id: number; nextRuns: string[] }> {
  const saved = await api.call("POST", "/api/schedules", { json: body });
  expect(saved.status, JSON.stringify(saved.json)).toBe(201);
  return saved.json;
}

const pause = async (id: number) =>
  expect((await api.call("PATCH", `/api/schedules/${id}`, { json: { enabled: false } })).status).toBe(200);

it("refuses a bad cron, an unknown time zone and bad values, naming them", async () => {
  const bad = await api.call("POST", "/api/schedules", {
    json: { form: "sched-sleep", values: { seconds: 0 }, cron: "61 * * * *", timezone: "Mars/Olympus" },
  });
  expect(bad.status).toBe(422);
  expect(Object.keys(bad.json.error.fields).sort()).toEqual(["cron", "timezone"]);
  const values = await api.call("POST", "/api/schedules", { json: { form: "sched-sleep", values: { seconds: 999 }, cron: "0 6 * * *" } });
  expect(values.status).toBe(422);
  expect(Object.keys(values.json.error.fields)).toEqual(["seconds"]);
  const missing = await api.call("POST", "/api/schedules", { json: { form: "no-such-form", values: {}, cron: "0 6 * * *" } });
  expect(missing.status).toBe(404);
});

it("starts a job at each tick, naming its schedule, with the sealed password value", async () => {
  const schedule = await save({
    form: "sched-sleep",
    values: { seconds: 0, secret: "s3cret-xyz" },
    cron: "*/2 * * * * *",
    overlap: "queue",
  });
  expect(schedule.nextRuns).toHaveLength(5);
  for (const at of schedule.nextRuns) expect(new Date(at).getTime() % 2000).toBe(0);
  const read = await api.get(`/api/schedules/${schedule.id}`);
  expect(read.schedule.values).toEqual({ seconds: 0, secret: "********" });

  const jobs = await waitFor(
    "two jobs of the schedule",
    async () => ((await jobsOf(schedule.id)).length >= 2 ? jobsOf(schedule.id) : null),
    {
      timeoutMs: 15_000,
    },
  );
  await pause(schedule.id);
  // Within a second and a half of its tick (an even second): the loop looks every second.
  for (const job of jobs)
    expect(createdMs(job.createdAt) % 2000, `job ${job.id} created at ${createdMs(job.createdAt)}`).toBeLessThan(1500);

  const ended = await api.waitForEnd(jobs[0]!.id);
  expect(ended.status).toBe("success");
  expect(ended.launchedBy).toEqual({ schedule: schedule.id });
  expect(ended.values.secret).toBe("********");
  expect(await api.output(jobs[0]!.id)).toContain("secret length 10");
  const after = (await api.get(`/api/schedules/${schedule.id}`)).schedule;
  expect(after.enabled).toBe(false);
  expect(after.nextRuns).toEqual([]);
  expect(after.lastJobId).toBeGreaterThanOrEqual(jobs[1]!.id);
  // A job launched by a person names nobody.
  expect((await api.get(`/api/jobs/${await api.launch("sched-sleep", { seconds: 0 })}`)).job.launchedBy).toBeNull();
});

it("skips the ticks while its previous job still runs; with overlap queue it launches them", async () => {
  const skipping = await save({ form: "sched-sleep", values: { seconds: 6 }, cron: "*/2 * * * * *" });
  const first = await waitFor("the first job", async () => (await jobsOf(skipping.id))[0]);
  await api.waitForStatus(first.id, "running", 15_000);
  // Two more ticks pass while it sleeps: neither starts a job, both are in the audit trail.
  await sleep(4500);
  const during = await jobsOf(skipping.id);
  await pause(skipping.id);
  expect(during.map((job) => job.id)).toEqual([first.id]);
  const skips = await api.get(`/api/audit?action=schedule.skip&limit=50`);
  const mine = skips.events.filter((event: { target: string }) => event.target === `schedule:${skipping.id}`);
  expect(mine.length).toBeGreaterThanOrEqual(1);
  expect(mine[0].details).toMatchObject({ form: "sched-sleep", job: first.id });

  // Jobs waiting for approval are still going: queue launches one per tick anyway.
  const queueing = await save({ form: "sched-approval", values: {}, cron: "*/2 * * * * *", overlap: "queue" });
  const queued = await waitFor("three waiting jobs", async () => {
    const jobs = await jobsOf(queueing.id);
    return jobs.length >= 3 ? jobs : null;
  });
  await pause(queueing.id);
  expect(queued.every((job) => job.status === "approval")).toBe(true);
}, 60_000);

it("pauses a schedule, with the reason, when its form changed so its values no longer pass", async () => {
  const schedule = await save({ form: "sched-choice", values: { mode: "beta" }, cron: "*/2 * * * * *", overlap: "queue" });
  rewriteForm(formsDir, "sched-choice", (yaml) => yaml.replace("[alpha, beta]", "[alpha, gamma]"));
  expect((await api.call("POST", "/api/forms/import")).status).toBe(200);
  const paused = await waitFor("the schedule to be paused", async () => {
    const { schedule: read } = await api.get(`/api/schedules/${schedule.id}`);
    return read.enabled ? null : read;
  });
  expect(paused.pausedReason).toMatch(/values no longer pass.*mode/);
  const count = (await jobsOf(schedule.id)).length;
  await sleep(2500);
  expect((await jobsOf(schedule.id)).length).toBe(count);
  const audit = await api.get(`/api/audit?action=schedule.pause&limit=20`);
  expect(
    audit.events.some(
      (event: { target: string; actor: string | null }) => event.target === `schedule:${schedule.id}` && event.actor === null,
    ),
  ).toBe(true);
  // Enabling it again checks the values again: still refused, naming the field.
  const again = await api.call("PATCH", `/api/schedules/${schedule.id}`, { json: { enabled: true } });
  expect(again.status).toBe(422);
  expect(Object.keys(again.json.error.fields)).toEqual(["mode"]);
  const fixed = await api.call("PATCH", `/api/schedules/${schedule.id}`, { json: { values: { mode: "gamma" }, enabled: false } });
  expect(fixed.status, JSON.stringify(fixed.json)).toBe(200);
  expect(fixed.json.schedule.values).toEqual({ mode: "gamma" });
  expect((await api.call("DELETE", `/api/schedules/${schedule.id}`)).status).toBe(204);
  expect((await api.call("GET", `/api/schedules/${schedule.id}`)).status).toBe(404);
}, 60_000);
