/**
 * The HTTP side of the one error model: every API route answers an error as
 * `{"error": {"code", "message", "fields"?}}` with the status its DomainError code maps to.
 * Anything else is logged with its stack and answered with a generic 500 (see route.ts): no
 * driver message or stack trace ever reaches a browser.
 */
import type { z } from "zod";
import { type DomainError, type DomainErrorCode } from "../errors";

export const ERROR_STATUS: Record<DomainErrorCode | "internal", number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  validation_failed: 422,
  too_many_requests: 429,
  internal: 500,
  unavailable: 503,
};
export type ErrorCode = keyof typeof ERROR_STATUS;

export function errorBody(code: ErrorCode, message: string, fields?: Record<string, string>) {
  return { error: { code, message, ...(fields ? { fields } : {}) } };
}

/** Status and headers of the answer to a DomainError. */
export function httpAnswer(error: DomainError): { status: number; headers?: Record<string, string> } {
  const headers = error.retryAfterSeconds !== undefined ? { "retry-after": String(error.retryAfterSeconds) } : undefined;
  return { status: ERROR_STATUS[error.code], headers };
}

/** "values.message: is required; form: expected string" */
export function zodMessage(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; ");
}
