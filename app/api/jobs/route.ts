import { NextResponse } from "next/server";
import { z } from "zod";
import { parseJsonBody, parseQuery, requireUser, route } from "@/server/api/route";
import { listJobViews } from "@/server/data/jobs";
import { launchJob } from "@/server/jobs/launch";

const launchSchema = z.object({
  form: z.string().min(1, "is required"),
  values: z.record(z.string(), z.unknown()).default({}),
});

export const POST = route(async (request: Request) => {
  const user = await requireUser(request);
  const body = await parseJsonBody(request, launchSchema);
  const id = await launchJob(user, body.form, body.values);
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
