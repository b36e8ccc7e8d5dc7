import { NextResponse } from "next/server";
import { parseJsonBody, requireAdmin, requireAdminCredential, route } from "@/server/api/route";
import { changeUser as contract } from "@/server/api/contracts/auth";
import { changeUser, removeUser } from "@/server/auth/users";

type Context = { params: Promise<{ username: string }> };

/** PATCH /api/users/NAME `{"role"?, "password"?}` (admins): sessions of that user end (your own: all but this one). */
export const PATCH = route(async (request: Request, { params }: Context) => {
  const { user: admin, tokenId } = await requireAdminCredential(request, "user.role");
  const change = await parseJsonBody(request, contract.body.schema, { fields: true });
  await changeUser(admin, (await params).username, change, tokenId);
  return new NextResponse(null, { status: 204 });
});

/** DELETE /api/users/NAME (admins): only accounts that launched no job. */
export const DELETE = route(async (request: Request, { params }: Context) => {
  const admin = await requireAdmin(request, "user.delete");
  await removeUser(admin, (await params).username);
  return new NextResponse(null, { status: 204 });
});
