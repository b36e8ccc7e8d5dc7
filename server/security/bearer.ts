/**
 * A static bearer token (the app's PLAYFORM_METRICS_TOKEN, the RTE's RTE_METRICS_TOKEN):
 * the header is compared with the expected token through equal-length SHA-256 digests in
 * constant time, so neither the token's length nor a matching prefix shows in the timing.
 */
import { createHash, timingSafeEqual } from "node:crypto";

/** The digest to keep instead of the token itself, for bearerMatches. */
export function bearerDigest(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}

/** Whether an Authorization header carries the token whose digest is `expected`. */
export function bearerMatches(header: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? "");
  return timingSafeEqual(bearerDigest(match?.[1] ?? ""), expected) && match !== null;
}
