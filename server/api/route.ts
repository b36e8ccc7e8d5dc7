/**
 * Helpers that keep every app/api route.ts thin: parse input with a schema, authenticate,
 * map errors. Route files contain only what is specific to their endpoint.
 */
import { NextResponse } from "next/server";
import { z } from "zod";
import { DomainError } from "../errors";
import { DEFAULT_JSON_BODY_BYTES, readJsonBody } from "./body";
import { errorBody, httpAnswer, issueFields, zodMessage } from "./errors";
import { authenticateCredential, missingCredentialReason } from "../auth/authenticate";
import type { TokenCredential } from "../data/auth-tokens";
import type { PublicUser } from "../data/users";
import { effectiveScope, scopeAllows, scopeRefusal } from "../access/token-scopes";
import { requireVisibleJob, viewerOf, type Viewer, type VisibleJob } from "../access/policy";
import { loggerFor } from "../logging/logger";
import { recordAudit, type AuditAction } from "../audit/record";

const log = loggerFor({ component: "api" });

type Handler<C> = (request: Request, context: C) => Promise<Response>;

export function route<C>(handler: Handler<C>): Handler<C> {
  return async (request, context) => {
    try {
      return await handler(request, context);
    } catch (error) {
      if (error instanceof DomainError) {
        return NextResponse.json(errorBody(error.code, error.message, error.fields), httpAnswer(error));
      }
      const path = new URL(request.url).pathname;
      log().error({ err: error, method: request.method, path }, `${request.method} ${path} failed`);
      return NextResponse.json(errorBody("internal", "internal error; see the server log"), { status: 500 });
    }
  };
}

/**
 * The credential of the request (user, token, scope), else 401. Every authenticated route comes
 * here (through requireUser and the helpers below), so this is where a token's scope is
 * enforced, once, for every endpoint (server/access/token-scopes.ts): a request outside it is
 * a 403 that names the scope.
 */
export async function requireCredential(request: Request): Promise<TokenCredential> {
  const credential = await authenticateCredential(request);
  if (!credential) throw new DomainError("unauthorized", await missingCredentialReason(request));
  const scope = effectiveScope(credential.scope);
  const path = new URL(request.url).pathname;
  if (!scopeAllows(scope, request.method, path)) throw new DomainError("forbidden", scopeRefusal(scope, request.method, path));
  return credential;
}

export async function requireUser(request: Request): Promise<PublicUser> {
  return (await requireCredential(request)).user;
}

/** The signed-in user with their groups, for access decisions (server/access/policy.ts). */
export async function requireViewer(request: Request): Promise<Viewer> {
  return viewerOf(await requireUser(request));
}

/**
 * Every /api/jobs/ID route starts here: the signed-in reader and the job, 404 unless they may
 * see it (server/access/policy.ts), the same answer as for a job that does not exist.
 */
export async function requireJobReader(request: Request, rawId: string): Promise<{ viewer: Viewer } & VisibleJob> {
  const viewer = await requireViewer(request);
  return { viewer, ...(await requireVisibleJob(viewer, parseJobId(rawId))) };
}

/** requireJobReader, when the route needs only the job's id. */
export async function readableJobId(request: Request, rawId: string): Promise<number> {
  return (await requireJobReader(request, rawId)).job.id;
}

/**
 * The signed-in admin, else 401/403. A refused user is recorded in the audit trail as "denied",
 * under `action` (the action attempted) or `admin.access` with the method and path as target.
 */
export async function requireAdmin(request: Request, action?: AuditAction): Promise<PublicUser> {
  return (await requireAdminCredential(request, action)).user;
}

/** requireAdmin, with the credential (the token the request came with: a password change keeps it). */
export async function requireAdminCredential(request: Request, action?: AuditAction): Promise<TokenCredential> {
  const credential = await requireCredential(request);
  const { user } = credential;
  if (user.role !== "admin") {
    const target = `${request.method} ${new URL(request.url).pathname}`;
    await recordAudit({ actor: user.username, action: action ?? "admin.access", target, outcome: "denied" }, request);
    throw new DomainError("forbidden", "this action needs the admin role");
  }
  return credential;
}

export interface JsonBodyOptions {
  /** Mismatches as 422 with `fields` (bodies a person fills in through a form) instead of 400. */
  fields?: boolean;
  /** The body's size limit: DEFAULT_JSON_BODY_BYTES unless said otherwise (SMALL_JSON_BODY_BYTES without credentials). */
  maxBytes?: number;
}

/**
 * The JSON body, checked by the schema. Read by readJsonBody (server/api/body.ts): JSON media
 * type (else 415), size limit (413), valid UTF-8 and no NUL or lone surrogate in any string
 * (422 naming the field), whatever the schema. By default a schema mismatch is a 400 (a
 * malformed request); with `fields: true` it is a 422 whose `fields` name each offending
 * field. Either way the listing is short (errorBody caps it).
 */
export async function parseJsonBody<S extends z.ZodType>(request: Request, schema: S, options: JsonBodyOptions = {}): Promise<z.infer<S>> {
  const raw = await readJsonBody(request, options.maxBytes ?? DEFAULT_JSON_BODY_BYTES);
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  if (!options.fields) throw new DomainError("bad_request", zodMessage(parsed.error));
  throw new DomainError("validation_failed", zodMessage(parsed.error), issueFields(parsed.error.issues, "body"));
}

/** A JSON body that may be left out entirely (no body parses as `{}`). */
export async function optionalJsonBody<S extends z.ZodType>(
  request: Request,
  schema: S,
  options: JsonBodyOptions = {},
): Promise<z.infer<S>> {
  const length = request.headers.get("content-length");
  if (length === "0" || (!length && !request.headers.get("content-type"))) return schema.parse({});
  return parseJsonBody(request, schema, options);
}

export function parseQuery<S extends z.ZodType>(request: Request, schema: S): z.infer<S> {
  const params = Object.fromEntries(new URL(request.url).searchParams);
  const parsed = schema.safeParse(params);
  if (!parsed.success) throw new DomainError("bad_request", zodMessage(parsed.error));
  return parsed.data;
}

/**
 * The largest id or number the database's integer columns hold (Prisma `Int`: PostgreSQL
 * `integer`, 32 bits). A larger one cannot name a row, and the driver would fail on it.
 */
export const MAX_DB_INT = 2_147_483_647;

/** Decimal digits only, without sign, exponent, hex prefix or leading zeros. */
const DECIMAL = /^(0|[1-9][0-9]{0,9})$/;

function decimalInt(raw: string): number | null {
  if (!DECIMAL.test(raw)) return null;
  const value = Number(raw);
  return value <= MAX_DB_INT ? value : null;
}

/**
 * Route params of `[id]` segments: a job id is written in decimal digits and fits the
 * database's integer; anything else (`0x10`, `1e3`, `01`, 20 digits) names no job: 404.
 */
export function parseJobId(raw: string): number {
  const id = decimalInt(raw);
  if (id === null || id === 0) throw new DomainError("not_found", `no job ${raw}`);
  return id;
}

/** A schedule's `[id]`, read as a job's is (parseJobId). */
export function parseScheduleId(raw: string): number {
  const id = decimalInt(raw);
  if (id === null || id === 0) throw new DomainError("not_found", `no schedule ${raw}`);
  return id;
}

/** A query parameter holding a whole number in decimal digits, from min to max (at most MAX_DB_INT). */
export function queryInt(min: number, max: number = MAX_DB_INT) {
  return z
    .string()
    .transform((raw, ctx) => {
      const value = decimalInt(raw);
      if (value === null) {
        ctx.addIssue({ code: "custom", message: `must be a whole number in decimal digits, at most ${MAX_DB_INT}` });
        return z.NEVER;
      }
      return value;
    })
    .pipe(z.number().min(min).max(max));
}
