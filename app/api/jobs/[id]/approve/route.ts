import { NextResponse } from "next/server";
import { approveJob } from "@/server/api/contracts/jobs";
import { optionalJsonBody, requireJobReader, route } from "@/server/api/route";
import { requireJobPermission } from "@/server/access/policy";
import { jobLifecycle } from "@/server/runtime";

/** POST /api/jobs/ID/approve `{"comment"?}` (admins and the form's approvers): the job joins the queue. */
export const POST = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const { viewer, ...visible } = await requireJobReader(request, (await params).id);
  await requireJobPermission(viewer, visible, "job.approve");
  const { comment } = await optionalJsonBody(request, approveJob.body.schema);
  return NextResponse.json({ job: await jobLifecycle().decide(visible.job.id, true, viewer.username, comment) });
});
