/**
 * The RTE's own HTTP endpoints for its orchestrator: /live (the process answers), /ready
 * (connected to the app and not draining) and /metrics (Prometheus text format, prom-client:
 * the names below under the `playform_` prefix, plus Node's default process metrics). With
 * RTE_METRICS_TOKEN set, /metrics needs `Authorization: Bearer <token>` (the app's check:
 * server/security/bearer.ts); /live and /ready stay open for the orchestrator's probes.
 */
import http from "node:http";
import https from "node:https";
import { Counter, Gauge, Registry, collectDefaultMetrics } from "prom-client";
import type { RteAgent } from "./agent";
import { logger } from "../logging/logger";
import { bearerDigest, bearerMatches } from "../security/bearer";

const PREFIX = "playform_";

/** The RTE's registry: every value is read from the agent at scrape time. */
export function rteMetrics(
  agent: Pick<RteAgent, "connected" | "runningCount" | "spooledItems" | "draining" | "counters">,
  capacity: number,
): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: PREFIX });
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name: `${PREFIX}${name}`,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  gauge("rte_connected", "1 while the socket to the app is open.", () => (agent.connected ? 1 : 0));
  gauge("rte_jobs_running", "Playbooks running now.", () => agent.runningCount);
  gauge("rte_capacity", "Jobs this instance runs at once (RTE_MAX_JOBS).", () => capacity);
  gauge("rte_spool_items", "Items written to the spool and not yet acknowledged by the app.", () => agent.spooledItems);
  gauge("rte_draining", "1 while draining after SIGTERM.", () => (agent.draining ? 1 : 0));
  new Counter({
    name: `${PREFIX}rte_jobs_total`,
    help: "Jobs by outcome since start.",
    labelNames: ["outcome"] as const,
    registers: [registry],
    collect() {
      // The agent counts; the counter shows its totals as they are now.
      this.reset();
      for (const [outcome, n] of Object.entries(agent.counters)) this.inc({ outcome }, n);
    },
  });
  return registry;
}

/**
 * With `tls`, the server is https (an inbound RTE: the app's socket comes over the same
 * server). With `metricsToken`, /metrics answers 401 without that bearer token.
 */
export function startHealthServer(
  agent: Pick<RteAgent, "connected" | "runningCount" | "spooledItems" | "draining" | "counters">,
  port: number,
  capacity: number,
  tls?: { cert: string; key: string },
  metricsToken?: string,
): Promise<http.Server> {
  const registry = rteMetrics(agent, capacity);
  const expected = metricsToken ? bearerDigest(metricsToken) : null;
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = req.url?.split("?")[0];
    if (url === "/live") return send(res, 200, "text/plain", "ok\n");
    if (url === "/ready") {
      const ready = agent.connected && !agent.draining;
      return send(res, ready ? 200 : 503, "text/plain", ready ? "ready\n" : agent.draining ? "draining\n" : "not connected\n");
    }
    if (url === "/metrics") {
      if (expected && !bearerMatches(req.headers.authorization, expected)) {
        const sent = req.headers.authorization ? "a wrong token" : "no Authorization header";
        res.setHeader("www-authenticate", 'Bearer realm="playform-rte-metrics"');
        return send(res, 401, "text/plain", `/metrics needs Authorization: Bearer <RTE_METRICS_TOKEN> (got ${sent})\n`);
      }
      registry.metrics().then(
        (text) => send(res, 200, registry.contentType, text),
        (error: unknown) => {
          logger().error({ err: error }, "collecting metrics failed");
          send(res, 500, "text/plain", "collecting the metrics failed\n");
        },
      );
      return;
    }
    send(res, 404, "text/plain", "not found\n");
  };
  const server: http.Server = tls ? https.createServer({ cert: tls.cert, key: tls.key }, handler) : http.createServer(handler);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, () => resolve(server));
  });
}

function send(res: http.ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
  res.end(body);
}
