/**
 * How an inbound RTE knows the app connecting to it is the app that approved it: the app holds
 * only its token's SHA-256 (never the token), so it proves it knows that hash with an HMAC over
 * a fresh time stamp and nonce. The RTE computes the same from its own token, accepts the proof
 * within PROOF_WINDOW_MS and each nonce once, and only then tells the app its token (which the
 * app checks against the hash, as it checks an outbound RTE's handshake).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { sha256Hex } from "./tokens";

export const PROOF_WINDOW_MS = 120_000;

export interface InboundProof {
  ts: number;
  nonce: string;
  proof: string;
}

function mac(tokenHash: string, runnerName: string, ts: number, nonce: string): string {
  return createHmac("sha256", tokenHash).update(`playform-inbound-v1\n${runnerName}\n${ts}\n${nonce}`).digest("hex");
}

/** The app's side: from the stored token hash. */
export function makeInboundProof(tokenHash: string, runnerName: string, now = Date.now()): InboundProof {
  const nonce = randomBytes(16).toString("hex");
  return { ts: now, nonce, proof: mac(tokenHash, runnerName, now, nonce) };
}

/** The RTE's side: from its own token. Remembers nonces it accepted, refusing a replay. */
export class InboundProofChecker {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly token: string,
    private readonly runnerName: string,
  ) {}

  /** Null when accepted, else why not. */
  check(offered: Partial<InboundProof>, now = Date.now()): string | null {
    for (const [nonce, at] of this.seen) if (now - at > 2 * PROOF_WINDOW_MS) this.seen.delete(nonce);
    const { ts, nonce, proof } = offered;
    if (typeof ts !== "number" || typeof nonce !== "string" || typeof proof !== "string" || !/^[0-9a-f]{64}$/.test(proof)) {
      return "the connection carries no proof of the runner's token";
    }
    if (Math.abs(now - ts) > PROOF_WINDOW_MS)
      return "the proof of the runner's token is too old (are the clocks of the app and the runner apart?)";
    if (this.seen.has(nonce)) return "the proof of the runner's token was already used";
    const expected = Buffer.from(mac(sha256Hex(this.token), this.runnerName, ts, nonce), "hex");
    if (!timingSafeEqual(expected, Buffer.from(proof, "hex")))
      return "the app does not know this runner's token (revoked, rotated, or another app)";
    this.seen.set(nonce, now);
    return null;
  }
}
