import { NextResponse } from "next/server";
import { route } from "@/server/api/route";
import { basicCredentials, checkCredentials } from "@/server/auth/login";
import { API_TOKEN_TTL_MS } from "@/server/auth/session";
import { issueToken } from "@/server/data/auth-tokens";

/** Trades HTTP Basic credentials for a bearer token, for scripts and CI pipelines. */
export const POST = route(async (request: Request) => {
  const { username, password } = basicCredentials(request);
  const user = await checkCredentials(username, password);
  const { token, expiresAt } = await issueToken(user.id, "api", API_TOKEN_TTL_MS);
  return NextResponse.json({ token, expiresAt: expiresAt.toISOString() }, { status: 201 });
});
