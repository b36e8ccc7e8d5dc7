import { NextResponse } from "next/server";
import { route } from "@/server/api/route";
import { requestToken } from "@/server/auth/authenticate";
import { logOut } from "@/server/auth/login";
import { isHttps, sessionCookie } from "@/server/auth/session";

/** Ends the credential of the request: the bearer token if one is sent (and the tokens it made), else the session cookie's session. */
export const POST = route(async (request: Request) => {
  await logOut(requestToken(request)?.token ?? null);
  const response = new NextResponse(null, { status: 204 });
  response.cookies.set(sessionCookie("", isHttps(request), 0));
  return response;
});
