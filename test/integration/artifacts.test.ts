/**
 * What a playbook hands back (issue 22 section 3): set_stats data is the job's artifacts,
 * through the real app, its local RTE, ansible-playbook and the callback plugin: the run's data
 * aggregated as Ansible aggregates it, per-host data apart, a secret among them masked, and
 * data over the 1 MiB cap refused with a reason instead of stored. And the report across
 * runs of the form (issue 22 section 2): tasks, hosts and artifacts side by side, in the
 * order asked, as JSON, Markdown and CSV, and what it refuses.
 */
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let api: ApiClient;
const TOKEN = "artifact-token-5f4e3d2c1b";
/** The jobs of the first two tests, for the report. */
const ran = { plain: 0, over: 0 };

beforeAll(async () => {
  app = await startPlayform({ env: { PLAYFORM_FORMS_DIR: path.resolve(import.meta.dirname, "../fixtures/forms-artifacts") } });
  api = apiClient(app, await adminToken(app));
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

/** A download (Markdown, CSV): its text and headers, after a 200. */
async function download(url: string): Promise<{ text: string; headers: Headers }> {
  const response = await fetch(`${app.url}${url}`, { headers: { authorization: `Bearer ${await adminToken(app)}` } });
  expect(response.status).toBe(200);
  return { text: await response.text(), headers: response.headers };
}

it("keeps the run's set_stats data, aggregated, per-host data apart, and masks a secret in it", async () => {
  const job = await api.waitForEnd(await api.launch("artifacts", { api_token: TOKEN }));
  expect(job.status).toBe("success");
  ran.plain = job.id;
  const answer = await api.get(`/api/jobs/${job.id}/artifacts`);
  expect(answer).toEqual({
    artifacts: { cluster_id: "c-123", nodes: 3, nodes_ready: ["node1", "node2"], token: "********" },
    hosts: { localhost: { host_uid: 1000 } },
    error: null,
  });
  expect(JSON.stringify(answer)).not.toContain(TOKEN);
});

it("refuses set_stats data over 1 MiB with a reason, and the job still succeeds", async () => {
  const job = await api.waitForEnd(await api.launch("artifacts", { api_token: TOKEN, big_kb: 1100 }));
  expect(job.status).toBe("success");
  ran.over = job.id;
  const answer = await api.get(`/api/jobs/${job.id}/artifacts`);
  expect(answer.artifacts).toEqual({});
  expect(answer.error).toMatch(/^set_stats data of \d+ bytes is over the 1048576-byte cap \(1 MiB\): not kept$/);
});

it("reports runs side by side in the order asked: tasks changed and their time, hosts, artifacts; as JSON, Markdown and CSV; a comparison lists the results that differ", async () => {
  const launched = await api.call("POST", "/api/jobs", {
    json: { form: "artifacts", values: { api_token: TOKEN, change: true }, options: { tags: ["change"] } },
  });
  expect(launched.status, JSON.stringify(launched.json)).toBe(201);
  const tagged = await api.waitForEnd(launched.json.id as number);
  expect(tagged.status).toBe("success");
  const ids = [tagged.id, ran.plain, ran.over];
  const report = await api.get(`/api/forms/artifacts/report?jobs=${ids.join(",")}`);

  expect(report.form).toBe("artifacts");
  expect(report.jobs.map((j: { id: number }) => j.id)).toEqual(ids);
  expect(report.jobs[0].options).toMatchObject({ tags: ["change"], check: false });
  expect(report.jobs[1].options).toMatchObject({ tags: [], check: false });
  expect(report.jobs.map((j: { run: string }) => j.run)).toEqual([
    "--tags change, environment default",
    "full run, environment default",
    "full run, environment default",
  ]);
  for (const job of report.jobs) expect(job.playbook_sec).toBeGreaterThan(0);

  const task = (name: string) => report.tasks.find((t: { task: string }) => t.task === name);
  // Changed only in the run that asked for it; the tagged run ran nothing else (null).
  expect(task("Maybe change")).toMatchObject({ play: "Hand results back", changed: [true, false, false] });
  expect(task("The cluster").changed).toEqual([null, false, false]);
  // Skipped (when: false) in the first full run: it did not run there.
  expect(task("Too much").changed).toEqual([null, null, false]);
  for (const [i, sec] of task("Maybe change").sec.entries()) expect(sec, `run ${ids[i]}`).toBeGreaterThanOrEqual(0);
  expect(task("The cluster").sec[0]).toBeNull();

  expect(report.hosts).toEqual([
    {
      host: "localhost",
      runs: [
        { ok: 1, changed: 1, unreachable: 0, failed: 0, skipped: 0, rescued: 0, ignored: 0 },
        { ok: 5, changed: 0, unreachable: 0, failed: 0, skipped: 1, rescued: 0, ignored: 0 },
        { ok: 6, changed: 0, unreachable: 0, failed: 0, skipped: 0, rescued: 0, ignored: 0 },
      ],
    },
  ]);
  // The run's set_stats data, masked; the data over the cap was not kept (null).
  expect(report.artifacts).toEqual([
    { key: "cluster_id", values: [null, "c-123", null] },
    { key: "nodes", values: [null, 3, null] },
    { key: "nodes_ready", values: [null, ["node1", "node2"], null] },
    { key: "token", values: [null, "********", null] },
  ]);
  expect(JSON.stringify(report)).not.toContain(TOKEN);

  // A comparison lists the results that differ: the tagged run set none; the run over the cap is not known.
  const compared = await api.get(`/api/jobs/${ran.plain}/compare/${tagged.id}`);
  expect(compared.artifacts).toEqual([
    { key: "cluster_id", first: "c-123", second: null },
    { key: "nodes", first: 3, second: null },
    { key: "nodes_ready", first: ["node1", "node2"], second: null },
    { key: "token", first: "********", second: null },
  ]);
  expect((await api.get(`/api/jobs/${ran.plain}/compare/${ran.over}`)).artifacts).toBeNull();

  const md = await download(`/api/forms/artifacts/report?jobs=${ids.join(",")}&format=md`);
  expect(md.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
  expect(md.headers.get("content-disposition")).toBe(`attachment; filename="artifacts-report-${ids.join("-")}.md"`);
  expect(md.text).toContain(`| Run | #${ids[0]} | #${ids[1]} | #${ids[2]} |`);
  expect(md.text).toContain("| run | --tags change, environment default | full run, environment default | full run, environment default |");
  expect(md.text).toMatch(/\| Hand results back \| Maybe change \| \*\*changed\*\* [\d.]+ s \| ok [\d.]+ s \| ok [\d.]+ s \|/);
  expect(md.text).toContain('| token | – | `"********"` | – |');
  expect(md.text).not.toContain(TOKEN);

  const csv = await download(`/api/forms/artifacts/report?jobs=${ids.join(",")}&format=csv`);
  expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  const rows = csv.text.split("\r\n");
  expect(rows[0]).toBe(`section,play,name,field,job_${ids[0]},job_${ids[1]},job_${ids[2]}`);
  expect(rows).toContain("task,Hand results back,Maybe change,changed,true,false,false");
  expect(rows).toContain("host,,localhost,changed,1,0,0");
  expect(rows).toContain('artifact,,cluster_id,value,,"""c-123""",');
});

it("refuses a report of one run, of a job of another form, of an unknown job, and a malformed list, saying which", async () => {
  const other = await api.waitForEnd(await api.launch("other"));
  const ask = async (jobs: string) => api.call("GET", `/api/forms/artifacts/report?jobs=${jobs}`);
  const one = await ask(String(ran.plain));
  expect(one.status).toBe(400);
  expect(one.json.error.message).toBe("jobs: give 2 to 20 jobs, not 1");
  const foreign = await ask(`${ran.plain},${other.id}`);
  expect(foreign.status).toBe(400);
  expect(foreign.json.error.message).toBe(`jobs: job ${other.id} is a run of form "other", not of "artifacts"`);
  expect((await ask(`${ran.plain},99999999`)).status).toBe(404);
  expect((await ask(`${ran.plain},99999999999`)).json.error.message).toBe(
    'jobs: "99999999999" is not a job id (decimal digits, from 1 to 2147483647)',
  );
  const twice = await ask(`${ran.plain},${ran.plain}`);
  expect(twice.json.error.message).toBe(`jobs: job ${ran.plain} is named twice`);
  const bad = await ask(`${ran.plain},abc`);
  expect(bad.status).toBe(400);
  expect(bad.json.error.message).toBe('jobs: "abc" is not a job id (decimal digits, from 1 to 2147483647)');
  const missing = await api.call("GET", "/api/forms/artifacts/report");
  expect(missing.status).toBe(400);
  expect(missing.json.error.message).toMatch(/^jobs: /);
});
