import { credentialForToken, type TokenCredential } from "../data/auth-tokens";
import type { PublicUser } from "../data/users";
import { SESSION_COOKIE, readCookie } from "./session";

/** The token a request authenticates with: `Authorization: Bearer TOKEN` first, else the session cookie. */
export function requestToken(request: Request): { token: string; bearer: boolean } | null {
  const authorization = request.headers.get("authorization");
  if (authorization?.toLowerCase().startsWith("bearer ")) return { token: authorization.slice(7).trim(), bearer: true };
  const session = readCookie(request.headers.get("cookie"), SESSION_COOKIE);
  return session ? { token: session, bearer: false } : null;
}

/** The credential behind a request (user, token row, scope), or null. */
export async function authenticateCredential(request: Request): Promise<TokenCredential | null> {
  const sent = requestToken(request);
  return sent ? credentialForToken(sent.token) : null;
}

/** The user behind a request: `Authorization: Bearer TOKEN` first, else the session cookie. */
export async function authenticateRequest(request: Request): Promise<PublicUser | null> {
  return (await authenticateCredential(request))?.user ?? null;
}
