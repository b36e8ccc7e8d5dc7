/**
 * A run aborted through the real app and RTE gets honest analytics, not "no host ran a task": its
 * recap says it is incomplete and shows what it did get in partial_* fields, from both the
 * events and the text; it never feeds an idempotence verdict: a comparison with it is not
 * judgeable, compare/previous of the next run skips it, and the form's trend leaves it out.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";
import { waitFor } from "../support/wait";

const FORMS = path.resolve(import.meta.dirname, "../fixtures/forms-incomplete");
const MARKER_TASK = "Write a marker file";
/** On a loaded machine one task of a run took 28 s (a whole run 67 s): waits on a job are generous. */
const WAIT_MS = 240_000;

let app: RunningPlayform;
let api: ApiClient;
let first: number;
let aborted: number;
let third: number;
let abortedLoop: number;

async function runToEnd(): Promise<number> {
  const job = await api.waitForEnd(await api.launch("interrupt-me", { hold: false }), WAIT_MS);
  expect(job.status).toBe("success");
  return job.id as number;
}

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: FORMS } });
  api = apiClient(app, await adminToken(app));
  first = await runToEnd();

  aborted = await api.launch("interrupt-me", { hold: true });
  // Aborted while it waits at its last task: the change and the read are in, no PLAY RECAP.
  await waitFor(`job ${aborted} to reach its last task`, async () => /TASK \[Hold until aborted\]/.test(await api.output(aborted)), {
    timeoutMs: WAIT_MS,
  });
  expect((await api.call("POST", `/api/jobs/${aborted}/abort`)).status).toBe(202);
  expect((await api.waitForEnd(aborted, WAIT_MS)).status).toBe("aborted");

  third = await runToEnd();

  // A loop aborted after a few items; its only results are item results.
  abortedLoop = await api.launch("loop-me");
  await waitFor(
    `job ${abortedLoop} to print three item results`,
    async () => ((await api.output(abortedLoop)).match(/\(item=\d+\)/g) ?? []).length >= 3,
    {
      timeoutMs: WAIT_MS,
    },
  );
  expect((await api.call("POST", `/api/jobs/${abortedLoop}/abort`)).status).toBe(202);
  expect((await api.waitForEnd(abortedLoop, WAIT_MS)).status).toBe("aborted");
}, 900_000);

afterAll(async () => {
  await app?.stop();
});

describe("an aborted run", () => {
  it.each(["events", "text"] as const)(
    "says from its %s that it is incomplete and shows what it got, apart from the PLAY RECAP rows",
    async (source) => {
      const { status, json } = await api.call("GET", `/api/jobs/${aborted}/recap?source=${source}`);
      expect(status).toBe(200);
      expect(json.status).toBe("incomplete");
      expect(json.hosts).toEqual([]);
      expect(json.elapsed_sec).toBeNull();
      expect(json.changed_tasks).toEqual([MARKER_TASK]);
      // Two tasks ended (one changed); the held one has no result.
      expect(json.partial_hosts).toEqual([
        { host: "localhost", ok: 2, changed: 1, unreachable: 0, failed: 0, skipped: 0, rescued: 0, ignored: 0 },
      ]);
      expect(json.partial_slowest_tasks.map((t: { task: string }) => t.task).sort()).toEqual([MARKER_TASK, "Read it back"].sort());
      expect(typeof json.partial_elapsed_sec).toBe("number");
    },
  );

  it("is compared with the previous complete run, but gives no idempotence verdict", async () => {
    const { status, json } = await api.call("GET", `/api/jobs/${aborted}/compare/previous`);
    expect(status).toBe(200);
    expect(json.first.id).toBe(first);
    expect(json.second.id).toBe(aborted);
    expect(json.comparison.idempotence_judgeable).toBe(false);
    expect(json.comparison.incomplete_runs).toEqual(["second"]);
  });

  it("is skipped by the next run's compare/previous", async () => {
    const { json } = await api.call("GET", `/api/jobs/${third}/compare/previous`);
    expect(json.first.id).toBe(first);
    expect(json.second.id).toBe(third);
    expect(json.comparison.idempotence_judgeable).toBe(true);
    expect(json.comparison.changed_in_both).toEqual([MARKER_TASK]);
  });

  it("is left out of the form's trend", async () => {
    const { status, json } = await api.call("GET", "/api/forms/interrupt-me/trend?last=10");
    expect(status).toBe(200);
    expect(json.completed_runs).toBe(2);
    expect(json.durations.map((d: { id: string }) => Number(d.id))).toEqual([first, third]);
    expect(json.never_idempotent).toEqual([MARKER_TASK]);
    expect(json.hosts).toEqual([{ host: "localhost", runs: 2, failed_runs: 0, failure_rate: 0 }]);
  });
});

describe("an aborted loop", () => {
  it.each(["events", "text"] as const)("counts its item results from its %s as results of the host", async (source) => {
    const { status, json } = await api.call("GET", `/api/jobs/${abortedLoop}/recap?source=${source}`);
    expect(status).toBe(200);
    expect(json.status).toBe("incomplete");
    expect(json.hosts).toEqual([]);
    // The loop is one result of localhost, changed (item 1 reported changed), however many items ran.
    expect(json.partial_hosts).toEqual([
      { host: "localhost", ok: 1, changed: 1, unreachable: 0, failed: 0, skipped: 0, rescued: 0, ignored: 0 },
    ]);
  });
});
