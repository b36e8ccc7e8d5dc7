import { NextResponse } from "next/server";
import { route } from "@/server/api/route";
import { SESSION_COOKIE, isHttps, readCookie, sessionCookie } from "@/server/auth/session";
import { revokeToken } from "@/server/data/auth-tokens";

export const POST = route(async (request: Request) => {
  const token = readCookie(request.headers.get("cookie"), SESSION_COOKIE);
  if (token) await revokeToken(token);
  const response = new NextResponse(null, { status: 204 });
  response.cookies.set(sessionCookie("", isHttps(request), 0));
  return response;
});
