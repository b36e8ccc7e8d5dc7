import { NextResponse } from "next/server";
import { requireAdmin, route } from "@/server/api/route";
import { runRunnerAction } from "@/server/runners/actions";

/** POST /api/runners/ID/{approve|reject|revoke|rotate|default|repin|no-tls|require-tls} (admins). */
export const POST = route(async (request: Request, { params }: { params: Promise<{ id: string; action: string }> }) => {
  await requireAdmin(request);
  const { id, action } = await params;
  return NextResponse.json(await runRunnerAction(id, action));
});
