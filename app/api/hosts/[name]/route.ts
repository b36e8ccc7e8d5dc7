import { NextResponse } from "next/server";
import { getHost as contract } from "@/server/api/contracts/hosts";
import { parseQuery, requireViewer, route } from "@/server/api/route";
import { hostDetail } from "@/server/jobs/hosts";

/** GET /api/hosts/NAME?cursor=&limit=: a host and its runs the caller may read, newest first. */
export const GET = route(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  const viewer = await requireViewer(request);
  return NextResponse.json(await hostDetail(viewer, (await params).name, parseQuery(request, contract.query)));
});
