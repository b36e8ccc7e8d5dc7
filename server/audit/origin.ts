/**
 * Where a request came from, for the audit trail: the client's address (as resolved by the
 * custom server's HTTP entry, honouring PLAYFORM_TRUST_PROXY: server/api/client-address.ts) and
 * its User-Agent. The HTTP entry runs every request under withAuditOrigin, so a domain service
 * that records an event deep inside a request finds its origin without being handed the request.
 *
 * State lives on globalThis: Next's route-handler bundle holds a second copy of this module.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** The internal header carrying the client's address to route handlers (set by the HTTP entry only). */
export const CLIENT_ADDRESS_HEADER = "x-playform-client-ip";

export interface AuditOrigin {
  ip: string | null;
  userAgent: string | null;
}

const KEY = Symbol.for("playform.audit-origin");

function storage(): AsyncLocalStorage<AuditOrigin> {
  const holder = globalThis as typeof globalThis & { [KEY]?: AsyncLocalStorage<AuditOrigin> };
  holder[KEY] ??= new AsyncLocalStorage();
  return holder[KEY];
}

/** Runs `fn` with this origin for every event recorded under it. */
export function withAuditOrigin<T>(origin: AuditOrigin, fn: () => T): T {
  return storage().run(origin, fn);
}

export function currentAuditOrigin(): AuditOrigin | undefined {
  return storage().getStore();
}

/** The origin of a route handler's request (its address header is set by the HTTP entry). */
export function originOfRequest(request: Request): AuditOrigin {
  return { ip: request.headers.get(CLIENT_ADDRESS_HEADER), userAgent: request.headers.get("user-agent") };
}
