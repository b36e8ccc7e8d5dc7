import { NextResponse } from "next/server";
import { DomainError } from "@/server/errors";
import { parseJobId, requireUser, route } from "@/server/api/route";
import { requireJob } from "@/server/jobs/access";
import { loadJobEvents } from "@/server/jobs/events";
import { timelineFromEvents } from "@/server/recap/timeline";

/** Where the time of a run went: its tasks on a time axis, from the job's structured events. */
export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  await requireUser(request);
  const job = await requireJob(parseJobId((await params).id));
  const events = await loadJobEvents(job.id);
  if (events.length === 0) {
    throw new DomainError(
      "not_found",
      `job ${job.id} has no structured events, so no timeline (not started yet, or run by an RTE without the callback plugin?)`,
    );
  }
  return NextResponse.json(timelineFromEvents(events));
});
