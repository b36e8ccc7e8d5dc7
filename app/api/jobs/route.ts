import { NextResponse } from "next/server";
import { launchJob as contract, listJobs as listContract } from "@/server/api/contracts/jobs";
import { parseJobListQuery } from "@/server/api/job-list-query";
import { parseJsonBody, requireViewer, route } from "@/server/api/route";
import { jobScopeOf } from "@/server/access/policy";
import { listJobPage } from "@/server/data/job-list";
import { launchJob } from "@/server/jobs/launch";
import { jobLifecycle } from "@/server/runtime";

export const POST = route(async (request: Request) => {
  const viewer = await requireViewer(request);
  const body = await parseJsonBody(request, contract.body.schema);
  const id = await launchJob(jobLifecycle(), viewer, body.form, body.values, body.options);
  return NextResponse.json({ id }, { status: 201 });
});

export const GET = route(async (request: Request) => {
  const viewer = await requireViewer(request);
  // Only the jobs the reader may see (server/access/policy.ts).
  return NextResponse.json(await listJobPage(parseJobListQuery(request, listContract.query), await jobScopeOf(viewer)));
});
