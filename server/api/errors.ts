/**
 * The HTTP side of the one error model: every API route answers an error as
 * `{"error": {"code", "message", "fields"?}}` with the status its DomainError code maps to.
 * Anything else is logged with its stack and answered with a generic 500 (see route.ts): no
 * driver message or stack trace ever reaches a browser.
 */
import type { z } from "zod";
import { type DomainError, type DomainErrorCode } from "../errors";

/**
 * Every error code's status. Besides the domain's: `internal` (a bug) and `method_not_allowed`,
 * which only the HTTP entry answers (a route without a handler for the method).
 */
export const ERROR_STATUS: Record<DomainErrorCode | "internal" | "method_not_allowed", number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  too_many_requests: 429,
  internal: 500,
  unavailable: 503,
  bad_gateway: 502,
  gateway_timeout: 504,
};
export type ErrorCode = keyof typeof ERROR_STATUS;

/** Fields listed in one answer; the rest are counted in the message. */
export const MAX_LISTED_FIELDS = 20;
const MAX_MESSAGE = 2000;
const MAX_FIELD_NAME = 200;
const MAX_FIELD_MESSAGE = 500;

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * The body of every error answer. Short whatever the input: at most MAX_LISTED_FIELDS fields
 * (the message then lists those and says how many more there are), and bounded texts, so a
 * request with 400,000 bad keys gets a few hundred bytes back, not megabytes.
 */
export function errorBody(code: ErrorCode, message: string, fields?: Record<string, string>) {
  if (!fields) return { error: { code, message: clip(message, MAX_MESSAGE) } };
  const entries = Object.entries(fields);
  const listed = entries.slice(0, MAX_LISTED_FIELDS).map(([name, text]) => [clip(name, MAX_FIELD_NAME), clip(text, MAX_FIELD_MESSAGE)]);
  const more = entries.length - listed.length;
  const summary = more > 0 ? `${listed.map(([name, text]) => `${name}: ${text}`).join("; ")}; and ${more} more` : message;
  return { error: { code, message: clip(summary, MAX_MESSAGE), fields: Object.fromEntries(listed) as Record<string, string> } };
}

/** Status and headers of the answer to a DomainError. */
export function httpAnswer(error: DomainError): { status: number; headers?: Record<string, string> } {
  const headers = error.retryAfterSeconds !== undefined ? { "retry-after": String(error.retryAfterSeconds) } : undefined;
  return { status: ERROR_STATUS[error.code], headers };
}

/** One zod issue in words; unknown keys are named a few at a time, however many there are. */
/** What zod names a type, as the API says it. */
const TYPE_WORDS: Record<string, string> = {
  record: "an object",
  object: "an object",
  array: "a list",
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  null: "null",
};

/**
 * zod's default type message ("Invalid input: expected record, received array") in the API's
 * words: "is required" when nothing was sent, else "must be an object, not a list".
 */
function typeText(message: string): string {
  const match = /^Invalid input: expected (\w+), received (\w+)$/.exec(message);
  if (!match) return message;
  const [, expected, received] = match as unknown as [string, string, string];
  if (received === "undefined") return "is required";
  return `must be ${TYPE_WORDS[expected] ?? expected}, not ${TYPE_WORDS[received] ?? received}`;
}

export function issueText(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type") return typeText(issue.message);
  if (issue.code !== "unrecognized_keys") return issue.message;
  const shown = issue.keys.slice(0, 5).map((key) => JSON.stringify(clip(key, 40)));
  const more = issue.keys.length > shown.length ? ` and ${issue.keys.length - shown.length} more` : "";
  return `unknown key${issue.keys.length === 1 ? "" : "s"} ${shown.join(", ")}${more}`;
}

/** Where an issue is: "values.message", or "" for the body itself. */
export function issuePath(issue: z.core.$ZodIssue): string {
  return issue.path.map(String).join(".");
}

/** "values.message: is required; form: expected string" (the first MAX_LISTED_FIELDS issues, then how many more). */
export function zodMessage(error: z.ZodError): string {
  const listed = error.issues.slice(0, MAX_LISTED_FIELDS).map((i) => (i.path.length ? `${issuePath(i)}: ${issueText(i)}` : issueText(i)));
  const more = error.issues.length - listed.length;
  return more > 0 ? `${listed.join("; ")}; and ${more} more` : listed.join("; ");
}

/**
 * Each issue's message by its path ("" → `whole`), the first per path. Built in a Map: on a
 * plain object `fields.constructor ??= …` would see the inherited function and drop the issue.
 */
export function issueFields(issues: readonly z.core.$ZodIssue[], whole: string): Record<string, string> {
  const fields = new Map<string, string>();
  for (const issue of issues) {
    const key = issuePath(issue) || whole;
    if (!fields.has(key)) fields.set(key, issueText(issue));
  }
  return Object.fromEntries(fields);
}
