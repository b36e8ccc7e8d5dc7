/**
 * An RTE without a token asks to join: the request only creates a pending runner that does
 * nothing until an admin approves it (server/runners/actions.ts).
 *
 * Anyone who reaches the app may ask, so asking is throttled (in memory, per app node, see
 * server/auth/throttle.ts): JOINS_PER_ADDRESS requests per minute from one client address,
 * and no new request while MAX_PENDING runners already wait for an admin. Either answers
 * 429 with Retry-After; a waiting RTE simply asks again later.
 */
import { DomainError } from "../errors";
import { recordAudit } from "../audit/record";
import { RecentEvents, addressKey, sharedCounter } from "../auth/throttle";
import { createJoinRequest, listRunners } from "../data/runners";
import type { JoinRequestBody } from "../protocol/join";
import { CONTRACT_VERSION } from "../protocol/rte-messages";

const JOINS_PER_ADDRESS = 10;
const JOIN_WINDOW_MS = 60 * 1000;
const MAX_PENDING = 50;
/** When a full waiting list is worth asking again. */
const PENDING_RETRY_SECONDS = 60;

const joinsByAddress = () => sharedCounter("joinRequestsByAddress", () => new RecentEvents(JOINS_PER_ADDRESS, JOIN_WINDOW_MS));

export async function requestToJoin(
  request: JoinRequestBody,
  client: { address: string },
): Promise<{ runnerId: string; joinSecret: string; status: "pending" }> {
  const address = addressKey(client.address);
  const wait = joinsByAddress().retryAfterSeconds(address);
  if (wait > 0) {
    throw new DomainError("too_many_requests", `too many join requests from your address: try again in ${wait} s`, undefined, wait);
  }
  joinsByAddress().record(address);
  if (request.v !== CONTRACT_VERSION)
    throw new DomainError("bad_request", `contract version mismatch: the app speaks v${CONTRACT_VERSION}`);
  const pending = (await listRunners()).filter((runner) => runner.status === "pending").length;
  if (pending >= MAX_PENDING) {
    throw new DomainError(
      "too_many_requests",
      `${pending} runners are already waiting for an admin to approve or reject them; ask again later`,
      undefined,
      PENDING_RETRY_SECONDS,
    );
  }
  // The address the request came from is what the admin sees next to what the RTE says of itself.
  const created = await createJoinRequest({ ...request, joinAddress: client.address });
  const audit = { actor: `runner:${request.name}`, action: "runner.join", target: `runner:${request.name}` } as const;
  if (!created) {
    await recordAudit({ ...audit, outcome: "failure", details: { error: "conflict", reason: "a runner of that name exists" } });
    throw new DomainError("conflict", `a runner named "${request.name}" already exists; choose another RTE_RUNNER_NAME`);
  }
  await recordAudit({ ...audit, outcome: "success", details: { runnerId: created.runnerId } });
  return { runnerId: created.runnerId, joinSecret: created.joinSecret, status: "pending" };
}
