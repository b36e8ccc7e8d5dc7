import { oidcLogin } from "@/server/api/contracts/oidc";
import { redirectTo, signOnFailure } from "@/server/api/oidc-answers";
import { parseQuery, route } from "@/server/api/route";
import { publicBaseUrl, safeNextPath, startSignOn } from "@/server/auth/oidc";
import { flowCookie } from "@/server/auth/oidc-flow";
import { isHttps } from "@/server/auth/session";

export const GET = route(async (request: Request) => {
  const { next } = parseQuery(request, oidcLogin.query);
  try {
    const { authorizationUrl, flowCookie: flow } = await startSignOn(publicBaseUrl(request), safeNextPath(next));
    const response = redirectTo(authorizationUrl);
    response.cookies.set(flowCookie(flow, isHttps(request)));
    return response;
  } catch (error) {
    return signOnFailure(error, isHttps(request));
  }
});
