import { NextResponse } from "next/server";
import { requireAdmin, route } from "@/server/api/route";
import { ensureDemoVaultCredential, importForms } from "@/server/bootstrap";
import { loadAppConfig } from "@/server/config";

/**
 * POST /api/forms/import (admins): re-reads the forms folder (PLAYFORM_FORMS_DIR) after an
 * edit, without a restart. Answers which forms were imported and why others were not.
 */
export const POST = route(async (request: Request) => {
  const admin = await requireAdmin(request);
  const config = loadAppConfig();
  const result = await importForms(config, (line) => console.log(`[forms] ${line} (asked by ${admin.username})`));
  await ensureDemoVaultCredential((line) => console.log(`[forms] ${line}`));
  return NextResponse.json({ folder: config.PLAYFORM_FORMS_DIR, ...result });
});
