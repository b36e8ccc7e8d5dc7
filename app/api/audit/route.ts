import { NextResponse } from "next/server";
import { parseAuditQuery } from "@/server/api/audit-query";
import { requireAdmin, route } from "@/server/api/route";
import { listAuditEvents } from "@/server/data/audit";

/** GET /api/audit?actor=&action=&outcome=&since=&limit=&before= (admins): newest first. */
export const GET = route(async (request: Request) => {
  await requireAdmin(request);
  return NextResponse.json(await listAuditEvents(parseAuditQuery(request)));
});
