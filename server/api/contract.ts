/**
 * An endpoint's contract: method, path, who may call it, the zod schemas its route validates
 * the input with, and what it answers per status. The route handler imports its contract and
 * parses with these very schemas; server/api/openapi.ts turns every contract into the OpenAPI
 * document served at /api/openapi.json (docs/api.md), and test/unit/openapi.test.ts fails when
 * a route under app/api has no contract or a contract no route.
 *
 * Contracts live in server/api/contracts/<area>.ts, one `endpoint()` per method handler.
 */
import { z } from "zod";
import { ERROR_STATUS } from "./errors";

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

/** Who may call: anyone, a signed-in user (session cookie or bearer token), or an admin. */
export type Access = "public" | "user" | "admin";

export interface ResponseSpec {
  description: string;
  /** The JSON body's schema; leave out for an answer without a body (204). */
  schema?: z.ZodType;
  /** A body that is not JSON (a log, a CSV file): its media type, described in words. */
  mediaType?: string;
  /** Several media types for the same status (a JSON answer or a download, chosen by the query). */
  alternatives?: { mediaType: string; schema?: z.ZodType }[];
}

export interface BodySpec {
  schema: z.ZodType;
  /** application/json unless said otherwise. */
  mediaType?: string;
  /** The body may be left out entirely (read as `{}`). */
  optional?: boolean;
  description?: string;
}

export interface EndpointSpec {
  method: HttpMethod;
  /** The Next.js route pattern, as in APP_ROUTES: `/api/jobs/[id]/lines`. */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  access: Access;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: BodySpec;
  /** Success answers by status. */
  responses: Record<number, ResponseSpec>;
  /**
   * Error statuses beyond the ones the access, params, query and body imply (401/403, 404,
   * 400, 413/415/422, and 500 for every endpoint): 409, 429, 503…
   */
  errors?: Partial<Record<number, string>>;
}

/** The one error body (server/api/errors.ts). */
export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(ERROR_STATUS) as [keyof typeof ERROR_STATUS, ...(keyof typeof ERROR_STATUS)[]]),
      message: z.string(),
      fields: z.record(z.string(), z.string()).optional(),
    }),
  })
  .meta({ id: "Error" });

const ERROR_TEXT: Record<number, string> = {
  400: "malformed request (body or query)",
  401: "authentication required: session cookie or bearer token",
  403: "needs the admin role",
  404: "not found",
  409: "the action does not fit the current state",
  410: "gone for good (a job's output removed by retention)",
  413: "the body is over the endpoint's limit",
  415: "a JSON body without Content-Type: application/json",
  422: "values rejected; `fields` names each one",
  429: "throttled; Retry-After says when to try again",
  500: "unexpected; details are in the server log only",
  502: "a service the app asked on the caller's behalf answered badly",
  503: "not available",
  504: "a service the app asked on the caller's behalf did not answer in time",
};

const CROSS_SITE_TEXT = "a cross-site request: a browser page of another site, without a bearer token (docs/api.md, Cross-site requests)";

const SCOPE_TEXT = "a token whose scope does not cover the request (docs/api.md, Token scopes)";

/** Every error status an endpoint may answer, with a description, in status order. */
export function errorStatuses(spec: EndpointSpec): Map<number, string> {
  const out = new Map<number, string>();
  const add = (status: number, text?: string) => out.set(status, text ?? ERROR_TEXT[status] ?? "error");
  if (spec.access !== "public") add(401);
  if (spec.access === "admin") add(403);
  // Every state-changing request: refused before any route when a browser page of another site sends it (docs/api.md).
  if (spec.method !== "get") add(403, spec.access === "admin" ? `${ERROR_TEXT[403]}, or ${CROSS_SITE_TEXT}` : CROSS_SITE_TEXT);
  // A bearer token whose scope does not cover the request (server/access/token-scopes.ts): only GET is open to every scope.
  if (spec.method !== "get" && spec.access !== "public") add(403, `${out.get(403)}, or ${SCOPE_TEXT}`);
  if (spec.params) add(404);
  if (spec.query) add(400);
  if (spec.body) {
    add(400);
    add(413);
    if ((spec.body.mediaType ?? "application/json") === "application/json") add(415);
    add(422, "values rejected, or a string holding NUL, a lone surrogate or invalid UTF-8; `fields` names each one");
  }
  for (const [status, text] of Object.entries(spec.errors ?? {})) add(Number(status), text);
  add(500);
  return new Map([...out].sort(([a], [b]) => a - b));
}

/** Declares one endpoint; the literal type is kept so routes read `contract.query` typed. */
export function endpoint<const S extends EndpointSpec>(spec: S): S {
  return spec;
}

/** `/api/jobs/[id]` → `/api/jobs/{id}` (OpenAPI path templating). */
export function openApiPath(pattern: string): string {
  return pattern.replace(/\[([^\]./]+)\]/g, "{$1}");
}

/** A path parameter: a string in the path (ids are checked by the route: 404 when malformed). */
export const pathString = (description: string) => z.string().meta({ description });
