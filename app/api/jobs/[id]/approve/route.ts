import { NextResponse } from "next/server";
import { approveJob } from "@/server/api/contracts/jobs";
import { optionalJsonBody, requireJobReader, route } from "@/server/api/route";
import { requireApprovableJob } from "@/server/access/policy";
import { jobLifecycle } from "@/server/runtime";

/** POST /api/jobs/ID/approve `{"comment"?}` (admins and the form's approvers): the job joins the queue. */
export const POST = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const { viewer, job } = await requireJobReader(request, (await params).id);
  await requireApprovableJob(viewer, job.id, "job.approve");
  const { comment } = await optionalJsonBody(request, approveJob.body.schema);
  return NextResponse.json({ job: await jobLifecycle().decide(job.id, true, viewer.username, comment) });
});
