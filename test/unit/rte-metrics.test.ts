/**
 * The RTE's health server in-process: /metrics behind RTE_METRICS_TOKEN (the app's bearer
 * check, server/security/bearer.ts), /live and /ready open whatever the token, and the
 * variable's parsing.
 */
import type http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { loadRteEnv } from "../../server/rte/env";
import { startHealthServer } from "../../server/rte/health";

const TOKEN = "0123456789abcdef-rte-metrics";
const servers: http.Server[] = [];

afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

const agent = {
  connected: true,
  runningCount: 2,
  spooledItems: 0,
  draining: false,
  counters: { claimed: 3, refused: 0, success: 3, failed: 0, aborted: 0 },
};

async function serve(token: string | undefined): Promise<string> {
  const server = await startHealthServer(agent, 0, 4, undefined, token);
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("the RTE's /metrics", () => {
  it("with RTE_METRICS_TOKEN: 401 without the token or with another, the registry's text with it", async () => {
    const base = await serve(TOKEN);
    const none = await fetch(`${base}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer /);
    expect(await none.text()).toBe("/metrics needs Authorization: Bearer <RTE_METRICS_TOKEN> (got no Authorization header)\n");

    const wrong = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toMatch(/got a wrong token/);

    const ok = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    const text = await ok.text();
    expect(text).toMatch(/^playform_rte_jobs_running 2$/m);
    expect(text).toMatch(/^playform_rte_capacity 4$/m);
    expect(text).toMatch(/^playform_rte_jobs_total\{outcome="success"\} 3$/m);
  });

  it("keeps /live and /ready open for the orchestrator's probes", async () => {
    const base = await serve(TOKEN);
    expect((await fetch(`${base}/live`)).status).toBe(200);
    expect((await fetch(`${base}/ready`)).status).toBe(200);
  });

  it("without a token: open, as before", async () => {
    const base = await serve(undefined);
    const answer = await fetch(`${base}/metrics`);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toMatch(/^playform_rte_connected 1$/m);
  });
});

describe("RTE_METRICS_TOKEN", () => {
  const env = (vars: Record<string, string>) => loadRteEnv({ RTE_TOKEN: "pfr_abc", ...vars });
  it("is optional, trimmed, empty means unset, and a short one is refused by name", () => {
    expect(env({}).RTE_METRICS_TOKEN).toBeUndefined();
    expect(env({ RTE_METRICS_TOKEN: " \n" }).RTE_METRICS_TOKEN).toBeUndefined();
    expect(env({ RTE_METRICS_TOKEN: `${TOKEN}\n` }).RTE_METRICS_TOKEN).toBe(TOKEN);
    expect(() => env({ RTE_METRICS_TOKEN: "short" })).toThrow(/RTE_METRICS_TOKEN: must be at least 16 characters/);
  });
});
