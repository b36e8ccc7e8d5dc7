import { NextResponse } from "next/server";
import { loginClient } from "@/server/api/client-address";
import { route } from "@/server/api/route";
import { basicCredentials, issueApiToken } from "@/server/auth/login";
import { isHttps, knownClientCookie } from "@/server/auth/session";

/** Trades HTTP Basic credentials for a bearer token, for scripts and CI pipelines. */
export const POST = route(async (request: Request) => {
  const { username, password } = basicCredentials(request);
  const { token, expiresAt, knownClient } = await issueApiToken(username, password, loginClient(request));
  const response = NextResponse.json({ token, expiresAt: expiresAt.toISOString() }, { status: 201 });
  response.cookies.set(knownClientCookie(knownClient, isHttps(request)));
  return response;
});
