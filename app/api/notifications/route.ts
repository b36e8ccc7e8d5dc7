import { NextResponse } from "next/server";
import { NOTIFICATIONS_DEFAULT_LIMIT, recentNotifications } from "@/server/api/contracts/notifications";
import { parseQuery, requireAdmin, route } from "@/server/api/route";
import { listRecentDeliveries } from "@/server/data/notifications";

/** GET /api/notifications?status=failed&limit= (admins): the most recent deliveries of every job, newest first. */
export const GET = route(async (request: Request) => {
  await requireAdmin(request);
  const { status, limit } = parseQuery(request, recentNotifications.query);
  return NextResponse.json({ deliveries: await listRecentDeliveries({ status, limit: limit ?? NOTIFICATIONS_DEFAULT_LIMIT }) });
});
