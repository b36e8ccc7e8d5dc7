/**
 * The Idempotency-Key header of a launch (docs/api.md, "Launching a job twice"): 1 to 255
 * visible ASCII characters (a UUID, say). Anything else is refused, naming the header, rather
 * than ignored: a client that believes it is protected must learn that it is not.
 */
import { DomainError } from "../errors";

export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";

export function idempotencyKeyOf(request: Request): string | undefined {
  const key = request.headers.get(IDEMPOTENCY_KEY_HEADER);
  if (key === null) return undefined;
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    const message = "must be 1 to 255 visible ASCII characters (a UUID, say)";
    throw new DomainError("validation_failed", `${IDEMPOTENCY_KEY_HEADER}: ${message}`, { [IDEMPOTENCY_KEY_HEADER]: message });
  }
  return key;
}
