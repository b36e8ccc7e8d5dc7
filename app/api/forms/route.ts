import { NextResponse } from "next/server";
import { requireViewer, route } from "@/server/api/route";
import { launchableForms } from "@/server/access/policy";
import { publicForm } from "@/server/forms/public-view";

/** The catalog: the forms the reader may launch. */
export const GET = route(async (request: Request) => {
  const forms = await launchableForms(await requireViewer(request));
  return NextResponse.json({ forms: forms.map((form) => publicForm(form.definition)) });
});
