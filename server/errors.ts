/**
 * The one error type of the domain: services (jobs, forms, auth, credentials, runners) throw a
 * DomainError with a code that says what kind of failure it is, in words for the person who
 * caused it. They know nothing of HTTP: server/api/errors.ts maps each code to a status, and
 * anything that is not a DomainError is a bug, logged and answered with a generic 500.
 */
export const DOMAIN_ERROR_CODES = [
  "bad_request",
  "unauthorized",
  "forbidden",
  "not_found",
  "conflict",
  /** What was asked for existed but was removed for good (a job's output, by retention). */
  "gone",
  "payload_too_large",
  "unsupported_media_type",
  "validation_failed",
  "too_many_requests",
  "unavailable",
  /** A service the app asked on the user's behalf (a form's choice source) answered badly. */
  "bad_gateway",
  /** A service the app asked on the user's behalf did not answer in time. */
  "gateway_timeout",
] as const;
export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    /** Per-field messages of bad input, keyed by the field's path ("values.message"). */
    readonly fields?: Record<string, string>,
    /** For too_many_requests: when trying again makes sense. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = "DomainError";
  }
}
