import { NextResponse } from "next/server";
import { createGroupEndpoint as contract } from "@/server/api/contracts/groups";
import { parseJsonBody, requireAdmin, route } from "@/server/api/route";
import { addGroup, listGroups } from "@/server/access/groups";

export const GET = route(async (request: Request) => {
  await requireAdmin(request);
  return NextResponse.json({ groups: await listGroups() });
});

/** POST /api/groups `{"name", "description"?}` (admins) → 201 `{"group"}`. */
export const POST = route(async (request: Request) => {
  const admin = await requireAdmin(request, "group.create");
  const group = await addGroup(admin, await parseJsonBody(request, contract.body.schema, { fields: true }));
  return NextResponse.json({ group }, { status: 201 });
});
