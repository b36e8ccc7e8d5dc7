import { NextResponse } from "next/server";
import { readableJobId, route } from "@/server/api/route";
import { progressOfJob } from "@/server/jobs/progress";

/** How far a job is and about how long it has left, from the earlier runs of its form. */
export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  return NextResponse.json(await progressOfJob(await readableJobId(request, (await params).id)));
});
