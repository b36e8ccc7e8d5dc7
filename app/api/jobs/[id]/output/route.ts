import { NextResponse } from "next/server";
import { jobOutput } from "@/server/api/contracts/jobs";
import { parseQuery, readableJobId, route } from "@/server/api/route";
import { jobOutputPage } from "@/server/jobs/output";

export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const jobId = await readableJobId(request, (await params).id);
  const { after, limit } = parseQuery(request, jobOutput.query);
  return NextResponse.json(await jobOutputPage(jobId, after, limit));
});
