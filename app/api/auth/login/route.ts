import { NextResponse } from "next/server";
import { SMALL_JSON_BODY_BYTES } from "@/server/api/body";
import { loginClient } from "@/server/api/client-address";
import { parseJsonBody, route } from "@/server/api/route";
import { login } from "@/server/api/contracts/auth";
import { logIn } from "@/server/auth/login";
import { SESSION_TTL_MS, isHttps, knownClientCookie, sessionCookie } from "@/server/auth/session";

export const POST = route(async (request: Request) => {
  const { username, password } = await parseJsonBody(request, login.body.schema, { maxBytes: SMALL_JSON_BODY_BYTES });
  const { user, token, knownClient } = await logIn(username, password, loginClient(request));
  const response = NextResponse.json({ user });
  response.cookies.set(sessionCookie(token, isHttps(request), SESSION_TTL_MS / 1000));
  response.cookies.set(knownClientCookie(knownClient, isHttps(request)));
  return response;
});
