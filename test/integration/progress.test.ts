/**
 * A running job's progress and time left through the API, on the real app and local RTE: the
 * first run of a form has no history to estimate from; two runs later, a third one held
 * mid-run is placed against them (test/fixtures/forms-progress/timed-steps: six tasks, the
 * third waits for a file).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

const FORMS_DIR = path.resolve(import.meta.dirname, "../fixtures/forms-progress");
const TASKS = 6;

let app: RunningPlayform;
let api: ApiClient;
let releaseDir: string;

beforeAll(async () => {
  // The playbook reads or writes the test's release file in /tmp, which its private /tmp would hide.
  app = await startPlayform({ env: { RTE_PLAYBOOK_PRIVATE_TMP: "off", PLAYFORM_FORMS_DIR: FORMS_DIR } });
  api = apiClient(app, await adminToken(app));
  // Readable by whoever the runner runs playbooks as.
  releaseDir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-progress-"));
  fs.chmodSync(releaseDir, 0o755);
});
afterAll(async () => {
  await app?.stop();
  if (releaseDir) fs.rmSync(releaseDir, { recursive: true, force: true });
});

/** Launches a run that holds at its third task until released. */
async function launchHeld(name: string): Promise<{ id: number; release: () => void }> {
  const file = path.join(releaseDir, name);
  const id = await api.launch("timed-steps", { step_seconds: 1, release_file: file });
  return { id, release: () => fs.writeFileSync(file, "go\n") };
}

/** Polls the job's progress until it has started its third task (the hold). */
async function progressWhenHeld(id: number): Promise<any> {
  // A hang detector: two 1 s tasks took over 20 s on a 2-core machine running three files at once beside two builds.
  const deadline = Date.now() + 90_000;
  for (;;) {
    const answer = await api.get(`/api/jobs/${id}/progress`);
    if (answer.tasks_seen >= 3) return answer;
    if (Date.now() > deadline) throw new Error(`job ${id} never reached its third task: ${JSON.stringify(answer)}\n${app.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe("GET /api/jobs/ID/progress", () => {
  it("has no history on a form's first run, then estimates from the earlier complete runs", async () => {
    // First run: nothing to estimate from, elapsed time only. The second runs beside it, not
    // held (the hold task is skipped, but is still a task): launched after the first, it is
    // never history for it.
    const first = await launchHeld("first");
    const second = await api.launch("timed-steps", { step_seconds: 1 });
    const alone = await progressWhenHeld(first.id);
    expect(alone).toMatchObject({
      job: first.id,
      status: "running",
      tasks_seen: 3,
      tasks_expected: null,
      fraction: null,
      remaining_sec: null,
      remaining_range_sec: null,
      basis: 0,
      references: [],
    });
    expect(alone.elapsed_sec).toBeGreaterThanOrEqual(2); // two one-second steps before the hold
    first.release();
    expect((await api.waitForEnd(first.id)).status).toBe("success");
    expect((await api.waitForEnd(second)).status).toBe("success");

    // A finished job is done.
    expect(await api.get(`/api/jobs/${first.id}/progress`)).toMatchObject({ fraction: 1, remaining_sec: 0, tasks_seen: TASKS });

    // Third run, held at its third task: placed against the two earlier runs.
    const third = await launchHeld("third");
    // Many watchers asking at once, before anyone asked about this job: they share one read of
    // its events, none counts a task twice.
    // A hang detector: two 1 s tasks took over 20 s on a 2-core machine running three files at once beside two builds.
    const deadline = Date.now() + 90_000;
    while (!(await api.get(`/api/jobs/${third.id}/tasks`)).tasks.some((t: { name: string }) => t.name === "Hold until released")) {
      if (Date.now() > deadline) throw new Error(`job ${third.id} never showed its hold task:\n${app.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const burst = await Promise.all(Array.from({ length: 8 }, () => api.get(`/api/jobs/${third.id}/progress`)));
    for (const answer of burst) expect(answer.tasks_seen).toBeLessThanOrEqual(3);
    const held = await progressWhenHeld(third.id);
    const again = await Promise.all(Array.from({ length: 8 }, () => api.get(`/api/jobs/${third.id}/progress`)));
    expect(again.map((a) => a.tasks_seen)).toEqual(Array(8).fill(3));
    expect(held.status).toBe("running");
    expect(held.basis).toBe(2);
    expect(held.references).toEqual([second, first.id]);
    expect(held.tasks_seen).toBe(3);
    expect(held.tasks_expected).toBe(TASKS);
    expect(held.fraction).toBeGreaterThan(0);
    expect(held.fraction).toBeLessThan(1);
    expect(held.remaining_sec).toEqual(expect.any(Number));
    expect(held.remaining_sec).toBeGreaterThanOrEqual(0);
    expect(held.remaining_range_sec[0]).toBeLessThanOrEqual(held.remaining_sec);
    expect(held.remaining_range_sec[1]).toBeGreaterThanOrEqual(held.remaining_sec);

    // The job list's request: several jobs at once, unknown ids left out.
    const many = await api.get(`/api/jobs/progress?ids=${third.id},${first.id},999999`);
    expect(many.progress.map((p: { job: number }) => p.job)).toEqual([third.id, first.id]);
    expect(many.progress[0]).toMatchObject({ status: "running", basis: 2, tasks_expected: TASKS });
    expect(many.progress[1]).toMatchObject({ status: "success", fraction: 1 });

    // Released, it ends; a finished job is done.
    third.release();
    const done = await api.waitForEnd(third.id);
    expect(done.status).toBe("success");
    expect(await api.get(`/api/jobs/${third.id}/progress`)).toMatchObject({ fraction: 1, tasks_seen: TASKS });
  });

  it("answers 404 for an unknown job, 400 naming `ids` for a bad list, 401 without a token", async () => {
    const unknown = await api.call("GET", "/api/jobs/999999/progress");
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.message).toContain("999999");
    for (const ids of ["", "abc", "1,,2", "0", "1,-2", "01"]) {
      const bad = await api.call("GET", `/api/jobs/progress?ids=${ids}`);
      expect(bad.status, ids).toBe(400);
      expect(bad.json.error.message, ids).toMatch(/^ids: /);
    }
    const tooMany = await api.call("GET", `/api/jobs/progress?ids=${Array.from({ length: 101 }, (_, i) => i + 1).join(",")}`);
    expect(tooMany.status).toBe(400);
    expect((await api.call("GET", "/api/jobs/progress")).status).toBe(400);
    expect((await api.call("GET", "/api/jobs/1/progress", { auth: false })).status).toBe(401);
    expect((await api.call("GET", "/api/jobs/progress?ids=1", { auth: false })).status).toBe(401);
  });
});
