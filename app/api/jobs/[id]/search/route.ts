import { NextResponse } from "next/server";
import { searchJob } from "@/server/api/contracts/jobs";
import { parseQuery, readableJobId, route } from "@/server/api/route";
import { searchOutput } from "@/server/jobs/output";

export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const jobId = await readableJobId(request, (await params).id);
  const { q, limit, case: caseSensitive } = parseQuery(request, searchJob.query);
  return NextResponse.json(await searchOutput(jobId, q, { limit, caseSensitive: caseSensitive === "1" }));
});
