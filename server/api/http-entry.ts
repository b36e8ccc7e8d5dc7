/**
 * The custom server's HTTP entry: what happens to every request before Next sees it.
 *
 * - The client's address is resolved from the socket (and X-Forwarded-For behind trusted
 *   proxies) and passed on in `x-playform-client-ip`, replacing any copy the client sent
 *   (see client-address.ts: route handlers have no socket).
 * - An API path that is not in canonical form is answered here with the JSON 404 of the one
 *   error shape: encoded dots, slashes or backslashes (`%2e%2e`, `%2f`), `.` and `..`
 *   segments, empty segments, control characters, malformed percent-encoding. Next would
 *   normalise such a path, redirect it or resolve it outside /api (`/api/%2e%2e/login` is the
 *   login page) and answer with HTML; no API client means any of them.
 * - A method an API route has no handler for is answered here with a JSON 405 naming the
 *   methods it has, and `Allow` (server/api/methods.ts): Next's own 405 has an empty body.
 * - A state-changing API request from another site's page, without a bearer token, is refused
 *   here with a JSON 403 (server/auth/cross-site.ts): every route, the login included.
 * - A response that ends before its request body was read (a body refused for its size or
 *   type) gets the rest of the body drained for a short while, then the connection is closed,
 *   so the client reads the answer and a refused upload holds neither memory nor the socket.
 * - Paths the custom server answers itself (`ownRoutes`: /metrics) never reach Next.
 * - Every request's duration goes to the HTTP histogram of the metrics, labelled by its
 *   Next.js route pattern (server/metrics/route-pattern.ts), never by its raw path.
 * - Every request has a request id: the client's `X-Request-Id` when it is sane (1 to 128
 *   characters of letters, digits and `-_.:/+=`), else a new one. It is sent back in
 *   `X-Request-Id`, and every log line written while the request is served carries it as
 *   `reqId` (AsyncLocalStorage, server/logging). An API request writes one access line at
 *   debug level: method, route pattern, status, milliseconds; never its query string or headers.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { CLIENT_ADDRESS_HEADER, resolveClientAddress } from "./client-address";
import { withAuditOrigin } from "../audit/origin";
import { errorBody } from "./errors";
import { methodRefusal, type MethodRefusal } from "./methods";
import { crossSiteRefusal } from "../auth/cross-site";
import { appMetrics } from "../metrics/app-metrics";
import { loggerFor, withLogContext } from "../logging/logger";

const log = loggerFor({ component: "http" });

export const REQUEST_ID_HEADER = "x-request-id";
const SANE_REQUEST_ID = /^[A-Za-z0-9._:/+=-]{1,128}$/;

/** The client's request id when it is sane, else a new one. */
export function requestId(sent: string | string[] | undefined): string {
  const value = Array.isArray(sent) ? sent[0] : sent;
  return value !== undefined && SANE_REQUEST_ID.test(value) ? value : randomUUID();
}

/**
 * How long, and how much of, the rest of a refused body is read and discarded before the
 * connection is closed. A client still sending when the socket closes sees EPIPE or a reset
 * instead of the answer (fetch fails without a status): twenty 50 MiB uploads at once on a
 * busy 2-core machine took longer than 2 s to drain. Bounded both ways, so a slow or endless
 * upload holds a socket for at most DRAIN_MS.
 */
const DRAIN_MS = 10_000;
const DRAIN_MAX_BYTES = 256 * 1024 * 1024;

export interface HttpEntryOptions {
  /** Reverse proxies in front of the app whose X-Forwarded-For is believed (PLAYFORM_TRUST_PROXY). */
  trustedProxies: number;
  /** Origins of the app besides its Host (PLAYFORM_ALLOWED_ORIGINS), for the cross-site check. */
  allowedOrigins?: readonly string[];
  /** Exact paths answered here instead of by Next (its own label in the HTTP metrics). */
  ownRoutes?: Readonly<Record<string, (req: IncomingMessage, res: ServerResponse) => void>>;
}

/**
 * The path of a request target (`/api/jobs/1?after=3` → `/api/jobs/1`), as sent: not decoded,
 * not normalised. An absolute target (`http://host/api/...`) is cut to its path.
 */
function rawPath(url: string): string {
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(url);
  const target = origin ? url.slice(origin[0].length) || "/" : url;
  const end = target.search(/[?#]/);
  return end < 0 ? target : target.slice(0, end);
}

/** `/api`, `/api/…`, and `/api` followed by an encoded or backward slash. */
export function isApiPath(path: string): boolean {
  return path.startsWith("/api") && /^(?:$|\/|\\|%2f|%5c)/i.test(path.slice(4));
}

/** True for an API path in canonical form: plain segments only (a trailing slash is left to Next's redirect). */
export function isCanonicalApiPath(path: string): boolean {
  // Encoded dot, slash, backslash; control characters (NUL reaches PostgreSQL as an error); a raw backslash.
  if (/%(?:2e|2f|5c|[01][0-9a-f]|7f)|\\/i.test(path)) return false;
  const segments = path.split("/").slice(1);
  for (const [index, segment] of segments.entries()) {
    if (segment === "." || segment === "..") return false;
    if (segment === "" && index < segments.length - 1) return false;
    try {
      decodeURIComponent(segment);
    } catch {
      return false;
    }
  }
  return true;
}

function answerNotFound(res: ServerResponse, path: string): void {
  const shown = path.length > 200 ? `${path.slice(0, 200)}…` : path;
  const body = JSON.stringify(errorBody("not_found", `no API endpoint at ${shown}`));
  res.writeHead(404, { "content-type": "application/json", "content-length": Buffer.byteLength(body), "cache-control": "no-store" });
  res.end(body);
}

function answerMethodNotAllowed(res: ServerResponse, method: string, refusal: MethodRefusal): void {
  const body = JSON.stringify(
    errorBody("method_not_allowed", `${method} is not allowed on ${refusal.route}: use ${refusal.handled.join(" or ")}`),
  );
  res.writeHead(405, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
    allow: refusal.allow,
  });
  res.end(body);
}

function answerCrossSite(res: ServerResponse, message: string): void {
  const body = JSON.stringify(errorBody("forbidden", message));
  res.writeHead(403, { "content-type": "application/json", "content-length": Buffer.byteLength(body), "cache-control": "no-store" });
  res.end(body);
}

/**
 * After a response that left the request body unread: discard the rest, for at most DRAIN_MS
 * and DRAIN_MAX_BYTES, then close.
 */
function drainRefusedBody(req: IncomingMessage): void {
  if (req.complete || req.destroyed) return;
  const timer = setTimeout(() => req.socket.destroy(), DRAIN_MS);
  timer.unref();
  req.once("end", () => clearTimeout(timer));
  req.once("close", () => clearTimeout(timer));
  let discarded = 0;
  // Whoever stopped reading may still hold a 'readable' listener, which keeps the stream from
  // flowing; a 'data' listener makes it flow again once that one is gone.
  req.removeAllListeners("readable");
  req.on("data", (chunk: Buffer) => {
    discarded += chunk.byteLength;
    if (discarded > DRAIN_MAX_BYTES) req.socket.destroy();
  });
  req.resume();
}

/** Wraps Next's request handler with the steps above. */
export function httpEntry(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  options: HttpEntryOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const metrics = appMetrics();
  return (req, res) => {
    const arrived = process.hrtime.bigint();
    delete req.headers[CLIENT_ADDRESS_HEADER];
    const ip = resolveClientAddress(req.socket.remoteAddress, req.headers["x-forwarded-for"], options.trustedProxies);
    req.headers[CLIENT_ADDRESS_HEADER] = ip;
    const reqId = requestId(req.headers[REQUEST_ID_HEADER]);
    req.headers[REQUEST_ID_HEADER] = reqId;
    res.setHeader(REQUEST_ID_HEADER, reqId);
    const path = rawPath(req.url ?? "/");
    const own = Object.hasOwn(options.ownRoutes ?? {}, path) ? options.ownRoutes![path] : undefined;
    res.once("finish", () => {
      drainRefusedBody(req);
      const seconds = Number(process.hrtime.bigint() - arrived) / 1e9;
      const route = own ? path : metrics.routeOf(path);
      metrics.observeHttpRequest(req.method, route, res.statusCode, seconds);
      if (isApiPath(path)) {
        const ms = Math.round(seconds * 10_000) / 10;
        log().debug({ reqId, method: req.method, route, status: res.statusCode, ms }, `${req.method} ${route} ${res.statusCode} ${ms}ms`);
      }
    });
    const origin = { ip, userAgent: req.headers["user-agent"] ?? null };
    withLogContext({ reqId }, () =>
      withAuditOrigin(origin, () => {
        if (own) return own(req, res);
        if (isApiPath(path) && !isCanonicalApiPath(path)) return answerNotFound(res, path);
        const refusal = isApiPath(path) ? methodRefusal(path, req.method ?? "GET") : null;
        if (refusal) return answerMethodNotAllowed(res, req.method ?? "GET", refusal);
        const crossSite = isApiPath(path) ? crossSiteRefusal(req.method ?? "GET", req.headers, options) : null;
        if (crossSite) return answerCrossSite(res, crossSite);
        void handle(req, res);
      }),
    );
  };
}
