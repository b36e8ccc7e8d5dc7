import { NextResponse } from "next/server";
import { parseJobId, requireViewer, route } from "@/server/api/route";
import { previewPlan } from "@/server/jobs/preview";

/** The preview's status and the plan listed so far. */
export const GET = route(async (request: Request, { params }: { params: Promise<{ name: string; id: string }> }) => {
  const viewer = await requireViewer(request);
  const { name, id } = await params;
  return NextResponse.json(await previewPlan(viewer, name, parseJobId(id)));
});
