import { NextResponse } from "next/server";
import { requireJobReader, route } from "@/server/api/route";
import { requireJobPermission } from "@/server/access/policy";
import { jobLifecycle } from "@/server/runtime";

/** POST /api/jobs/ID/abort: see JobLifecycle.abort for what aborting means in each status. */
export const POST = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const { viewer, ...visible } = await requireJobReader(request, (await params).id);
  await requireJobPermission(viewer, visible, "job.abort");
  return NextResponse.json({ job: await jobLifecycle().abort(visible.job.id, viewer.username) }, { status: 202 });
});
