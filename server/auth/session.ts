export const SESSION_COOKIE = "playform_session";
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
export const API_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** Marks a browser that logged in as a user before (known-clients.ts). */
export const KNOWN_CLIENT_COOKIE = "playform_known";
export const KNOWN_CLIENT_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** Cookie attributes: httpOnly always; Secure when the request came over https. */
export function sessionCookie(token: string, secure: boolean, maxAgeSeconds: number) {
  return {
    name: SESSION_COOKIE,
    value: token,
    httpOnly: true,
    sameSite: "lax" as const,
    secure,
    path: "/",
    maxAge: maxAgeSeconds,
  };
}

/** The known-client cookie (known-clients.ts): sent back to the login and token endpoints only. */
export function knownClientCookie(value: string, secure: boolean) {
  return {
    name: KNOWN_CLIENT_COOKIE,
    value,
    httpOnly: true,
    sameSite: "strict" as const,
    secure,
    path: "/api/auth",
    maxAge: KNOWN_CLIENT_TTL_MS / 1000,
  };
}

/** Behind a TLS-terminating proxy the request URL is http; x-forwarded-proto tells the truth. */
export function isHttps(request: Request): boolean {
  const forwarded = request.headers.get("x-forwarded-proto");
  if (forwarded) return forwarded.split(",")[0]!.trim() === "https";
  return new URL(request.url).protocol === "https:";
}

export function readCookie(header: string | null | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return null; // malformed percent-encoding: no such cookie, not a 500
      }
    }
  }
  return null;
}
