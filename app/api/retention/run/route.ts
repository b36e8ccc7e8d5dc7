import { NextResponse } from "next/server";
import { requireAdmin, route } from "@/server/api/route";
import { runRetentionNow } from "@/server/retention/run";

export const dynamic = "force-dynamic";

/** POST /api/retention/run (admins): runs retention now → `{"report"}`; 409 while a run is under way. */
export const POST = route(async (request: Request) => {
  const admin = await requireAdmin(request, "retention.run");
  return NextResponse.json({ report: await runRetentionNow(admin.username) });
});
