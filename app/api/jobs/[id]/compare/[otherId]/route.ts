import { NextResponse } from "next/server";
import { parseJobId, requireUser, route } from "@/server/api/route";
import { compareWith } from "@/server/jobs/analysis";

/**
 * GET /api/jobs/ID/compare/OTHER: first = ID, second = OTHER.
 * GET /api/jobs/ID/compare/previous: first = the previous finished run of the same form,
 * second = ID (what changed again this time?).
 */
export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string; otherId: string }> }) => {
  await requireUser(request);
  const { id, otherId } = await params;
  const jobId = parseJobId(id);
  return NextResponse.json(await compareWith(jobId, otherId === "previous" ? "previous" : parseJobId(otherId)));
});
