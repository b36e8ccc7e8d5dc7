import { NextResponse } from "next/server";
import { z } from "zod";
import { parseQuery, queryInt, requireUser, route } from "@/server/api/route";
import { trendOfForm } from "@/server/jobs/analysis";

const querySchema = z.object({ last: queryInt(1, 100).default(10) });

/** Across the last N finished runs of a form: never-idempotent tasks, durations, host failure rates. */
export const GET = route(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  await requireUser(request);
  const { name } = await params;
  const { last } = parseQuery(request, querySchema);
  return NextResponse.json(await trendOfForm(name, last));
});
