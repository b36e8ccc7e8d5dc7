import { NextResponse } from "next/server";
import { requireJobReader, route } from "@/server/api/route";
import { requireAbortableJob } from "@/server/access/policy";
import { jobLifecycle } from "@/server/runtime";

/** POST /api/jobs/ID/abort: see JobLifecycle.abort for what aborting means in each status. */
export const POST = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const { viewer, job } = await requireJobReader(request, (await params).id);
  await requireAbortableJob(viewer, job.id);
  return NextResponse.json({ job: await jobLifecycle().abort(job.id, viewer.username) }, { status: 202 });
});
