import { NextResponse } from "next/server";
import { z } from "zod";
import { parseJobId, parseQuery, queryInt, requireUser, route } from "@/server/api/route";
import { jobOutputPage } from "@/server/jobs/output";

const querySchema = z.object({
  after: queryInt(0).default(0),
  limit: queryInt(1, 5000).default(1000),
});

export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  await requireUser(request);
  const jobId = parseJobId((await params).id);
  const { after, limit } = parseQuery(request, querySchema);
  return NextResponse.json(await jobOutputPage(jobId, after, limit));
});
