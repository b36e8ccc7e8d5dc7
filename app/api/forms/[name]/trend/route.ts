import { NextResponse } from "next/server";
import { formTrend } from "@/server/api/contracts/forms";
import { parseQuery, requireUser, route } from "@/server/api/route";
import { trendOfForm } from "@/server/jobs/analysis";

/** Across the last N finished runs of a form: never-idempotent tasks, durations, host failure rates. */
export const GET = route(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  await requireUser(request);
  const { name } = await params;
  const { last } = parseQuery(request, formTrend.query);
  return NextResponse.json(await trendOfForm(name, last));
});
