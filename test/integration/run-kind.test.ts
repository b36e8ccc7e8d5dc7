/**
 * Runs are judged against runs of their own kind (server/jobs/run-kind.ts), through the real
 * app and its local RTE: `compare/previous` takes the previous run with the same playbook,
 * tags, skip tags, limit and check mode, a form's idempotence report and trend cover its full
 * runs only, a progress estimate learns from runs of its kind, and a comparison shows how each
 * run was run and where two runs' options differ. Runs stored before run keys existed get
 * theirs at the next start.
 */
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

const FORMS = path.resolve(import.meta.dirname, "../fixtures/forms-run-kind");
const FORM = "run-kinds";

let app: RunningPlayform;
let api: ApiClient;
const runs: Record<"full1" | "full2" | "info1" | "info2" | "check" | "infoVerbose", number> = {
  full1: 0,
  full2: 0,
  info1: 0,
  info2: 0,
  check: 0,
  infoVerbose: 0,
};

async function run(options: Record<string, unknown> = {}, values: Record<string, unknown> = {}): Promise<number> {
  const answer = await api.call("POST", "/api/jobs", { json: { form: FORM, values, options } });
  expect(answer.status, JSON.stringify(answer.json)).toBe(201);
  const job = await api.waitForEnd(answer.json.id as number);
  expect(job.status, job.statusReason).toBe("success");
  return job.id as number;
}

const previousOf = async (id: number) =>
  (await api.get(`/api/jobs/${id}/compare/previous?optional=1`)) as { previous?: null; first?: { id: number } };

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: FORMS } });
  api = apiClient(app, await adminToken(app));
  // In launch order: a full run, a --tags run, another full run, the same --tags run, a check run, the --tags run at -v.
  runs.full1 = await run();
  runs.info1 = await run({ tags: ["info"] });
  runs.full2 = await run({}, { note: "another note" });
  runs.info2 = await run({ tags: ["info"] });
  runs.check = await run({ check: true });
  runs.infoVerbose = await run({ tags: ["info"], verbosity: 1 });
});

afterAll(async () => {
  await app?.stop();
});

describe("compare/previous", () => {
  it("compares a full run with the previous full run, not with the --tags run between them", async () => {
    const answer = await api.get(`/api/jobs/${runs.full2}/compare/previous`);
    expect(answer.first.id).toBe(runs.full1);
    expect(answer.second.id).toBe(runs.full2);
    // Each side says how it was run; only the values differ.
    expect(answer.first.options).toMatchObject({
      playbook: "playbook.yml",
      tags: [],
      skipTags: [],
      limit: null,
      check: false,
      diff: false,
      verbosity: 0,
    });
    expect(answer.first.options.environment).toBe("default");
    expect(answer.differences).toEqual([
      { option: "valuesHash", first: answer.first.options.valuesHash, second: answer.second.options.valuesHash },
    ]);
    expect(answer.comparison.changed_in_both).toEqual(["Always changes"]);
  });

  it("compares a --tags run with the previous run with the same tags, and finds none for the first of its kind", async () => {
    expect(await previousOf(runs.info1)).toEqual({ previous: null });
    expect((await api.call("GET", `/api/jobs/${runs.info1}/compare/previous`)).status).toBe(404);
    const second = await api.get(`/api/jobs/${runs.info2}/compare/previous`);
    expect(second.first.id).toBe(runs.info1);
    expect(second.first.options.tags).toEqual(["info"]);
    expect(second.differences).toEqual([]);
    // Verbosity does not change what runs: still the same kind, and the difference is listed.
    const verbose = await api.get(`/api/jobs/${runs.infoVerbose}/compare/previous`);
    expect(verbose.first.id).toBe(runs.info2);
    expect(verbose.differences).toEqual([{ option: "verbosity", first: 0, second: 1 }]);
  });

  it("finds no previous run for the first check-mode run", async () => {
    expect(await previousOf(runs.check)).toEqual({ previous: null });
  });

  it("still compares any two runs, listing how their options differ", async () => {
    const answer = await api.get(`/api/jobs/${runs.info1}/compare/${runs.full1}`);
    expect(answer.first.id).toBe(runs.info1);
    expect(answer.second.id).toBe(runs.full1);
    expect(answer.differences).toEqual([{ option: "tags", first: ["info"], second: [] }]);
    const check = await api.get(`/api/jobs/${runs.check}/compare/${runs.full2}`);
    expect(check.differences.map((d: { option: string }) => d.option)).toEqual(["check", "valuesHash"]);
  });
});

describe("a form's reports", () => {
  it("cover its full runs only: the idempotence report and the trend leave --tags and check runs out", async () => {
    const report = await api.get(`/api/forms/${FORM}/idempotence?last=20`);
    expect(report.runs.map((r: { id: string }) => Number(r.id))).toEqual([runs.full1, runs.full2]);
    const trend = await api.get(`/api/forms/${FORM}/trend?last=20`);
    expect(trend.durations.map((d: { id: string }) => Number(d.id))).toEqual([runs.full1, runs.full2]);
    expect(trend.completed_runs).toBe(2);
  });

  it("estimates a run's progress from earlier runs of its own kind", async () => {
    // A --tags run that waits: while it runs, its estimate learns from the earlier --tags runs only.
    const answer = await api.call("POST", "/api/jobs", { json: { form: FORM, values: { wait: 15 }, options: { tags: ["info"] } } });
    expect(answer.status, JSON.stringify(answer.json)).toBe(201);
    const id = answer.json.id as number;
    await api.waitForStatus(id, "running");
    await expect
      .poll(async () => (await api.get(`/api/jobs/${id}/progress`)).references, { timeout: 30_000 })
      .toEqual([runs.infoVerbose, runs.info2, runs.info1]);
    expect((await api.waitForEnd(id)).status).toBe("success");
  });
});

describe("runs stored before run keys existed", () => {
  it("get their kind at the next start and compare as before", async () => {
    const db = new Database(app.databaseUrl.replace(/^file:/, ""));
    try {
      db.pragma("busy_timeout = 10000");
      expect(db.prepare(`UPDATE "Job" SET "runKey" = NULL`).run().changes).toBe(7);
    } finally {
      db.close();
    }
    await app.restart();
    await app.waitForOutput(/found what 7 earlier run\(s\) are comparable with/);
    expect((await api.get(`/api/jobs/${runs.full2}/compare/previous`)).first.id).toBe(runs.full1);
    expect((await api.get(`/api/jobs/${runs.info2}/compare/previous`)).first.id).toBe(runs.info1);
  });
});
