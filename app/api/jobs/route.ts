import { NextResponse } from "next/server";
import { z } from "zod";
import { parseJsonBody, parseQuery, requireUser, route } from "@/server/api/route";
import { listJobViews } from "@/server/data/jobs";
import { launchJob } from "@/server/jobs/launch";
import { jobLifecycle } from "@/server/runtime";

const launchSchema = z.object({
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

const listSchema = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  form: z.string().optional(),
});

export const GET = route(async (request: Request) => {
  await requireUser(request);
  const query = parseQuery(request, listSchema);
  return NextResponse.json({ jobs: await listJobViews(query) });
});
