import { NextResponse } from "next/server";
import { requireAdmin, route } from "@/server/api/route";
import { runRunnerAction, runnerAuditAction } from "@/server/runners/actions";

/** POST /api/runners/ID/{approve|reject|revoke|rotate|default|repin|no-tls|require-tls} (admins). */
export const POST = route(async (request: Request, { params }: { params: Promise<{ id: string; action: string }> }) => {
  const { id, action } = await params;
  const admin = await requireAdmin(request, runnerAuditAction(action));
  return NextResponse.json(await runRunnerAction(id, action, admin.username));
});
