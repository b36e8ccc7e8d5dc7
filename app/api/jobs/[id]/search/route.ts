import { NextResponse } from "next/server";
import { z } from "zod";
import { parseJobId, parseQuery, queryInt, requireUser, route } from "@/server/api/route";
import { MAX_SEARCH_MATCHES, searchOutput } from "@/server/jobs/output";

const querySchema = z.object({
  q: z.string().min(1, "give the text to search for (1 to 200 characters)").max(200, "at most 200 characters"),
  limit: queryInt(1, MAX_SEARCH_MATCHES).default(MAX_SEARCH_MATCHES),
  case: z.enum(["0", "1"], { message: "must be 0 (ignore case) or 1" }).default("0"),
});

export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  await requireUser(request);
  const jobId = parseJobId((await params).id);
  const { q, limit, case: caseSensitive } = parseQuery(request, querySchema);
  return NextResponse.json(await searchOutput(jobId, q, { limit, caseSensitive: caseSensitive === "1" }));
});
