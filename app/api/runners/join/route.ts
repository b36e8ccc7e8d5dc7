import { NextResponse } from "next/server";
import { SMALL_JSON_BODY_BYTES } from "@/server/api/body";
import { clientAddress } from "@/server/api/client-address";
import { joinRunner } from "@/server/api/contracts/runners";
import { parseJsonBody, route } from "@/server/api/route";
import { requestToJoin } from "@/server/runners/join";

/**
 * An RTE without a token asks to join. No credentials: the request only creates a pending
 * runner that does nothing until an admin approves it. Throttled per client address and by the
 * number of runners already waiting (server/runners/join.ts).
 */
export const POST = route(async (request: Request) => {
  const body = await parseJsonBody(request, joinRunner.body.schema, { maxBytes: SMALL_JSON_BODY_BYTES });
  return NextResponse.json(await requestToJoin(body, { address: clientAddress(request) }), { status: 202 });
});
