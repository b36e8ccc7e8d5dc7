import { NextResponse } from "next/server";
import { parseJsonBody, requireAdmin, route } from "@/server/api/route";
import { addUser as contract } from "@/server/api/contracts/auth";
import { addUser } from "@/server/auth/users";
import { listUsers } from "@/server/data/users";

export const GET = route(async (request: Request) => {
  await requireAdmin(request);
  return NextResponse.json({ users: await listUsers() });
});

/** POST /api/users `{"username", "password", "role"?}` (admins) → 201 `{"user"}`. */
export const POST = route(async (request: Request) => {
  const admin = await requireAdmin(request, "user.create");
  const user = await addUser(admin, await parseJsonBody(request, contract.body.schema, { fields: true }));
  return NextResponse.json({ user }, { status: 201 });
});
