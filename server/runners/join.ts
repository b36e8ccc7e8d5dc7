/**
 * An RTE without a token asks to join: the request only creates a pending runner that does
 * nothing until an admin approves it (server/runners/actions.ts).
 */
import { DomainError } from "../errors";
import { createJoinRequest } from "../data/runners";
import type { JoinRequestBody } from "../protocol/join";
import { CONTRACT_VERSION } from "../protocol/rte-messages";

export async function requestToJoin(request: JoinRequestBody): Promise<{ runnerId: string; joinSecret: string; status: "pending" }> {
  if (request.v !== CONTRACT_VERSION)
    throw new DomainError("bad_request", `contract version mismatch: the app speaks v${CONTRACT_VERSION}`);
  const created = await createJoinRequest(request);
  if (!created) throw new DomainError("conflict", `a runner named "${request.name}" already exists; choose another RTE_RUNNER_NAME`);
  return { runnerId: created.runnerId, joinSecret: created.joinSecret, status: "pending" };
}
