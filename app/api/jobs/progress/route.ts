import { NextResponse } from "next/server";
import { parseIdListParam } from "@/server/api/id-list";
import { requireUser, route } from "@/server/api/route";
import { progressOfJobs } from "@/server/jobs/progress";

/** Most ids one request may ask about (a page of the job list holds 50 jobs). */
const MAX_IDS = 100;

/** The progress of several jobs in one request (the job list's running rows); unknown ids are left out. */
export const GET = route(async (request: Request) => {
  await requireUser(request);
  return NextResponse.json({ progress: await progressOfJobs(parseIdListParam(request, "ids", MAX_IDS)) });
});
