import { NextResponse } from "next/server";
import { createSchedule as createContract } from "@/server/api/contracts/schedules";
import { parseJsonBody, requireUser, requireViewer, route } from "@/server/api/route";
import { createSchedule, listSchedules } from "@/server/schedules/schedules";

/** GET /api/schedules → `{"schedules"}`: the caller's own (admins: everyone's). */
export const GET = route(async (request: Request) => {
  const user = await requireUser(request);
  return NextResponse.json({ schedules: await listSchedules(user) });
});

/** POST /api/schedules `{"form", "values", "cron", …}` → 201 Schedule (with `nextRuns`). */
export const POST = route(async (request: Request) => {
  const viewer = await requireViewer(request);
  const input = await parseJsonBody(request, createContract.body.schema, { fields: true });
  return NextResponse.json(await createSchedule(viewer, input), { status: 201 });
});
