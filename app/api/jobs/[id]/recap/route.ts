import { NextResponse } from "next/server";
import { z } from "zod";
import { DomainError } from "@/server/errors";
import { parseJobId, parseQuery, requireUser, route } from "@/server/api/route";
import { requireJob } from "@/server/jobs/access";
import { jobRecapFrom } from "@/server/jobs/recap";
import { cachedJobRecap } from "@/server/jobs/recap-cache";

const querySchema = z.object({ source: z.enum(["events", "text"]).optional() });

/**
 * The recap JSON of docs/recap.md, from the job's structured events when it has them, else
 * from its text. `?source=events|text` forces one (to check that both agree);
 * `X-Recap-Source` says which one answered.
 */
export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  await requireUser(request);
  const job = await requireJob(parseJobId((await params).id));
  const { source } = parseQuery(request, querySchema);
  const result = source ? await jobRecapFrom(job.id, source) : await cachedJobRecap(job.id);
  if (!result) throw new DomainError("not_found", `job ${job.id} has no structured events (run by an RTE without the callback plugin?)`);
  return NextResponse.json(result.recap, { headers: { "x-recap-source": result.source } });
});
