import { NextResponse } from "next/server";
import { fieldChoices as contract } from "@/server/api/contracts/forms";
import { optionalJsonBody, requireViewer, route } from "@/server/api/route";
import { choicesFor } from "@/server/forms/form-views";

/** The current choices of a field with a choice source, for a viewer who may launch the form. */
export const POST = route(async (request: Request, { params }: { params: Promise<{ name: string; field: string }> }) => {
  const viewer = await requireViewer(request);
  const { name, field } = await params;
  const { values } = await optionalJsonBody(request, contract.body.schema, { fields: true });
  return NextResponse.json({ choices: await choicesFor(viewer, name, field, values) });
});
