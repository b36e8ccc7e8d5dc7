import { requireAdmin, route } from "@/server/api/route";
import { removeGroup } from "@/server/access/groups";

/** DELETE /api/groups/NAME (admins) → 204. */
export const DELETE = route(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  const admin = await requireAdmin(request, "group.delete");
  await removeGroup(admin, (await params).name);
  return new Response(null, { status: 204 });
});
