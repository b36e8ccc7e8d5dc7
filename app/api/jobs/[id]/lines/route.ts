import { NextResponse } from "next/server";
import { DomainError } from "@/server/errors";
import { jobLines } from "@/server/api/contracts/jobs";
import { parseQuery, readableJobId, route } from "@/server/api/route";
import { outputWindow } from "@/server/jobs/output";

export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const jobId = await readableJobId(request, (await params).id);
  const { from, count, tail } = parseQuery(request, jobLines.query);
  if (tail !== undefined && from !== undefined) throw new DomainError("bad_request", "give either from (and count) or tail, not both");
  return NextResponse.json(await outputWindow(jobId, tail !== undefined ? { tail } : { from: from ?? 1, count }));
});
