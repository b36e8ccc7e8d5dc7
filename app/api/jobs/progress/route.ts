import { NextResponse } from "next/server";
import { jobsProgress as contract } from "@/server/api/contracts/jobs";
import { parseIdListQuery } from "@/server/api/id-list";
import { requireViewer, route } from "@/server/api/route";
import { jobScopeOf } from "@/server/access/policy";
import { progressOfJobs } from "@/server/jobs/progress";

/** The progress of several jobs in one request (the job list's running rows); unknown ids and jobs the reader may not see are left out. */
export const GET = route(async (request: Request) => {
  const viewer = await requireViewer(request);
  const { ids } = parseIdListQuery(request, contract.query);
  return NextResponse.json({ progress: await progressOfJobs(ids, await jobScopeOf(viewer)) });
});
