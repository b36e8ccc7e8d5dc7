import { setGroupMembersEndpoint as contract } from "@/server/api/contracts/groups";
import { parseJsonBody, requireAdmin, route } from "@/server/api/route";
import { replaceGroupMembers } from "@/server/access/groups";

/** PUT /api/groups/NAME/members `{"users": [...]}` (admins) → 204: the members become exactly these. */
export const PUT = route(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  const admin = await requireAdmin(request, "group.members");
  const { users } = await parseJsonBody(request, contract.body.schema, { fields: true });
  await replaceGroupMembers(admin, (await params).name, users);
  return new Response(null, { status: 204 });
});
