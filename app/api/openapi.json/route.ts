import { route } from "@/server/api/route";
import { openApiJson } from "@/server/api/openapi";

export const dynamic = "force-dynamic";

/** The OpenAPI 3.1 document, generated from the routes' contracts; public (it holds the API's shape, no data). */
export const GET = route(async () => new Response(openApiJson(), { headers: { "content-type": "application/json; charset=utf-8" } }));
