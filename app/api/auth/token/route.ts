import { NextResponse } from "next/server";
import { route } from "@/server/api/route";
import { basicCredentials, issueApiToken } from "@/server/auth/login";

/** Trades HTTP Basic credentials for a bearer token, for scripts and CI pipelines. */
export const POST = route(async (request: Request) => {
  const { username, password } = basicCredentials(request);
  const { token, expiresAt } = await issueApiToken(username, password);
  return NextResponse.json({ token, expiresAt: expiresAt.toISOString() }, { status: 201 });
});
