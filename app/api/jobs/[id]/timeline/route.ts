import { NextResponse } from "next/server";
import { readableJobId, route } from "@/server/api/route";
import { timelineOfJob } from "@/server/jobs/analysis";

/** Where the time of a run went: its tasks on a time axis, from the job's structured events. */
export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  return NextResponse.json(await timelineOfJob(await readableJobId(request, (await params).id)));
});
