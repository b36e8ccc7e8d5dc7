import { NextResponse } from "next/server";
import { DomainError } from "@/server/errors";
import { requireUser, route } from "@/server/api/route";
import { findForm } from "@/server/forms/catalog";
import { publicForm } from "@/server/forms/public-view";

export const GET = route(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  await requireUser(request);
  const { name } = await params;
  const form = await findForm(name);
  if (!form) throw new DomainError("not_found", `no form named "${name}"`);
  return NextResponse.json({ form: publicForm(form.definition) });
});
