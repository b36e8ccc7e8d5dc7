import { NextResponse } from "next/server";
import { launchJob as contract, listJobs as listContract } from "@/server/api/contracts/jobs";
import { parseJobListQuery } from "@/server/api/job-list-query";
import { parseJsonBody, requireUser, route } from "@/server/api/route";
import { listJobPage } from "@/server/data/job-list";
import { launchJob } from "@/server/jobs/launch";
import { jobLifecycle } from "@/server/runtime";

export const POST = route(async (request: Request) => {
  const user = await requireUser(request);
  const body = await parseJsonBody(request, contract.body.schema);
  const id = await launchJob(jobLifecycle(), user, body.form, body.values, body.options);
  return NextResponse.json({ id }, { status: 201 });
});

export const GET = route(async (request: Request) => {
  await requireUser(request);
  return NextResponse.json(await listJobPage(parseJobListQuery(request, listContract.query)));
});
