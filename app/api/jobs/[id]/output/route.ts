import { NextResponse } from "next/server";
import { z } from "zod";
import { parseJobId, parseQuery, requireUser, route } from "@/server/api/route";
import { listOutput } from "@/server/data/jobs";
import { isFinalStatus } from "@/server/jobs/lifecycle";
import { requireJob } from "@/server/jobs/access";

const querySchema = z.object({
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(5000).default(1000),
});

export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  await requireUser(request);
  const job = await requireJob(parseJobId((await params).id));
  const { after, limit } = parseQuery(request, querySchema);
  const chunks = await listOutput(job.id, after, limit);
  const done = isFinalStatus(job.status) && chunks.length < limit;
  return NextResponse.json({ chunks, lastSeq: chunks.at(-1)?.seq ?? after, done });
});
