import { NextResponse } from "next/server";
import { parseJobId, requireUser, route } from "@/server/api/route";
import { requireJob } from "@/server/jobs/access";
import { jobRecap } from "@/server/jobs/recap";

/** The recap JSON of docs/recap.md; `X-Recap-Source` says whether events or text gave it. */
export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  await requireUser(request);
  const job = await requireJob(parseJobId((await params).id));
  const { recap, source } = await jobRecap(job.id);
  return NextResponse.json(recap, { headers: { "x-recap-source": source } });
});
