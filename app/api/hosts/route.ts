import { NextResponse } from "next/server";
import { listHosts as contract } from "@/server/api/contracts/hosts";
import { parseQuery, requireViewer, route } from "@/server/api/route";
import { listHosts } from "@/server/jobs/hosts";

/** GET /api/hosts?q=&cursor=&limit=: the hosts of the runs the caller may read, by name. */
export const GET = route(async (request: Request) => {
  const viewer = await requireViewer(request);
  return NextResponse.json(await listHosts(viewer, parseQuery(request, contract.query)));
});
