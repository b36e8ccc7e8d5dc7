import { NextResponse } from "next/server";
import { parseJsonBody, requireAdmin, route } from "@/server/api/route";
import { createCredential as contract } from "@/server/api/contracts/credentials";
import { createCredential, listCredentialViews } from "@/server/credentials/store";

/** GET /api/credentials (admins): names, kinds, descriptions, dates, forms using them; never a secret. */
export const GET = route(async (request: Request) => {
  await requireAdmin(request);
  return NextResponse.json({ credentials: await listCredentialViews() });
});

/** POST /api/credentials `{"name", "kind", "description"?, ...payload}` (admins) → 201 `{"credential"}`. */
export const POST = route(async (request: Request) => {
  const admin = await requireAdmin(request, "credential.create");
  const credential = await createCredential(await parseJsonBody(request, contract.body.schema, { fields: true }), admin.username);
  return NextResponse.json({ credential }, { status: 201 });
});
