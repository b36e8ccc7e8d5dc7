/**
 * The RTE's own HTTP endpoints for its orchestrator: /live (the process answers), /ready
 * (connected to the app and not draining) and /metrics (Prometheus text format).
 */
import http from "node:http";
import type { RteAgent } from "./agent";

export function startHealthServer(agent: RteAgent, port: number, capacity: number): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const url = req.url?.split("?")[0];
    if (url === "/live") return send(res, 200, "text/plain", "ok\n");
    if (url === "/ready") {
      const ready = agent.connected && !agent.draining;
      return send(res, ready ? 200 : 503, "text/plain", ready ? "ready\n" : agent.draining ? "draining\n" : "not connected\n");
    }
    if (url === "/metrics") {
      const lines = [
        "# HELP playform_rte_connected 1 while the socket to the app is open.",
        "# TYPE playform_rte_connected gauge",
        `playform_rte_connected ${agent.connected ? 1 : 0}`,
        "# HELP playform_rte_jobs_running Playbooks running now.",
        "# TYPE playform_rte_jobs_running gauge",
        `playform_rte_jobs_running ${agent.runningCount}`,
        "# HELP playform_rte_capacity Jobs this instance runs at once (RTE_MAX_JOBS).",
        "# TYPE playform_rte_capacity gauge",
        `playform_rte_capacity ${capacity}`,
        "# HELP playform_rte_spool_items Items written to the spool and not yet acknowledged by the app.",
        "# TYPE playform_rte_spool_items gauge",
        `playform_rte_spool_items ${agent.spooledItems}`,
        "# HELP playform_rte_draining 1 while draining after SIGTERM.",
        "# TYPE playform_rte_draining gauge",
        `playform_rte_draining ${agent.draining ? 1 : 0}`,
        "# HELP playform_rte_jobs_total Jobs by outcome since start.",
        "# TYPE playform_rte_jobs_total counter",
        ...Object.entries(agent.counters).map(([outcome, n]) => `playform_rte_jobs_total{outcome="${outcome}"} ${n}`),
      ];
      return send(res, 200, "text/plain; version=0.0.4", lines.join("\n") + "\n");
    }
    send(res, 404, "text/plain", "not found\n");
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, () => resolve(server));
  });
}

function send(res: http.ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
  res.end(body);
}
