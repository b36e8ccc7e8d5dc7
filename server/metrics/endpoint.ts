/**
 * GET /metrics on the app: the Prometheus text of this node's registry, answered by the
 * custom server before Next sees the request (server/api/http-entry.ts, `ownRoutes`).
 *
 * With PLAYFORM_METRICS_TOKEN set it needs `Authorization: Bearer <token>` (compared in
 * constant time; anything else is a 401 saying what is expected). Without it the endpoint is
 * open: then it must be reachable only from inside the cluster (the scraper), not through the
 * public ingress.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AppMetrics } from "./app-metrics";
import { loggerFor } from "../logging/logger";
import { bearerDigest, bearerMatches } from "../security/bearer";

export { bearerMatches };

const log = loggerFor({ component: "metrics" });

export const METRICS_PATH = "/metrics";

function answer(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    "content-type": "text/plain; charset=utf-8",
    "content-length": String(Buffer.byteLength(body)),
    "cache-control": "no-store",
    ...headers,
  });
  res.end(body);
}

export function metricsEndpoint(metrics: AppMetrics, token: string | undefined): (req: IncomingMessage, res: ServerResponse) => void {
  const expected = token ? bearerDigest(token) : null;
  return (req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      return answer(res, 405, `${req.method ?? "?"} ${METRICS_PATH}: only GET and HEAD\n`, { allow: "GET, HEAD" });
    }
    if (expected && !bearerMatches(req.headers.authorization, expected)) {
      const sent = req.headers.authorization ? "a wrong token" : "no Authorization header";
      return answer(res, 401, `${METRICS_PATH} needs Authorization: Bearer <PLAYFORM_METRICS_TOKEN> (got ${sent})\n`, {
        "www-authenticate": 'Bearer realm="playform-metrics"',
      });
    }
    metrics.scrape().then(
      ({ contentType, body }) => {
        res.writeHead(200, { "content-type": contentType, "content-length": String(Buffer.byteLength(body)), "cache-control": "no-store" });
        res.end(req.method === "HEAD" ? undefined : body);
      },
      (error: unknown) => {
        log().error({ err: error }, "scrape failed");
        answer(res, 500, "collecting the metrics failed; see the server log\n");
      },
    );
  };
}
