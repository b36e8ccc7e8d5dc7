import { NextResponse } from "next/server";
import { compareJobs } from "@/server/api/contracts/jobs";
import { parseJobId, parseQuery, requireUser, route } from "@/server/api/route";
import { compareWith } from "@/server/jobs/analysis";

/**
 * GET /api/jobs/ID/compare/OTHER: first = ID, second = OTHER.
 * GET /api/jobs/ID/compare/previous: first = the previous finished run of the same form,
 * second = ID (what changed again this time?). No previous run: 404, or with `?optional=1`
 * 200 `{"previous": null}` (what the job page asks: the first run of a form is no error).
 */
export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string; otherId: string }> }) => {
  await requireUser(request);
  const { id, otherId } = await params;
  const jobId = parseJobId(id);
  const { optional } = parseQuery(request, compareJobs.query);
  const other = otherId === "previous" ? "previous" : parseJobId(otherId);
  return NextResponse.json(await compareWith(jobId, other, { optional: optional === "1" }));
});
