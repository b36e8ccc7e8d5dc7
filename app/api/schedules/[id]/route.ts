import { NextResponse } from "next/server";
import { updateSchedule as updateContract } from "@/server/api/contracts/schedules";
import { parseJsonBody, parseScheduleId, requireUser, route } from "@/server/api/route";
import { deleteSchedule, getSchedule, updateSchedule } from "@/server/schedules/schedules";

type Context = { params: Promise<{ id: string }> };

/** GET /api/schedules/ID → `{"schedule"}`: its owner's or an admin's. */
export const GET = route(async (request: Request, { params }: Context) => {
  const user = await requireUser(request);
  return NextResponse.json({ schedule: await getSchedule(user, parseScheduleId((await params).id)) });
});

/** PATCH /api/schedules/ID `{"enabled"?, "cron"?, "values"?, …}` → `{"schedule"}`. */
export const PATCH = route(async (request: Request, { params }: Context) => {
  const user = await requireUser(request);
  const id = parseScheduleId((await params).id);
  const change = await parseJsonBody(request, updateContract.body.schema, { fields: true });
  return NextResponse.json({ schedule: await updateSchedule(user, id, change) });
});

/** DELETE /api/schedules/ID → 204. */
export const DELETE = route(async (request: Request, { params }: Context) => {
  const user = await requireUser(request);
  await deleteSchedule(user, parseScheduleId((await params).id));
  return new NextResponse(null, { status: 204 });
});
