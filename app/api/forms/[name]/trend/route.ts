import { NextResponse } from "next/server";
import { formTrend } from "@/server/api/contracts/forms";
import { parseQuery, requireViewer, route } from "@/server/api/route";
import { requireFormOfRuns } from "@/server/access/policy";
import { trendOfForm } from "@/server/jobs/analysis";

/** Across the last N finished runs of a form the reader may see: never-idempotent tasks, durations, host failure rates. */
export const GET = route(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  const { form, scope } = await requireFormOfRuns(await requireViewer(request), (await params).name);
  const { last } = parseQuery(request, formTrend.query);
  return NextResponse.json(await trendOfForm(form.name, last, scope));
});
