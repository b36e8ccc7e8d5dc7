import { NextResponse } from "next/server";
import { parseJsonBody, requireAdmin, route } from "@/server/api/route";
import { replaceCredential as contract } from "@/server/api/contracts/credentials";
import { deleteCredential, replaceCredential } from "@/server/credentials/store";

type Context = { params: Promise<{ name: string }> };

/** PUT /api/credentials/NAME `{"kind", "description"?, ...payload}` (admins): a new secret, same kind. */
export const PUT = route(async (request: Request, { params }: Context) => {
  const admin = await requireAdmin(request, "credential.update");
  const { name } = await params;
  const credential = await replaceCredential(name, await parseJsonBody(request, contract.body.schema, { fields: true }), admin.username);
  return NextResponse.json({ credential });
});

/** DELETE /api/credentials/NAME (admins): 409 while a form still names it. */
export const DELETE = route(async (request: Request, { params }: Context) => {
  const admin = await requireAdmin(request, "credential.delete");
  await deleteCredential((await params).name, admin.username);
  return new NextResponse(null, { status: 204 });
});
