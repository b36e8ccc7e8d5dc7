/**
 * Cross-site request protection (CSRF, login CSRF, cross-site WebSocket hijacking).
 *
 * The session cookie is an ambient credential: a browser sends it with requests that another
 * site's page makes. SameSite=Lax already keeps it off cross-site POSTs from modern browsers;
 * this check does not rely on that. A state-changing API request (POST, PUT, PATCH, DELETE) that
 * does not carry `Authorization: Bearer …` is refused when the browser says it comes from
 * another site:
 *
 * - `Sec-Fetch-Site: cross-site`, or
 * - an `Origin` that is not the app's own (`null` included), or
 * - without `Origin`, a `Referer` whose origin is not the app's own (OWASP's fallback).
 *
 * Browsers send `Origin` with every POST, PUT, PATCH and DELETE, so a request with neither
 * `Origin` nor `Referer` nor `Sec-Fetch-Site` comes from a non-browser client (curl, a script),
 * which has no ambient credential to abuse: it passes. Bearer requests pass whatever their
 * Origin: the token is never sent by a browser on its own. The login is covered like every
 * other request (login CSRF), whether or not a cookie comes with it.
 *
 * The app's own origin is the request's host (`Host`, or the first `X-Forwarded-Host` when the
 * app trusts proxies, PLAYFORM_TRUST_PROXY) plus any origin listed in PLAYFORM_ALLOWED_ORIGINS
 * (for a proxy that rewrites `Host` and cannot be trusted to forward it). The scheme is not
 * compared: a TLS terminator makes an https page talk to an http app.
 */

type Headers = Readonly<Record<string, string | string[] | undefined>>;

export const STATE_CHANGING_METHODS: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export interface SameOriginOptions {
  /** Reverse proxies trusted (PLAYFORM_TRUST_PROXY): their X-Forwarded-Host names the app. */
  trustedProxies: number;
  /** Extra origins of the app (PLAYFORM_ALLOWED_ORIGINS), as `scheme://host[:port]`. */
  allowedOrigins?: readonly string[];
}

function first(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text?.trim() || undefined;
}

/** `host[:port]` of an origin, with the scheme's default port left out; null when it is not one. */
function originHost(origin: string): string | null {
  try {
    const url = new URL(origin);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    return url.host.toLowerCase();
  } catch {
    return null;
  }
}

/** Whether `host[:port]` of the origin names the same host as a Host header (whose port, when left out, is the origin's). */
function sameHost(originHostPort: string, hostHeader: string): boolean {
  const host = hostHeader.toLowerCase();
  if (host === originHostPort) return true;
  // "app:80" against http://app, "app:443" against https://app: a default port written out.
  const withoutDefault = host.replace(/:(80|443)$/, "");
  return withoutDefault === originHostPort;
}

/** Whether an Origin (or a Referer's origin) is the app's own. */
export function isOwnOrigin(origin: string, headers: Headers, options: SameOriginOptions): boolean {
  const host = originHost(origin);
  if (host === null) return false;
  const own = [first(headers.host)];
  if (options.trustedProxies > 0) own.push(first(headers["x-forwarded-host"])?.split(",")[0]?.trim());
  if (own.some((candidate) => candidate !== undefined && sameHost(host, candidate))) return true;
  return (options.allowedOrigins ?? []).some((allowed) => originHost(allowed) === host);
}

/**
 * Why a request is refused as cross-site, or null when it may go on. `headers` as Node has
 * them (lower-case names): an HTTP request's or a socket.io handshake's.
 */
export function crossSiteRefusal(method: string, headers: Headers, options: SameOriginOptions): string | null {
  if (!STATE_CHANGING_METHODS.has(method.toUpperCase())) return null;
  if (first(headers.authorization)?.toLowerCase().startsWith("bearer ")) return null;
  const foreign = foreignOrigin(headers, options);
  return (
    foreign &&
    `cross-site request refused: it changes state and came from another site's page (${foreign}); scripts send Authorization: Bearer TOKEN`
  );
}

/** What shows that a request comes from another site (`Origin https://evil.example`), or null (same origin, or no browser hint at all). */
export function foreignOrigin(headers: Headers, options: SameOriginOptions): string | null {
  if (first(headers["sec-fetch-site"])?.toLowerCase() === "cross-site") return "Sec-Fetch-Site: cross-site";
  const origin = first(headers.origin);
  if (origin !== undefined) return isOwnOrigin(origin, headers, options) ? null : `Origin ${origin.slice(0, 200)}`;
  const referer = first(headers.referer);
  if (referer !== undefined) return isOwnOrigin(referer, headers, options) ? null : "Referer of another origin";
  return null;
}

/** PLAYFORM_ALLOWED_ORIGINS: comma-separated origins (`https://playform.example.com`); throws on anything else. */
export function parseAllowedOrigins(value: string | undefined): string[] {
  const entries = (value ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    if (originHost(entry) === null || new URL(entry).origin !== entry.replace(/\/$/, "")) {
      throw new Error(`invalid configuration:\n  PLAYFORM_ALLOWED_ORIGINS: "${entry}" is not an origin like https://playform.example.com`);
    }
  }
  return entries;
}
