import { NextResponse } from "next/server";
import { SMALL_JSON_BODY_BYTES } from "@/server/api/body";
import { joinStatus } from "@/server/api/contracts/runners";
import { parseJsonBody, route } from "@/server/api/route";
import { pollJoinRequest } from "@/server/data/runners";

/** The waiting RTE polls here; an approved runner's token is answered exactly once. */
export const POST = route(async (request: Request) => {
  const { runnerId, joinSecret } = await parseJsonBody(request, joinStatus.body.schema, { maxBytes: SMALL_JSON_BODY_BYTES });
  return NextResponse.json(await pollJoinRequest(runnerId, joinSecret));
});
