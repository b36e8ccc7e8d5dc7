import { NextResponse } from "next/server";
import { requireUser, route } from "@/server/api/route";
import { listPublicForms } from "@/server/forms/catalog";

export const GET = route(async (request: Request) => {
  await requireUser(request);
  return NextResponse.json({ forms: await listPublicForms() });
});
