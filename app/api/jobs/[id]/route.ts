import { NextResponse } from "next/server";
import { parseJobId, requireUser, route } from "@/server/api/route";
import { requireJob } from "@/server/jobs/access";

export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  await requireUser(request);
  const job = await requireJob(parseJobId((await params).id));
  return NextResponse.json({ job });
});
