import type { ApiErrorBody } from "./types";

/**
 * One error type for every failed API call, carrying the server's error model
 * (docs/api.md) so callers can branch on `status`/`code` and show `fields` next to inputs.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly fields: Record<string, string>;

  constructor(status: number, code: string, message: string, fields: Record<string, string> = {}) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.fields = fields;
  }
}

/** The server's messages per field of a failed call (docs/api.md `fields`); none for any other error. */
export function fieldErrors(error: unknown): Record<string, string> {
  return error instanceof ApiError ? error.fields : {};
}

function isApiErrorBody(value: unknown): value is ApiErrorBody {
  if (typeof value !== "object" || value === null || !("error" in value)) return false;
  const error = (value as { error: unknown }).error;
  return typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string";
}

function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== "object" || value === null) return {};
  const out: Record<string, string> = {};
  for (const [key, message] of Object.entries(value)) {
    if (typeof message === "string") out[key] = message;
  }
  return out;
}

interface RequestOptions {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Sent as JSON. */
  body?: unknown;
  /**
   * Sent as it is with a text/plain type instead of `body`: a pasted log or a chosen file
   * (a Blob is streamed by the browser, never read into a string first).
   */
  text?: string | Blob;
  /** Sent as multipart/form-data (a file upload); the browser sets the boundary. */
  form?: FormData;
  signal?: AbortSignal;
  /** More request headers (e.g. Idempotency-Key on a launch). */
  headers?: Record<string, string>;
  /**
   * On 401 the session is gone: send the browser to the login page so it comes back here.
   * The login call itself turns this off, its 401 means "wrong password".
   */
  redirectOnUnauthorized?: boolean;
}

export async function apiFetch<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const { method = "GET", body, text, form, signal, redirectOnUnauthorized = true } = options;
  const headers: Record<string, string> = { accept: "application/json", ...options.headers };
  let requestBody: BodyInit | undefined;
  if (form !== undefined) {
    requestBody = form;
  } else if (text !== undefined) {
    headers["content-type"] = "text/plain; charset=utf-8";
    requestBody = text;
  } else if (body !== undefined) {
    headers["content-type"] = "application/json";
    requestBody = JSON.stringify(body);
  }
  let response: Response;
  try {
    response = await fetch(path, { method, signal, credentials: "same-origin", headers, body: requestBody });
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === "AbortError") throw cause;
    throw new ApiError(0, "network", "Cannot reach the Playform server. Check your connection and retry.");
  }

  if (response.status === 204) return undefined as T;

  const payload: unknown = await response.json().catch(() => null);

  if (!response.ok) {
    if (response.status === 401 && redirectOnUnauthorized && typeof window !== "undefined") {
      const next = window.location.pathname + window.location.search;
      // A full page load on purpose: it drops every cached query of the expired session.
      window.location.assign(new URL(`/login?next=${encodeURIComponent(next)}`, window.location.origin));
    }
    if (isApiErrorBody(payload)) {
      const { code, message, fields } = payload.error;
      throw new ApiError(response.status, code, message, stringRecord(fields));
    }
    throw new ApiError(response.status, "internal", `The server answered ${response.status}.`);
  }

  return payload as T;
}

export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return "Something went wrong.";
}
