import { DomainError } from "../errors";
import { issueToken, revokeToken } from "../data/auth-tokens";
import { findUserByUsername, type PublicUser } from "../data/users";
import { verifyPassword } from "../security/password";
import { API_TOKEN_TTL_MS, SESSION_TTL_MS } from "./session";

/**
 * Failed logins per username, kept per app node (on globalThis: Next compiles each route into
 * its own bundle, and the login form and the token endpoint must count together). Past the
 * limit, further attempts for that name are refused until the window has passed, so a
 * password cannot be guessed at request speed.
 */
const MAX_FAILURES = 10;
const WINDOW_MS = 10 * 60 * 1000;
const KEY = Symbol.for("playform.loginFailures");

function failures(): Map<string, number[]> {
  const holder = globalThis as typeof globalThis & { [KEY]?: Map<string, number[]> };
  return (holder[KEY] ??= new Map());
}

function recentFailures(username: string, now: number): number[] {
  const recent = (failures().get(username) ?? []).filter((at) => now - at < WINDOW_MS);
  if (recent.length > 0) failures().set(username, recent);
  else failures().delete(username);
  return recent;
}

/** Checks a username and password; the same error for an unknown user and a wrong password. */
export async function checkCredentials(username: string, password: string): Promise<PublicUser> {
  const now = Date.now();
  const recent = recentFailures(username, now);
  if (recent.length >= MAX_FAILURES) {
    const retryAfter = Math.ceil((recent[0]! + WINDOW_MS - now) / 1000);
    throw new DomainError(
      "too_many_requests",
      `too many failed logins for "${username}": try again in ${retryAfter} s`,
      undefined,
      retryAfter,
    );
  }
  const user = await findUserByUsername(username);
  if (!user || !(await verifyPassword(password, user.passwordHash))) {
    failures().set(username, [...recent, now]);
    throw new DomainError("unauthorized", "wrong username or password");
  }
  failures().delete(username);
  return { id: user.id, username: user.username, role: user.role };
}

/** Logs a user in: the user and a new session token, valid for SESSION_TTL_MS (the cookie's lifetime). */
export async function logIn(username: string, password: string): Promise<{ user: PublicUser; token: string }> {
  const user = await checkCredentials(username, password);
  const { token } = await issueToken(user.id, "session", SESSION_TTL_MS);
  return { user, token };
}

/** Ends the session of this token, if there is one. */
export async function logOut(sessionToken: string | null): Promise<void> {
  if (sessionToken) await revokeToken(sessionToken);
}

/** A bearer token for scripts and CI pipelines, valid for API_TOKEN_TTL_MS, for a username and password. */
export async function issueApiToken(username: string, password: string): Promise<{ token: string; expiresAt: Date }> {
  const user = await checkCredentials(username, password);
  return issueToken(user.id, "api", API_TOKEN_TTL_MS);
}

/** `Authorization: Basic base64(user:password)` → credentials, or a 401 that says what is missing. */
export function basicCredentials(request: Request): { username: string; password: string } {
  const header = request.headers.get("authorization");
  if (!header?.toLowerCase().startsWith("basic ")) {
    throw new DomainError("unauthorized", "send HTTP Basic credentials (Authorization: Basic ...)");
  }
  let decoded: string;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(header.slice(6).trim(), "base64"));
  } catch {
    throw new DomainError("unauthorized", "malformed Basic credentials: not valid UTF-8");
  }
  const colon = decoded.indexOf(":");
  if (colon < 0 || decoded.includes("\u0000")) throw new DomainError("unauthorized", "malformed Basic credentials");
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
