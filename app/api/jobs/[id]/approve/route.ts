import { NextResponse } from "next/server";
import { approveJob } from "@/server/api/contracts/jobs";
import { optionalJsonBody, parseJobId, requireAdmin, route } from "@/server/api/route";
import { jobLifecycle } from "@/server/runtime";

/** POST /api/jobs/ID/approve `{"comment"?}` (admins): the job joins the queue. */
export const POST = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const admin = await requireAdmin(request, "job.approve");
  const { comment } = await optionalJsonBody(request, approveJob.body.schema);
  return NextResponse.json({ job: await jobLifecycle().decide(parseJobId((await params).id), true, admin.username, comment) });
});
