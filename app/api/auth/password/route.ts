import { NextResponse } from "next/server";
import { parseJsonBody, requireCredential, route } from "@/server/api/route";
import { changeOwnPassword as contract } from "@/server/api/contracts/auth";
import { changeOwnPassword } from "@/server/auth/users";

/** POST /api/auth/password `{"currentPassword", "newPassword"}`: change your own password; your other sessions and tokens end. */
export const POST = route(async (request: Request) => {
  const { user, tokenId } = await requireCredential(request);
  const { currentPassword, newPassword } = await parseJsonBody(request, contract.body.schema, { fields: true });
  await changeOwnPassword(user, currentPassword, newPassword, tokenId);
  return new NextResponse(null, { status: 204 });
});
