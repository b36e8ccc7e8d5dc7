import { credentialForToken, expiryOfToken, type TokenCredential } from "../data/auth-tokens";
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

/**
 * Why a request has no credential, in the words of a 401: nothing sent; a bearer token that
 * expired (when) or that is not valid (revoked, or never issued); a session that has ended.
 */
export async function missingCredentialReason(request: Request): Promise<string> {
  const sent = requestToken(request);
  if (!sent) return "authentication required: log in or send Authorization: Bearer TOKEN";
  if (!sent.bearer) return "your session has ended (signed out, expired or revoked): log in again";
  const expired = await expiryOfToken(sent.token);
  const renew = "make a new one on your Account page, or sign in again (POST /api/auth/token)";
  return expired
    ? `this token expired at ${expired.toISOString()}: ${renew}`
    : `this token is not valid (revoked, or never issued): ${renew}`;
}
