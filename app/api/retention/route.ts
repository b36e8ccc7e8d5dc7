import { NextResponse } from "next/server";
import { requireAdmin, route } from "@/server/api/route";
import { retentionStatus } from "@/server/retention/run";

export const dynamic = "force-dynamic";

/** GET /api/retention (admins): the settings, the last run and what a run now would clean. */
export const GET = route(async (request: Request) => {
  await requireAdmin(request);
  return NextResponse.json(await retentionStatus());
});
