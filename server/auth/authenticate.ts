import { userForToken } from "../data/auth-tokens";
import type { PublicUser } from "../data/users";
import { SESSION_COOKIE, readCookie } from "./session";

/** The user behind a request: `Authorization: Bearer TOKEN` first, else the session cookie. */
export async function authenticateRequest(request: Request): Promise<PublicUser | null> {
  const authorization = request.headers.get("authorization");
  if (authorization?.toLowerCase().startsWith("bearer ")) return userForToken(authorization.slice(7).trim());
  const session = readCookie(request.headers.get("cookie"), SESSION_COOKIE);
  return session ? userForToken(session) : null;
}
