import { docsAsset } from "@/server/api/docs-page";
import { route } from "@/server/api/route";
import { DomainError } from "@/server/errors";

/** Swagger UI's files for /api/docs, from node_modules/swagger-ui-dist: only the names docs-page.ts allows. */
export const GET = route(async (_request: Request, { params }: { params: Promise<{ file: string }> }) => {
  const { file } = await params;
  const asset = await docsAsset(file);
  if (!asset) throw new DomainError("not_found", `no asset ${file}`);
  return new Response(asset.body, {
    headers: { "content-type": asset.contentType, "cache-control": "public, max-age=3600", "x-content-type-options": "nosniff" },
  });
});
