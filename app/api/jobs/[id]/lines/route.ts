import { NextResponse } from "next/server";
import { z } from "zod";
import { DomainError } from "@/server/errors";
import { parseJobId, parseQuery, queryInt, requireUser, route } from "@/server/api/route";
import { MAX_WINDOW_LINES, outputWindow } from "@/server/jobs/output";

const querySchema = z.object({
  from: queryInt(1).optional(),
  count: queryInt(1, MAX_WINDOW_LINES).default(500),
  tail: queryInt(1, MAX_WINDOW_LINES).optional(),
});

export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  await requireUser(request);
  const jobId = parseJobId((await params).id);
  const { from, count, tail } = parseQuery(request, querySchema);
  if (tail !== undefined && from !== undefined) throw new DomainError("bad_request", "give either from (and count) or tail, not both");
  return NextResponse.json(await outputWindow(jobId, tail !== undefined ? { tail } : { from: from ?? 1, count }));
});
