import { NextResponse } from "next/server";
import { z } from "zod";
import { DomainError } from "@/server/errors";
import { parseQuery, requireUser, route } from "@/server/api/route";
import { findForm } from "@/server/forms/catalog";
import { formTrend } from "@/server/jobs/compare";

const querySchema = z.object({ last: z.coerce.number().int().min(1).max(100).default(10) });

/** Across the last N finished runs of a form: never-idempotent tasks, durations, host failure rates. */
export const GET = route(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  await requireUser(request);
  const { name } = await params;
  if (!(await findForm(name))) throw new DomainError("not_found", `no form named "${name}"`);
  const { last } = parseQuery(request, querySchema);
  return NextResponse.json(await formTrend(name, last));
});
