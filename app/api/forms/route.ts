import { NextResponse } from "next/server";
import { requireUser, route } from "@/server/api/route";
import { listForms } from "@/server/forms/catalog";
import { publicForm } from "@/server/forms/public-view";

export const GET = route(async (request: Request) => {
  await requireUser(request);
  const forms = await listForms();
  return NextResponse.json({ forms: forms.map((f) => publicForm(f.definition)) });
});
