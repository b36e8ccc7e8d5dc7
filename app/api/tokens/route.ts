import { NextResponse } from "next/server";
import { SMALL_JSON_BODY_BYTES } from "@/server/api/body";
import { parseJsonBody, parseQuery, requireCredential, requireUser, route } from "@/server/api/route";
import { createToken as createContract, listTokens as listContract } from "@/server/api/contracts/tokens";
import { createToken, listTokens } from "@/server/auth/personal-tokens";

/** GET /api/tokens[?user=NAME|?all=1] → `{"tokens"}`: the caller's personal and sign-in tokens (admins: others'). */
export const GET = route(async (request: Request) => {
  const user = await requireUser(request);
  return NextResponse.json({ tokens: await listTokens(user, parseQuery(request, listContract.query)) });
});

/** POST /api/tokens `{"name", "scope"?, "expiresInDays"? | "expiresAt"?}` → 201 `{"token", "id", …}`: the secret, this once. */
export const POST = route(async (request: Request) => {
  const credential = await requireCredential(request);
  const input = await parseJsonBody(request, createContract.body.schema, { fields: true, maxBytes: SMALL_JSON_BODY_BYTES });
  const { token, view } = await createToken(credential, input);
  return NextResponse.json({ token, ...view }, { status: 201, headers: { "cache-control": "no-store" } });
});
