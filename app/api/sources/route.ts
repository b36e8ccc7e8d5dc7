import { NextResponse } from "next/server";
import { parseJsonBody, requireAdmin, route } from "@/server/api/route";
import { createSource as contract } from "@/server/api/contracts/sources";
import { createSource, listSourceViews } from "@/server/sources/sources";

/** GET /api/sources (admins): every Git source with its sync status; never a secret. */
export const GET = route(async (request: Request) => {
  await requireAdmin(request);
  return NextResponse.json({ sources: await listSourceViews() });
});

/** POST /api/sources `{"name", "url", "ref"?, "credential"?, "formsPath"?, "syncIntervalMinutes"?, "webhook"?}` (admins) → 201. */
export const POST = route(async (request: Request) => {
  const admin = await requireAdmin(request, "source.create");
  const answer = await createSource(await parseJsonBody(request, contract.body.schema, { fields: true }), admin.username);
  return NextResponse.json(answer, { status: 201 });
});
