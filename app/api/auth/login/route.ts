import { NextResponse } from "next/server";
import { z } from "zod";
import { parseJsonBody, route } from "@/server/api/route";
import { checkCredentials } from "@/server/auth/login";
import { SESSION_TTL_MS, isHttps, sessionCookie } from "@/server/auth/session";
import { issueToken } from "@/server/data/auth-tokens";

const bodySchema = z.object({ username: z.string().min(1, "is required"), password: z.string().min(1, "is required") });

export const POST = route(async (request: Request) => {
  const { username, password } = await parseJsonBody(request, bodySchema);
  const user = await checkCredentials(username, password);
  const { token } = await issueToken(user.id, "session", SESSION_TTL_MS);
  const response = NextResponse.json({ user });
  response.cookies.set(sessionCookie(token, isHttps(request), SESSION_TTL_MS / 1000));
  return response;
});
