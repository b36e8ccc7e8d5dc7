import { NextResponse } from "next/server";
import { requireAdmin, route } from "@/server/api/route";
import { listRunnerViews } from "@/server/data/runners";

export const GET = route(async (request: Request) => {
  await requireAdmin(request);
  return NextResponse.json({ runners: await listRunnerViews() });
});
