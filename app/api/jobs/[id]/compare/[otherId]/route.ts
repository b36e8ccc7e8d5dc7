import { NextResponse } from "next/server";
import { DomainError } from "@/server/errors";
import { parseJobId, requireUser, route } from "@/server/api/route";
import { compareJobs, previousRunOf } from "@/server/jobs/compare";

/**
 * GET /api/jobs/ID/compare/OTHER: first = ID, second = OTHER.
 * GET /api/jobs/ID/compare/previous: first = the previous finished run of the same form,
 * second = ID (what changed again this time?).
 */
export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string; otherId: string }> }) => {
  await requireUser(request);
  const { id, otherId } = await params;
  const jobId = parseJobId(id);
  if (otherId === "previous") {
    const previous = await previousRunOf(jobId);
    if (previous === null) throw new DomainError("not_found", `job ${jobId} has no earlier finished run of the same form`);
    return NextResponse.json(await compareJobs(previous, jobId));
  }
  return NextResponse.json(await compareJobs(jobId, parseJobId(otherId)));
});
