import { NextResponse } from "next/server";
import { route } from "@/server/api/route";
import { logOut } from "@/server/auth/login";
import { SESSION_COOKIE, isHttps, readCookie, sessionCookie } from "@/server/auth/session";

export const POST = route(async (request: Request) => {
  await logOut(readCookie(request.headers.get("cookie"), SESSION_COOKIE));
  const response = new NextResponse(null, { status: 204 });
  response.cookies.set(sessionCookie("", isHttps(request), 0));
  return response;
});
