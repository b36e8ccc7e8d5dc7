import { NextResponse } from "next/server";
import { jobRecap } from "@/server/api/contracts/jobs";
import { parseQuery, readableJobId, route } from "@/server/api/route";
import { recapOfJob } from "@/server/jobs/analysis";

/**
 * The recap JSON of docs/recap.md, from the job's structured events when it has them, else
 * from its text. `?source=events|text` forces one (to check that both agree);
 * `X-Recap-Source` says which one answered.
 */
export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const jobId = await readableJobId(request, (await params).id);
  const { source } = parseQuery(request, jobRecap.query);
  const result = await recapOfJob(jobId, source);
  return NextResponse.json(result.recap, { headers: { "x-recap-source": result.source } });
});
