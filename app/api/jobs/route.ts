import { NextResponse } from "next/server";
import { launchJob as contract, listJobs as listContract } from "@/server/api/contracts/jobs";
import { idempotencyKeyOf } from "@/server/api/idempotency-key";
import { parseJobListQuery } from "@/server/api/job-list-query";
import { parseJsonBody, requireViewer, route } from "@/server/api/route";
import { jobScopeOf } from "@/server/access/policy";
import { listJobPage } from "@/server/data/job-list";
import { launchJobRequest } from "@/server/jobs/launch";
import { jobLifecycle } from "@/server/runtime";

/** 201 for a new job; 200 with the first job for an Idempotency-Key seen within 24 h (server/jobs/launch.ts). */
export const POST = route(async (request: Request) => {
  const viewer = await requireViewer(request);
  const key = idempotencyKeyOf(request);
  const body = await parseJsonBody(request, contract.body.schema);
  const { id, created } = await launchJobRequest(jobLifecycle(), viewer, body.form, body.values, body.options, {
    runner: body.runner,
    idempotencyKey: key,
  });
  return NextResponse.json({ id }, { status: created ? 201 : 200 });
});

export const GET = route(async (request: Request) => {
  const viewer = await requireViewer(request);
  // Only the jobs the reader may see (server/access/policy.ts).
  return NextResponse.json(await listJobPage(parseJobListQuery(request, listContract.query), await jobScopeOf(viewer)));
});
