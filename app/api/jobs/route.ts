import { NextResponse } from "next/server";
import { z } from "zod";
import { parseJobListQuery } from "@/server/api/job-list-query";
import { parseJsonBody, requireUser, route } from "@/server/api/route";
import { listJobPage } from "@/server/data/job-list";
import { launchJob } from "@/server/jobs/launch";
import { jobLifecycle } from "@/server/runtime";

const launchSchema = z.strictObject({
  form: z.string().min(1, "is required"),
  values: z.record(z.string(), z.unknown()).default({}),
  /** Run options the form lets users choose at launch; checked against the form in launchJob. */
  options: z.unknown().optional(),
});

export const POST = route(async (request: Request) => {
  const user = await requireUser(request);
  const body = await parseJsonBody(request, launchSchema);
  const id = await launchJob(jobLifecycle(), user, body.form, body.values, body.options);
  return NextResponse.json({ id }, { status: 201 });
});

export const GET = route(async (request: Request) => {
  await requireUser(request);
  return NextResponse.json(await listJobPage(parseJobListQuery(request)));
});
