import { NextResponse } from "next/server";
import { parseJobId, requireUser, route } from "@/server/api/route";
import { jobLifecycle } from "@/server/runtime";

/** POST /api/jobs/ID/abort: see JobLifecycle.abort for what aborting means in each status. */
export const POST = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const user = await requireUser(request);
  const job = await jobLifecycle().abort(parseJobId((await params).id), user.username);
  return NextResponse.json({ job }, { status: 202 });
});
