import { NextResponse } from "next/server";
import { rejectJob } from "@/server/api/contracts/jobs";
import { optionalJsonBody, parseJobId, requireAdmin, route } from "@/server/api/route";
import { jobLifecycle } from "@/server/runtime";

/** POST /api/jobs/ID/reject `{"comment"?}` (admins): the job ends rejected, saying who and why. */
export const POST = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const admin = await requireAdmin(request, "job.reject");
  const { comment } = await optionalJsonBody(request, rejectJob.body.schema);
  return NextResponse.json({ job: await jobLifecycle().decide(parseJobId((await params).id), false, admin.username, comment) });
});
