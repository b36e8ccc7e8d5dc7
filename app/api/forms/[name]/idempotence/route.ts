import { NextResponse } from "next/server";
import { formIdempotence } from "@/server/api/contracts/forms";
import { parseQuery, requireUser, route } from "@/server/api/route";
import { idempotenceExportOfForm, idempotenceReportOfForm } from "@/server/jobs/analysis";

/**
 * Across the last N finished runs of a form: how often each task changed, on which hosts,
 * first and last run (docs/api.md). `format=csv|json` answers a file to download.
 */
export const GET = route(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  await requireUser(request);
  const { name } = await params;
  const { last, format } = parseQuery(request, formIdempotence.query);
  if (format === undefined) return NextResponse.json(await idempotenceReportOfForm(name, last));
  const file = await idempotenceExportOfForm(name, last, format);
  return new Response(file.body, {
    headers: {
      "content-type": file.contentType,
      "content-disposition": `attachment; filename="${file.filename}"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
});
