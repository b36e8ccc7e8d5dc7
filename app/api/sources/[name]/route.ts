import { NextResponse } from "next/server";
import { parseJsonBody, requireAdmin, route } from "@/server/api/route";
import { updateSource as contract } from "@/server/api/contracts/sources";
import { changeSource, deleteSource, getSourceView } from "@/server/sources/sources";

type Context = { params: Promise<{ name: string }> };

/** GET /api/sources/NAME (admins). */
export const GET = route(async (request: Request, { params }: Context) => {
  await requireAdmin(request);
  return NextResponse.json({ source: await getSourceView((await params).name) });
});

/** PATCH /api/sources/NAME (admins): taken into account at the next sync. */
export const PATCH = route(async (request: Request, { params }: Context) => {
  const admin = await requireAdmin(request, "source.update");
  const { name } = await params;
  return NextResponse.json(await changeSource(name, await parseJsonBody(request, contract.body.schema, { fields: true }), admin.username));
});

/** DELETE /api/sources/NAME (admins): the source and its forms no job ran; 409 while it syncs. */
export const DELETE = route(async (request: Request, { params }: Context) => {
  const admin = await requireAdmin(request, "source.delete");
  await deleteSource((await params).name, admin.username);
  return new NextResponse(null, { status: 204 });
});
