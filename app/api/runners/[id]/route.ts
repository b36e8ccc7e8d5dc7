import { requireAdmin, route } from "@/server/api/route";
import { deleteRunner } from "@/server/runners/actions";

/** DELETE /api/runners/ID: a rejected runner (admins; server/runners/actions.ts). */
export const DELETE = route(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const admin = await requireAdmin(request, "runner.delete");
  await deleteRunner((await params).id, admin.username);
  return new Response(null, { status: 204 });
});
