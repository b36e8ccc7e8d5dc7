import { redirectTo, signOnFailure } from "@/server/api/oidc-answers";
import { route } from "@/server/api/route";
import { finishSignOn } from "@/server/auth/oidc";
import { OIDC_FLOW_COOKIE, flowCookie } from "@/server/auth/oidc-flow";
import { SESSION_TTL_MS, isHttps, readCookie, sessionCookie } from "@/server/auth/session";

export const GET = route(async (request: Request) => {
  const secure = isHttps(request);
  try {
    const { token, next } = await finishSignOn(
      new URL(request.url).searchParams,
      readCookie(request.headers.get("cookie"), OIDC_FLOW_COOKIE),
    );
    const response = redirectTo(next);
    response.cookies.set(sessionCookie(token, secure, SESSION_TTL_MS / 1000));
    response.cookies.set(flowCookie("", secure, 0));
    return response;
  } catch (error) {
    return signOnFailure(error, secure);
  }
});
