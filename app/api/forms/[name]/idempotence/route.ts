import { NextResponse } from "next/server";
import { z } from "zod";
import { parseQuery, queryInt, requireUser, route } from "@/server/api/route";
import { idempotenceExportOfForm, idempotenceReportOfForm } from "@/server/jobs/analysis";

const querySchema = z.object({
  last: queryInt(1, 200).default(20),
  format: z.enum(["csv", "json"], { message: "must be csv or json" }).optional(),
});

/**
 * Across the last N finished runs of a form: how often each task changed, on which hosts,
 * first and last run (docs/api.md). `format=csv|json` answers a file to download.
 */
export const GET = route(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  await requireUser(request);
  const { name } = await params;
  const { last, format } = parseQuery(request, querySchema);
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
