import { NextResponse } from "next/server";
import { optionalJsonBody, parseJobId, requireAdmin, route } from "@/server/api/route";
import { decide, decisionSchema } from "@/server/jobs/approval";

/** POST /api/jobs/ID/reject `{"comment"?}` (admins): the job ends aborted, saying who and why. */
export const POST = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const admin = await requireAdmin(request);
  const { comment } = await optionalJsonBody(request, decisionSchema);
  return NextResponse.json({ job: await decide(admin, parseJobId((await params).id), false, comment) });
});
