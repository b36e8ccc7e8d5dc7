import { NextResponse } from "next/server";
import { parseJobId, requireUser, route } from "@/server/api/route";
import { taskIndex } from "@/server/jobs/output";

export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  await requireUser(request);
  const jobId = parseJobId((await params).id);
  return NextResponse.json(await taskIndex(jobId));
});
