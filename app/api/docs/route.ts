import { DOCS_PAGE_HTML } from "@/server/api/docs-page";
import { route } from "@/server/api/route";

export const dynamic = "force-dynamic";

/** The interactive API reference (Swagger UI over /api/openapi.json); public, like the document. */
export const GET = route(async () => new Response(DOCS_PAGE_HTML, { headers: { "content-type": "text/html; charset=utf-8" } }));
