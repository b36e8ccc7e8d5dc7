/**
 * The app's /metrics endpoint in-process: the bearer token check, PLAYFORM_METRICS_TOKEN's
 * parsing, and what a scrape shows of the sources it is given (the real app: see
 * test/integration/metrics.test.ts).
 */
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { loadAppConfig } from "../../server/config";
import { AppMetrics } from "../../server/metrics/app-metrics";
import { bearerMatches, metricsEndpoint } from "../../server/metrics/endpoint";

const TOKEN = "0123456789abcdef-metrics";
const servers: http.Server[] = [];

afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function serve(metrics: AppMetrics, token: string | undefined): Promise<string> {
  const server = http.createServer(metricsEndpoint(metrics, token));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
}

describe("bearerMatches", () => {
  const expected = createHash("sha256").update(TOKEN).digest();
  it.each([
    [`Bearer ${TOKEN}`, true],
    [`bearer ${TOKEN}`, true],
    [`Bearer  ${TOKEN} `, true],
    [`Bearer ${TOKEN}x`, false],
    [`Bearer ${TOKEN.slice(1)}`, false],
    [`Basic ${TOKEN}`, false],
    [TOKEN, false],
    ["Bearer ", false],
    ["", false],
    [undefined, false],
  ])("%s -> %s", (header, ok) => {
    expect(bearerMatches(header, expected)).toBe(ok);
  });
});

describe("PLAYFORM_METRICS_TOKEN", () => {
  it("is optional, trimmed, empty means unset, and a short one is refused by name", () => {
    expect(loadAppConfig({}).PLAYFORM_METRICS_TOKEN).toBeUndefined();
    expect(loadAppConfig({ PLAYFORM_METRICS_TOKEN: "" }).PLAYFORM_METRICS_TOKEN).toBeUndefined();
    expect(loadAppConfig({ PLAYFORM_METRICS_TOKEN: `${TOKEN}\n` }).PLAYFORM_METRICS_TOKEN).toBe(TOKEN);
    expect(() => loadAppConfig({ PLAYFORM_METRICS_TOKEN: "short" })).toThrow(/PLAYFORM_METRICS_TOKEN: must be at least 16 characters/);
  });
});

describe("GET /metrics", () => {
  it("with a token: 401 saying what is expected without it, the registry's text with it", async () => {
    const url = await serve(new AppMetrics(), TOKEN);
    const refused = await fetch(url);
    expect(refused.status).toBe(401);
    expect(await refused.text()).toMatch(/needs Authorization: Bearer <PLAYFORM_METRICS_TOKEN>/);
    const served = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(served.status).toBe(200);
    expect(await served.text()).toMatch(/^playform_process_cpu_user_seconds_total /m);
    expect((await fetch(url, { method: "POST", headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(405);
  });

  it("reads its sources at scrape time, and shows no job counts when the database read fails (prom-client writes NaN as Nan)", async () => {
    const metrics = new AppMetrics();
    const url = await serve(metrics, undefined);
    let fail = false;
    metrics.setSources({
      jobs: async () => {
        if (fail) throw new Error("database down");
        return { byStatus: { queued: 2, success: 5 }, oldestQueuedAt: new Date(Date.now() - 90_000) };
      },
      runnerInstances: () => new Map([["local", 1]]),
      ui: () => ({ connections: 3, followers: 4 }),
    });
    metrics.observeStored([{ kind: "output", lineCount: 7 }, { kind: "output", lineCount: 3 }, { kind: "end" }]);
    metrics.observeHttpRequest("BREW", metrics.routeOf("/api/jobs/17/log"), 200, 0.01);

    const text = await (await fetch(url)).text();
    expect(text).toMatch(/^playform_jobs\{status="success"\} 5$/m);
    expect(text).toMatch(/^playform_queue_length 2$/m);
    expect(Number(/^playform_queue_oldest_wait_seconds (\S+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(90);
    expect(text).toMatch(/^playform_runner_instances_connected\{runner="local"\} 1$/m);
    expect(text).toMatch(/^playform_ui_connections 3$/m);
    expect(text).toMatch(/^playform_ui_followers 4$/m);
    expect(text).toMatch(/^playform_items_stored_total\{kind="output"\} 2$/m);
    expect(text).toMatch(/^playform_lines_stored_total 10$/m);
    expect(text).toMatch(
      /^playform_http_request_duration_seconds_count\{method="other",route="\/api\/jobs\/\[id\]\/log",status="200"\} 1$/m,
    );

    fail = true;
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // past the shared read of one scrape
    const degraded = await fetch(url);
    expect(degraded.status).toBe(200);
    const rest = await degraded.text();
    expect(rest).not.toMatch(/^playform_jobs\{/m);
    expect(rest).toMatch(/^playform_queue_length nan$/im);
    expect(rest).toMatch(/^playform_queue_oldest_wait_seconds nan$/im);
    expect(rest).toMatch(/^playform_ui_followers 4$/m);
  });
});
