import { NextResponse } from "next/server";
import { requireAdmin, route } from "@/server/api/route";
import { reimportForms } from "@/server/bootstrap";

/**
 * POST /api/forms/import (admins): re-reads the forms folder (PLAYFORM_FORMS_DIR) after an
 * edit, without a restart. Answers which forms were imported and why others were not.
 */
export const POST = route(async (request: Request) => {
  const admin = await requireAdmin(request, "forms.import");
  return NextResponse.json(await reimportForms(admin));
});
