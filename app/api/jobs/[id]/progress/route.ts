import { NextResponse } from "next/server";
import { parseJobId, requireUser, route } from "@/server/api/route";
import { progressOfJob } from "@/server/jobs/progress";

/** How far a job is and about how long it has left, from the earlier runs of its form. */
export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  await requireUser(request);
  return NextResponse.json(await progressOfJob(parseJobId((await params).id)));
});
