/**
 * Who is asking: the client's network address, for throttling (failed logins, join requests).
 *
 * Next's route handlers see a Web `Request`, which has no socket. The custom server does see
 * the socket, so it resolves the address once per request and passes it on in the internal
 * header `x-playform-client-ip`, after deleting any copy the client sent: a route handler can
 * trust that header because nothing outside the process can set it.
 *
 * By default the address is the socket's peer. Behind reverse proxies (a TLS terminator, an
 * ingress), every request comes from the proxy; PLAYFORM_TRUST_PROXY says how many proxies
 * stand in front of the app, and the address is then read from X-Forwarded-For, that many
 * entries from the right: the entry the outermost trusted proxy appended. Entries further
 * left were written by the client and prove nothing.
 */
import { isIP } from "node:net";
import type { LoginClient } from "../auth/login";
import { CLIENT_ADDRESS_HEADER } from "../audit/origin";
import { KNOWN_CLIENT_COOKIE, readCookie } from "../auth/session";

export { CLIENT_ADDRESS_HEADER };

/**
 * PLAYFORM_TRUST_PROXY: `false`/`0` (default: X-Forwarded-For is ignored), `true` (one proxy),
 * or the number of proxies. Throws on anything else, naming the variable.
 */
export function parseTrustProxy(value: string | undefined): number {
  const text = (value ?? "").trim().toLowerCase();
  if (["", "0", "false", "no"].includes(text)) return 0;
  if (["1", "true", "yes"].includes(text)) return 1;
  if (/^[1-9][0-9]?$/.test(text)) return Number(text);
  throw new Error(`invalid configuration:\n  PLAYFORM_TRUST_PROXY: must be false, true or the number of proxies in front of the app`);
}

/** `::ffff:192.0.2.1` (an IPv4 client on a dual-stack socket) is 192.0.2.1. */
function plain(address: string): string {
  return address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/** The client's address from the socket's peer and, with trusted proxies, X-Forwarded-For. */
export function resolveClientAddress(
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustedProxies: number,
): string {
  const socket = plain(peer ?? "unknown");
  if (trustedProxies === 0 || forwardedFor === undefined) return socket;
  const entries = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor)
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  if (entries.length === 0) return socket;
  // With fewer entries than proxies, the leftmost is the furthest any proxy saw.
  const entry = entries[Math.max(0, entries.length - trustedProxies)]!;
  return isIP(entry) ? plain(entry) : socket;
}

/** In a route handler: the address the custom server resolved for this request. */
export function clientAddress(request: Request): string {
  return request.headers.get(CLIENT_ADDRESS_HEADER) ?? "unknown";
}

/** In the login and token routes: the client's address and the known-client cookie it sent. */
export function loginClient(request: Request): LoginClient {
  return { address: clientAddress(request), knownClient: readCookie(request.headers.get("cookie"), KNOWN_CLIENT_COOKIE) };
}
