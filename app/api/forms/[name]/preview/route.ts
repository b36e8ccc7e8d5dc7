import { NextResponse } from "next/server";
import { startPreview as contract } from "@/server/api/contracts/preview";
import { parseJsonBody, requireViewer, route } from "@/server/api/route";
import { previewJob } from "@/server/jobs/launch";
import { jobLifecycle } from "@/server/runtime";

/** A preview job: validated and allowed as a launch, answered with the plan instead of a run. */
export const POST = route(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  const viewer = await requireViewer(request);
  const body = await parseJsonBody(request, contract.body.schema);
  const id = await previewJob(jobLifecycle(), viewer, (await params).name, body.values, body.options);
  return NextResponse.json({ id }, { status: 201 });
});
