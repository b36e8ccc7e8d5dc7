import { NextResponse } from "next/server";
import { formIdempotence } from "@/server/api/contracts/forms";
import { parseQuery, requireViewer, route } from "@/server/api/route";
import { requireFormOfRuns } from "@/server/access/policy";
import { idempotenceExportOfForm, idempotenceReportOfForm } from "@/server/jobs/analysis";

/**
 * Across the last N finished runs of a form that the reader may see: how often each task changed, on which hosts,
 * first and last run (docs/api.md). `format=csv|json` answers a file to download.
 */
export const GET = route(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  const { form, scope } = await requireFormOfRuns(await requireViewer(request), (await params).name);
  const { last, format } = parseQuery(request, formIdempotence.query);
  if (format === undefined) return NextResponse.json(await idempotenceReportOfForm(form.name, last, scope));
  const file = await idempotenceExportOfForm(form.name, last, format, scope);
  return new Response(file.body, {
    headers: {
      "content-type": file.contentType,
      "content-disposition": `attachment; filename="${file.filename}"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
});
