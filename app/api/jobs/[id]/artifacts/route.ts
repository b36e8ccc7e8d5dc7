import { NextResponse } from "next/server";
import { readableJobId, route } from "@/server/api/route";
import { artifactsOfJob } from "@/server/jobs/artifacts";

/** What the playbook handed back with set_stats: the job's artifacts (server/jobs/artifacts.ts). */
export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  return NextResponse.json(await artifactsOfJob(await readableJobId(request, (await params).id)));
});
