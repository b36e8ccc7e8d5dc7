import { NextResponse } from "next/server";
import { requireJobReader, route } from "@/server/api/route";

/** The job, with what the reader may do with it (`permissions`: approve, abort). */
export const GET = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const { job, permissions } = await requireJobReader(request, (await params).id);
  return NextResponse.json({ job, permissions });
});
