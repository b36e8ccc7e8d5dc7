/**
 * Retention through the API of a running app (SQLite), PLAYFORM_RETENTION_DAYS=30 and
 * PLAYFORM_AUDIT_RETENTION_DAYS=90: 600 finished jobs of 3 forms (0 to 60 days old, with
 * output, events and markers) and a few old unfinished ones, written straight into its
 * database. GET /api/retention counts what a run would clean; POST /api/retention/run cleans
 * it; a purged job still answers its recap, its artifacts and its form's trend and idempotence report, its
 * output endpoints answer 410 as docs/api.md says, and the job says when its output went.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { seedAuditEvents, seedJobsWithOutput, seedOwners } from "../support/output-rows";
import { adminToken, dbQuery, startPlayform, type RunningPlayform } from "../support/playform";

const DAY = 86_400_000;
const FORMS = ["alpha", "beta", "gamma"];
const JOBS = 600;

let app: RunningPlayform;
let api: ApiClient;
let ids: number[] = [];
let unfinished: number[] = [];
const now = Date.now();
/** Job i finished (600 - i - 0.5) / 10 days before the test: 0 to 60 days, none at the 30 days boundary. */
const finishedAt = (i: number) => new Date(now - ((JOBS - i - 0.5) / 10) * DAY);
const expectedPurged = Array.from({ length: JOBS }, (_, i) => i).filter((i) => finishedAt(i).getTime() < now - 30 * DAY).length;

beforeAll(async () => {
  app = await startPlayform({
    env: { PLAYFORM_LOCAL_RTE: "false", PLAYFORM_RETENTION_DAYS: "30", PLAYFORM_AUDIT_RETENTION_DAYS: "90" },
  });
  api = apiClient(app, await adminToken(app));
  const file = app.databaseUrl.slice("file:".length);
  seedOwners(file, FORMS);
  ids = seedJobsWithOutput(
    file,
    Array.from({ length: JOBS }, (_, i) => ({
      formName: FORMS[i % 3]!,
      status: i % 5 === 0 ? ("failed" as const) : ("success" as const),
      createdAt: new Date(finishedAt(i).getTime() - 60_000),
      finishedAt: finishedAt(i),
    })),
  );
  unfinished = seedJobsWithOutput(
    file,
    FORMS.map((formName) => ({ formName, status: "running" as const, createdAt: new Date(now - 100 * DAY), finishedAt: null })),
  );
  seedAuditEvents(file, [new Date(now - 200 * DAY), new Date(now - 100 * DAY), new Date(now - 10 * DAY)]);
}, 120_000);
afterAll(async () => {
  await app?.stop();
});

it("GET /api/retention: the settings, no run yet, and what a run now would clean", async () => {
  const status = await api.get("/api/retention");
  expect(status.settings).toEqual({ days: 30, keepPerForm: null, auditDays: 90, hour: null, enabled: true });
  expect(status.lastRun).toBeNull();
  expect(status.pending).toEqual({ jobs: expectedPurged, auditEvents: 2 });
  expect(Date.parse(status.nextRunAt)).toBeGreaterThan(Date.now());
});

it("POST /api/retention/run removes the output, keeps the recap, and answers the report", async () => {
  const sample = ids[0]!;
  const recapBefore = (await api.call("GET", `/api/jobs/${sample}/recap`)).json;
  const artifactsBefore = await api.get(`/api/jobs/${sample}/artifacts`);
  expect(artifactsBefore).toEqual({ artifacts: { build: "b0" }, hosts: {}, error: null });

  const answer = await api.call("POST", "/api/retention/run");
  expect(answer.status).toBe(200);
  expect(answer.json.report).toMatchObject({
    jobs: expectedPurged,
    chunks: expectedPurged * 3,
    markers: expectedPurged * 3,
    auditEvents: 2,
  });

  const job = (await api.get(`/api/jobs/${sample}`)).job;
  expect(Date.parse(job.outputPurgedAt)).toBeGreaterThan(now - 60_000);
  const recap = await api.call("GET", `/api/jobs/${sample}/recap`);
  expect(recap.status).toBe(200);
  expect(recap.json).toEqual(recapBefore);
  // What the playbook handed back outlives the output too: kept on the job, read by comparisons.
  expect(await api.get(`/api/jobs/${sample}/artifacts`)).toEqual(artifactsBefore);
  expect((await api.get(`/api/jobs/${sample}/compare/${ids[1]!}`)).artifacts).toEqual([{ key: "build", first: "b0", second: "b1" }]);

  for (const suffix of ["/lines?tail=10", "/output", "/log", "/search?q=ok", "/tasks", "/timeline"]) {
    const gone = await api.call("GET", `/api/jobs/${sample}${suffix}`);
    expect(gone.status, suffix).toBe(410);
    expect(gone.json.error.code).toBe("gone");
    expect(gone.json.error.message).toMatch(
      new RegExp(`^the output of job ${sample} was removed by retention on \\d{4}-\\d\\d-\\d\\d \\(PLAYFORM_RETENTION_DAYS=30\\)`),
    );
  }
  // A job within 30 days keeps its output; the unfinished ones too, however old.
  expect((await api.get(`/api/jobs/${ids.at(-1)!}/lines?tail=3`)).lines).toHaveLength(3);
  const kept = await dbQuery<{ n: number }>(app, `SELECT COUNT(*) AS n FROM "JobChunk" WHERE "jobId" IN (${unfinished.join(",")})`);
  expect(Number(kept[0]!.n)).toBe(unfinished.length * 3);

  // The form's analyses still answer, from the cached recaps.
  expect((await api.call("GET", "/api/forms/alpha/trend?last=100")).status).toBe(200);
  expect((await api.call("GET", "/api/forms/alpha/idempotence?last=100")).status).toBe(200);
});

it("records the run, shows it as the last run, and a second run is a no-op", async () => {
  const status = await api.get("/api/retention");
  expect(status.lastRun).toMatchObject({ jobs: expectedPurged, auditEvents: 2, actor: "admin" });
  expect(status.pending).toEqual({ jobs: 0, auditEvents: 0 });

  const again = await api.call("POST", "/api/retention/run");
  expect(again.json.report).toMatchObject({ jobs: 0, chunks: 0, markers: 0, auditEvents: 0 });
  const events = await api.get("/api/audit?action=retention.run");
  expect(events.events).toHaveLength(2);
  expect(events.events[1].details).toMatchObject({
    jobs: expectedPurged,
    settings: { PLAYFORM_RETENTION_DAYS: 30, PLAYFORM_AUDIT_RETENTION_DAYS: 90 },
  });
});
