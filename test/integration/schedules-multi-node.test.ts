/**
 * Two app nodes on one PostgreSQL database, both running the scheduler loop: every tick of a
 * schedule starts exactly one job, whichever node claims it (the conditional update of the
 * schedule's next run). The form waits for approval, so its jobs cost no playbook run.
 */
import fs from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient } from "../support/api";
import { adminToken, dbQuery, startPlayform, type RunningPlayform } from "../support/playform";
import { startPostgres, type TestPostgres } from "../support/postgres";
import { createdMs, SCHEDULE_JOBS_SQL, writeScheduleForms } from "../support/schedule-forms";
import { waitFor } from "../support/wait";

let postgres: TestPostgres;
let nodeA: RunningPlayform;
let nodeB: RunningPlayform;
let formsDir: string;

beforeAll(async () => {
  formsDir = writeScheduleForms();
  postgres = await startPostgres();
  nodeA = await startPlayform({ env: { DATABASE_URL: postgres.url, PLAYFORM_NODE_ID: "node-a", PLAYFORM_FORMS_DIR: formsDir } });
  nodeB = await startPlayform({
    env: {
      DATABASE_URL: postgres.url,
      PLAYFORM_NODE_ID: "node-b",
      PLAYFORM_LOCAL_RTE: "false",
      PLAYFORM_ADMIN_PASSWORD: nodeA.adminPassword,
      PLAYFORM_FORMS_DIR: formsDir,
    },
  });
});
afterAll(async () => {
  await nodeB?.stop();
  await nodeA?.stop();
  await postgres?.stop();
  if (formsDir) fs.rmSync(formsDir, { recursive: true, force: true });
});

it("starts exactly one job per tick with two nodes looking", async () => {
  const api = apiClient(nodeB, await adminToken(nodeB));
  const saved = await api.call("POST", "/api/schedules", {
    json: { form: "sched-approval", values: {}, cron: "* * * * * *", overlap: "queue" },
  });
  expect(saved.status, JSON.stringify(saved.json)).toBe(201);
  const id = saved.json.id as number;
  const jobs = () => dbQuery<{ id: number; createdAt: unknown }>(nodeA, SCHEDULE_JOBS_SQL, [id]);
  await waitFor("five jobs of the schedule", async () => (await jobs()).length >= 5, { timeoutMs: 20_000 });
  expect((await api.call("PATCH", `/api/schedules/${id}`, { json: { enabled: false } })).status).toBe(200);

  // One job per second at most: two in one second would be one tick claimed twice.
  const seconds = (await jobs()).map((job) => Math.floor(createdMs(job.createdAt) / 1000));
  expect(new Set(seconds).size, `jobs created in seconds ${seconds.join(", ")}`).toBe(seconds.length);
  // And both nodes took part, or at least were looking: their loops ran on the same rows.
  const launched = `${nodeA.output()}\n${nodeB.output()}`.match(new RegExp(`schedule ${id}: launched job`, "g")) ?? [];
  expect(launched).toHaveLength(seconds.length);
}, 120_000);
