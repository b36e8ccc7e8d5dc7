/**
 * GET /metrics of the real app and of its real local RTE, after a job ran: what operators'
 * dashboards read (docs/operations.md, "Metrics", deploy/grafana/playform-dashboard.json), and the
 * optional bearer token in front of the app's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../support/api";
import { adminToken, startPlayform, type RunningPlayform } from "../support/playform";

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (comments skipped, label values unescaped). */
function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key!] = raw!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

function find(samples: Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The value of the one sample with that name and labels. */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = find(samples, name, labels);
  if (found.length !== 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0]!.value;
}

describe("app and RTE /metrics after a job", () => {
  let app: RunningPlayform;
  let jobId: number;

  beforeAll(async () => {
    app = await startPlayform();
    const api = apiClient(app, await adminToken(app));
    jobId = await api.launch("hello-world", { message: "metrics" });
    expect((await api.waitForEnd(jobId, 60_000)).status).toBe("success");
    // A read with the id in its path: labelled by the route's pattern, never by the id.
    await api.get(`/api/jobs/${jobId}/lines?from=1&count=10`);
  }, 90_000);
  afterAll(async () => {
    await app?.stop();
  });

  it("the app's: jobs by status, launch to start, items and lines stored, runners, HTTP by route pattern", async () => {
    const response = await fetch(`${app.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const samples = parseMetrics(await response.text());

    expect(value(samples, "playform_jobs", { status: "success" })).toBeGreaterThanOrEqual(1);
    expect(
      find(samples, "playform_jobs")
        .map((s) => s.labels.status)
        .sort(),
    ).toEqual(["aborted", "abandoned", "approval", "failed", "queued", "rejected", "running", "success"].sort());
    expect(value(samples, "playform_queue_length")).toBe(0);
    expect(value(samples, "playform_queue_oldest_wait_seconds")).toBe(0);
    expect(value(samples, "playform_job_launch_to_start_seconds_count")).toBeGreaterThanOrEqual(1);
    expect(value(samples, "playform_items_stored_total", { kind: "start" })).toBeGreaterThanOrEqual(1);
    expect(value(samples, "playform_items_stored_total", { kind: "end" })).toBeGreaterThanOrEqual(1);
    expect(value(samples, "playform_items_stored_total", { kind: "output" })).toBeGreaterThan(0);
    expect(value(samples, "playform_lines_stored_total")).toBeGreaterThan(0);
    expect(value(samples, "playform_runner_batch_ack_seconds_count")).toBeGreaterThanOrEqual(1);
    expect(value(samples, "playform_runner_instances_connected", { runner: "local" })).toBe(1);
    expect(value(samples, "playform_ui_connections")).toBe(0);
    expect(value(samples, "playform_ui_followers")).toBe(0);
    // Node's default metrics, under the same prefix.
    expect(value(samples, "playform_process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(find(samples, "playform_nodejs_heap_size_used_bytes").length).toBe(1);

    const http = "playform_http_request_duration_seconds_count";
    expect(value(samples, http, { method: "POST", route: "/api/jobs", status: "201" })).toBeGreaterThanOrEqual(1);
    expect(value(samples, http, { method: "GET", route: "/api/jobs/[id]", status: "200" })).toBeGreaterThanOrEqual(1);
    expect(value(samples, http, { method: "GET", route: "/api/jobs/[id]/lines", status: "200" })).toBe(1);
    // Bounded labels: no series names a job (or anything else) by a number of its path.
    const routes = new Set(find(samples, http).map((s) => s.labels.route));
    for (const route of routes) expect(route).not.toMatch(/\d/);
    expect(samples.some((s) => Object.values(s.labels).some((v) => v.includes(`/${jobId}`)))).toBe(false);
  });

  it("the local RTE's: connected, its job counted, default process metrics", async () => {
    const port = /health endpoints on port (\d+)/.exec(app.output())?.[1];
    expect(port, app.output()).toBeDefined();
    const response = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toMatch(/^playform_rte_connected 1$/m);
    const samples = parseMetrics(text);
    expect(value(samples, "playform_rte_jobs_running")).toBe(0);
    expect(value(samples, "playform_rte_capacity")).toBe(4);
    expect(value(samples, "playform_rte_spool_items")).toBe(0);
    expect(value(samples, "playform_rte_draining")).toBe(0);
    expect(value(samples, "playform_rte_jobs_total", { outcome: "claimed" })).toBeGreaterThanOrEqual(1);
    expect(value(samples, "playform_rte_jobs_total", { outcome: "success" })).toBeGreaterThanOrEqual(1);
    expect(value(samples, "playform_process_cpu_user_seconds_total")).toBeGreaterThan(0);
  });
});

describe("PLAYFORM_METRICS_TOKEN", () => {
  const token = "metrics-token-0123456789abcdef";
  let app: RunningPlayform;

  beforeAll(async () => {
    app = await startPlayform({ env: { PLAYFORM_METRICS_TOKEN: token, PLAYFORM_LOCAL_RTE: "false" } });
  }, 60_000);
  afterAll(async () => {
    await app?.stop();
  });

  it("refuses a scrape without the token or with another one, and serves one with it", async () => {
    const bare = await fetch(`${app.url}/metrics`);
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).toMatch(/^Bearer /);
    expect(await bare.text()).toContain("Authorization: Bearer");
    const wrong = await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${token}x` } });
    expect(wrong.status).toBe(401);
    expect((await fetch(`${app.url}/metrics`, { headers: { authorization: `Basic ${token}` } })).status).toBe(401);

    const right = await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(right.status).toBe(200);
    const samples = parseMetrics(await right.text());
    expect(find(samples, "playform_jobs").length).toBe(8);
    expect(find(samples, "playform_runner_instances_connected")).toEqual([]);
    // The refused scrapes are counted like any request, under their own route.
    expect(value(samples, "playform_http_request_duration_seconds_count", { method: "GET", route: "/metrics", status: "401" })).toBe(3);
  });
});
