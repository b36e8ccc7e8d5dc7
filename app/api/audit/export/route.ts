import { parseAuditExportQuery } from "@/server/api/audit-query";
import { requireAdmin, route } from "@/server/api/route";
import { auditExportStream } from "@/server/audit/export";

/** GET /api/audit/export?… the list's filters (admins): JSON lines, streamed, as a download. */
export const GET = route(async (request: Request) => {
  await requireAdmin(request);
  const filter = parseAuditExportQuery(request);
  return new Response(auditExportStream(filter), {
    headers: {
      "content-type": "application/x-ndjson; charset=utf-8",
      "content-disposition": `attachment; filename="playform-audit.jsonl"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
});
