import { NextResponse } from "next/server";
import { parseIdListParam } from "@/server/api/id-list";
import { requireViewer, route } from "@/server/api/route";
import { jobScopeOf } from "@/server/access/policy";
import { progressOfJobs } from "@/server/jobs/progress";

/** Most ids one request may ask about (a page of the job list holds 50 jobs). */
const MAX_IDS = 100;

/** The progress of several jobs in one request (the job list's running rows); unknown ids and jobs the reader may not see are left out. */
export const GET = route(async (request: Request) => {
  const viewer = await requireViewer(request);
  return NextResponse.json({ progress: await progressOfJobs(parseIdListParam(request, "ids", MAX_IDS), await jobScopeOf(viewer)) });
});
