import { NextResponse } from "next/server";
import { readableJobId, route } from "@/server/api/route";
import { taskIndex } from "@/server/jobs/output";

export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const jobId = await readableJobId(request, (await params).id);
  return NextResponse.json(await taskIndex(jobId));
});
