import { NextResponse } from "next/server";
import { requireAdmin, route } from "@/server/api/route";
import { syncSourceNow } from "@/server/sources/sync";

type Context = { params: Promise<{ name: string }> };

/** POST /api/sources/NAME/sync (admins): answers `{"status", "commit", "imported", "errors", "error"}` once the sync ended. */
export const POST = route(async (request: Request, { params }: Context) => {
  const admin = await requireAdmin(request, "source.sync");
  return NextResponse.json(await syncSourceNow((await params).name, admin.username));
});
