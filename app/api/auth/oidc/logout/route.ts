import { redirectTo } from "@/server/api/oidc-answers";
import { route } from "@/server/api/route";
import { logOut } from "@/server/auth/login";
import { endSessionUrl, publicBaseUrl } from "@/server/auth/oidc";
import { SESSION_COOKIE, isHttps, readCookie, sessionCookie } from "@/server/auth/session";

export const GET = route(async (request: Request) => {
  await logOut(readCookie(request.headers.get("cookie"), SESSION_COOKIE));
  const response = redirectTo(await endSessionUrl(publicBaseUrl(request)));
  response.cookies.set(sessionCookie("", isHttps(request), 0));
  return response;
});
