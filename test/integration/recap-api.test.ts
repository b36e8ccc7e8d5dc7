/**
 * Recap analytics through the API on real runs: the recap of a job from events and from text,
 * run-to-run comparison (idempotence), the trend of a form, and analysing an uploaded log.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/recap");

let app: RunningPlayform;
let api: ApiClient;
let token: string;
const jobIds: number[] = [];

async function runHello(message: string): Promise<number> {
  const job = await api.waitForEnd(await api.launch("hello-world", { message }));
  expect(job.status).toBe("success");
  return job.id as number;
}

beforeAll(async () => {
  app = await startPlayform();
  token = await adminToken(app);
  api = apiClient(app, token);
  jobIds.push(await runHello("first run"), await runHello("second run"));
});
afterAll(async () => {
  await app?.stop();
});

describe("the recap of a job", () => {
  it("comes from the callback plugin's events and agrees with the text", async () => {
    const fromDefault = await api.call("GET", `/api/jobs/${jobIds[1]}/recap`);
    expect(fromDefault.status).toBe(200);
    expect(fromDefault.headers.get("x-recap-source")).toBe("events");
    const events = fromDefault.json;
    const text = (await api.call("GET", `/api/jobs/${jobIds[1]}/recap?source=text`)).json;

    expect(events.hosts).toEqual([{ host: "localhost", ok: 4, changed: 1, unreachable: 0, failed: 0, skipped: 0, rescued: 0, ignored: 0 }]);
    for (const field of ["plays", "hosts", "changed_tasks", "ignored_failures", "failed_tasks", "unreachable_hosts", "status"]) {
      expect(events[field], field).toEqual(text[field]);
    }
    expect(Math.abs(events.elapsed_sec - text.elapsed_sec)).toBeLessThanOrEqual(1);
    expect(events.slowest_tasks.map((t: { task: string }) => t.task).sort()).toEqual(
      text.slowest_tasks.map((t: { task: string }) => t.task).sort(),
    );
    expect(events.changed_tasks).toEqual(["Write the message to a marker file"]);
  });

  it("rejects an unknown source", async () => {
    expect((await api.call("GET", `/api/jobs/${jobIds[0]}/recap?source=magic`)).status).toBe(400);
  });
});

describe("comparing runs", () => {
  it("answers what changed again on the second run", async () => {
    const { status, json } = await api.call("GET", `/api/jobs/${jobIds[1]}/compare/previous`);
    expect(status).toBe(200);
    expect(json.first.id).toBe(jobIds[0]);
    expect(json.second.id).toBe(jobIds[1]);
    expect(json.comparison.changed_in_both).toEqual(["Write the message to a marker file"]);
    expect(json.comparison.idempotence_judgeable).toBe(true);
    expect(json.comparison.changed_only_first).toEqual([]);
    expect(json.comparison.changed_only_second).toEqual([]);
    expect(json.comparison.hosts[0].host).toBe("localhost");
    expect(json.comparison.hosts[0].delta.changed).toBe(0);
    // Both runs have events: their playbook time to the millisecond, not whole seconds.
    const { playbook } = json.comparison;
    expect(playbook.a_sec).toBeGreaterThan(2); // hello-world sleeps 2 s
    expect(playbook.b_sec).toBeGreaterThan(2);
    expect(playbook.delta_sec).toBeCloseTo(playbook.b_sec - playbook.a_sec, 3);
    const recaps = await Promise.all(jobIds.map((id) => api.get(`/api/jobs/${id}/recap`)));
    expect(recaps.map((r) => r.playbook_sec)).toEqual([playbook.a_sec, playbook.b_sec]);
    // The same figure as the timeline's total, which the job page shows as Playbook elapsed.
    expect((await api.get(`/api/jobs/${jobIds[0]}/timeline`)).total_sec).toBe(playbook.a_sec);
  });

  it("compares two given jobs and says when there is no previous run", async () => {
    const direct = await api.call("GET", `/api/jobs/${jobIds[0]}/compare/${jobIds[1]}`);
    expect(direct.status).toBe(200);
    expect(direct.json.first.id).toBe(jobIds[0]);
    expect((await api.call("GET", `/api/jobs/${jobIds[0]}/compare/previous`)).status).toBe(404);
    // The job page's own question: the first run of a form is an answer, not a 404.
    const optional = await api.call("GET", `/api/jobs/${jobIds[0]}/compare/previous?optional=1`);
    expect(optional.status).toBe(200);
    expect(optional.json).toEqual({ previous: null });
    expect((await api.call("GET", `/api/jobs/${jobIds[1]}/compare/previous?optional=1`)).json.first.id).toBe(jobIds[0]);
    expect((await api.call("GET", `/api/jobs/99999/compare/previous?optional=1`)).status).toBe(404);
    expect((await api.call("GET", `/api/jobs/${jobIds[0]}/compare/previous?optional=yes`)).status).toBe(400);
    expect((await api.call("GET", `/api/jobs/${jobIds[0]}/compare/${jobIds[0]}`)).status).toBe(400);
    expect((await api.call("GET", `/api/jobs/${jobIds[0]}/compare/99999`)).status).toBe(404);
  });

  it("shows the trend across the last runs of a form", async () => {
    const { status, json } = await api.call("GET", "/api/forms/hello-world/trend?last=5");
    expect(status).toBe(200);
    expect(json.completed_runs).toBe(2);
    expect(json.never_idempotent).toEqual(["Write the message to a marker file"]);
    expect(json.durations.map((d: { id: string }) => Number(d.id))).toEqual(jobIds);
    expect(json.hosts).toEqual([{ host: "localhost", runs: 2, failed_runs: 0, failure_rate: 0 }]);
    expect((await api.call("GET", "/api/forms/nope/trend")).status).toBe(404);
  });
});

describe("POST /api/recap analyses an uploaded log", () => {
  const cases = fs.readdirSync(FIXTURES).filter((d) => fs.existsSync(path.join(FIXTURES, d, "log.txt")));

  it.each(cases)("%s as a text body", async (name) => {
    const log = fs.readFileSync(path.join(FIXTURES, name, "log.txt"));
    const expected = JSON.parse(fs.readFileSync(path.join(FIXTURES, name, "expected.json"), "utf8"));
    const { status, json } = await api.call("POST", "/api/recap", { body: log, type: "text/plain" });
    expect(status).toBe(200);
    // The fixture's contract, plus the partial_* fields when the log is incomplete (the run stopped before its PLAY RECAP).
    const { partial_hosts, partial_elapsed_sec, partial_slowest_tasks, ...contract } = json;
    expect(contract).toEqual(expected);
    for (const field of [partial_hosts, partial_elapsed_sec, partial_slowest_tasks]) {
      expect(field !== undefined, name).toBe(expected.status === "incomplete");
    }
  });

  it("says what a killed run did before it stopped (partial_*, as on the job page)", async () => {
    const log = fs.readFileSync(path.join(FIXTURES, "killed_sigint/log.txt"));
    const { status, json } = await api.call("POST", "/api/recap", { body: log, type: "text/plain" });
    expect(status).toBe(200);
    expect(json.status).toBe("incomplete");
    expect(json.hosts).toEqual([]);
    expect(json.partial_hosts).toEqual(
      ["node1", "node2"].map((host) => ({ host, ok: 2, changed: 2, unreachable: 0, failed: 0, skipped: 0, rescued: 0, ignored: 0 })),
    );
    expect(json.partial_elapsed_sec).toBe(4);
    expect(json.partial_slowest_tasks).toEqual([
      { task: "Write maintenance flag", seconds: 2.87 },
      { task: "Quick check", seconds: 1.46 },
    ]);
  });

  it("refuses a body that is not text with 415, saying what it takes", async () => {
    const answer = await api.call("POST", "/api/recap", { json: { log: "PLAY RECAP" } });
    expect(answer.status).toBe(415);
    expect(answer.json.error.message).toBe(
      "send the log as text (text/plain or another text/ type), application/octet-stream or a multipart/form-data field `log`, not application/json",
    );
  });

  it("takes a multipart upload", async () => {
    const form = new FormData();
    form.set("log", new Blob([fs.readFileSync(path.join(FIXTURES, "failed_host/log.txt"))]), "ansible.log");
    const { status, json } = await api.call("POST", "/api/recap", { body: form });
    expect(status).toBe(200);
    expect(json.status).toBe("failed");
    expect(json.failed_tasks).toEqual(["Check free space"]);
  });

  it("refuses a log announced as larger than 512 MiB with 413, without waiting for it", async () => {
    const limit = 512 * 1024 * 1024;
    // One byte over the limit is announced; only the first line is ever sent. The answer must
    // come from the announced length alone, or it would never come.
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.request(`${app.url}/api/recap`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "text/plain", "content-length": String(limit + 1) },
      });
      const timer = setTimeout(() => {
        request.destroy();
        reject(new Error("no answer within 30 s: the server waits for the announced body instead of refusing it"));
      }, 30_000);
      request.on("response", (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (body += chunk));
        response.on("end", () => {
          clearTimeout(timer);
          request.destroy();
          resolve({ status: response.statusCode!, body });
        });
      });
      request.on("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
      request.write("PLAY [a log too large to read] ***\n");
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ error: { code: "payload_too_large", message: `log is larger than ${limit} bytes` } });
  });

  it("refuses an empty body, a multipart body without a file, and no credentials", async () => {
    const empty = await api.call("POST", "/api/recap", { body: "", type: "text/plain" });
    expect(empty.status).toBe(400);
    expect(empty.json.error.message).toMatch(/empty/);
    const form = new FormData();
    form.set("other", "x");
    const noFile = await api.call("POST", "/api/recap", { body: form });
    expect(noFile.status).toBe(400);
    expect(noFile.json.error.message).toMatch(/log/);
    expect((await api.call("POST", "/api/recap", { body: "x", type: "text/plain", auth: false })).status).toBe(401);
  });
});
