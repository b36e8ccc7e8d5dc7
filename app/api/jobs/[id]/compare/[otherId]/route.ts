import { NextResponse } from "next/server";
import { compareJobs } from "@/server/api/contracts/jobs";
import { parseJobId, parseQuery, requireJobReader, route } from "@/server/api/route";
import { jobScopeOf, requireVisibleJob } from "@/server/access/policy";
import { compareWith } from "@/server/jobs/analysis";

/**
 * GET /api/jobs/ID/compare/OTHER: first = ID, second = OTHER.
 * GET /api/jobs/ID/compare/previous: first = the previous finished run of the same form,
 * second = ID (what changed again this time?). No previous run: 404, or with `?optional=1`
 * 200 `{"previous": null}` (what the job page asks: the first run of a form is no error).
 * Both jobs must be ones the reader may see; "previous" is the previous one they may see.
 */
export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string; otherId: string }> }) => {
  const { id, otherId } = await params;
  const { viewer, job } = await requireJobReader(request, id);
  const { optional } = parseQuery(request, compareJobs.query);
  const other = otherId === "previous" ? "previous" : (await requireVisibleJob(viewer, parseJobId(otherId))).job.id;
  return NextResponse.json(await compareWith(job.id, other, await jobScopeOf(viewer), { optional: optional === "1" }));
});
