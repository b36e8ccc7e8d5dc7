import { NextResponse } from "next/server";
import { parseJsonBody, requireUser, route } from "@/server/api/route";
import { changeOwnProfile as contract } from "@/server/api/contracts/auth";
import { changeOwnEmail, ownProfile } from "@/server/auth/users";

/** GET /api/auth/me: who is signed in, and their profile (email). */
export const GET = route(async (request: Request) => {
  const user = await requireUser(request);
  return NextResponse.json({ user, profile: await ownProfile(user) });
});

/** PATCH /api/auth/me `{"email"}`: set your own email (null or "" clears it). */
export const PATCH = route(async (request: Request) => {
  const user = await requireUser(request);
  const { email } = await parseJsonBody(request, contract.body.schema, { fields: true });
  return NextResponse.json({ user, profile: await changeOwnEmail(user, email) });
});
