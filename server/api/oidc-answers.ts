/** Answers of the single sign-on routes: redirects, and a failed sign-on shown on the login page. */
import { NextResponse } from "next/server";
import { OidcSignOnError } from "../auth/oidc";
import { flowCookie } from "../auth/oidc-flow";

/** 303 to a URL or a same-site path (a relative Location: no guess of the public host needed). */
export function redirectTo(location: string): NextResponse {
  return new NextResponse(null, { status: 303, headers: { location, "cache-control": "no-store" } });
}

/**
 * A failed sign-on: to the login page, which says what happened (?sso_error=<code>), with the
 * flow cookie cleared. Anything that is not an OidcSignOnError is rethrown (route() logs it: a bug).
 */
export function signOnFailure(error: unknown, secure: boolean): NextResponse {
  if (!(error instanceof OidcSignOnError)) throw error;
  const response = redirectTo(`/login?sso_error=${error.failure}`);
  response.cookies.set(flowCookie("", secure, 0));
  return response;
}
