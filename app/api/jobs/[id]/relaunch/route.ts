import { NextResponse } from "next/server";
import { relaunchJob as contract } from "@/server/api/contracts/jobs";
import { optionalJsonBody, parseJobId, requireViewer, route } from "@/server/api/route";
import { relaunchJob } from "@/server/jobs/relaunch";
import { jobLifecycle } from "@/server/runtime";

/** POST /api/jobs/ID/relaunch `{"values"?, "options"?}`: Run again (server/jobs/relaunch.ts). */
export const POST = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const viewer = await requireViewer(request);
  const jobId = parseJobId((await params).id);
  const body = await optionalJsonBody(request, contract.body.schema);
  return NextResponse.json({ id: await relaunchJob(jobLifecycle(), viewer, jobId, body) }, { status: 201 });
});
