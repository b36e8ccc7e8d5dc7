import { NextResponse } from "next/server";
import { DomainError } from "@/server/errors";
import { parseJsonBody, route } from "@/server/api/route";
import { RunnerConflictError, createJoinRequest } from "@/server/data/runners";
import { joinRequestSchema } from "@/server/protocol/join";
import { CONTRACT_VERSION } from "@/server/protocol/rte-messages";

/**
 * An RTE without a token asks to join. No credentials: the request only creates a pending
 * runner that does nothing until an admin approves it.
 */
export const POST = route(async (request: Request) => {
  const body = await parseJsonBody(request, joinRequestSchema);
  if (body.v !== CONTRACT_VERSION) throw new DomainError("bad_request", `contract version mismatch: the app speaks v${CONTRACT_VERSION}`);
  try {
    const { runnerId, joinSecret } = await createJoinRequest(body);
    return NextResponse.json({ runnerId, joinSecret, status: "pending" }, { status: 202 });
  } catch (error) {
    if (error instanceof RunnerConflictError) throw new DomainError("conflict", error.message);
    throw error;
  }
});
