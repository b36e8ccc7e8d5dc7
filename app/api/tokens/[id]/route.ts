import { NextResponse } from "next/server";
import { requireUser, route } from "@/server/api/route";
import { revokeToken } from "@/server/auth/personal-tokens";

type Context = { params: Promise<{ id: string }> };

/** DELETE /api/tokens/ID → 204: the caller's own token, or anyone's for an admin. */
export const DELETE = route(async (request: Request, { params }: Context) => {
  const user = await requireUser(request);
  await revokeToken(user, (await params).id);
  return new NextResponse(null, { status: 204 });
});
