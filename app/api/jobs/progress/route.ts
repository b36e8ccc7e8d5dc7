import { NextResponse } from "next/server";
import { jobsProgress as contract } from "@/server/api/contracts/jobs";
import { parseIdListQuery } from "@/server/api/id-list";
import { requireUser, route } from "@/server/api/route";
import { progressOfJobs } from "@/server/jobs/progress";

/** The progress of several jobs in one request (the job list's running rows); unknown ids are left out. */
export const GET = route(async (request: Request) => {
  await requireUser(request);
  const { ids } = parseIdListQuery(request, contract.query);
  return NextResponse.json({ progress: await progressOfJobs(ids) });
});
