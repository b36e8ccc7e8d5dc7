import { NextResponse } from "next/server";
import { SMALL_JSON_BODY_BYTES } from "@/server/api/body";
import { parseJsonBody, route } from "@/server/api/route";
import { pollJoinRequest } from "@/server/data/runners";
import { joinStatusRequestSchema } from "@/server/protocol/join";

/** The waiting RTE polls here; an approved runner's token is answered exactly once. */
export const POST = route(async (request: Request) => {
  const { runnerId, joinSecret } = await parseJsonBody(request, joinStatusRequestSchema, { maxBytes: SMALL_JSON_BODY_BYTES });
  return NextResponse.json(await pollJoinRequest(runnerId, joinSecret));
});
