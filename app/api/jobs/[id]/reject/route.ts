import { NextResponse } from "next/server";
import { rejectJob } from "@/server/api/contracts/jobs";
import { optionalJsonBody, requireJobReader, route } from "@/server/api/route";
import { requireJobPermission } from "@/server/access/policy";
import { jobLifecycle } from "@/server/runtime";

/** POST /api/jobs/ID/reject `{"comment"?}` (admins and the form's approvers): the job ends rejected, saying who and why. */
export const POST = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const { viewer, ...visible } = await requireJobReader(request, (await params).id);
  await requireJobPermission(viewer, visible, "job.reject");
  const { comment } = await optionalJsonBody(request, rejectJob.body.schema);
  return NextResponse.json({ job: await jobLifecycle().decide(visible.job.id, false, viewer.username, comment) });
});
