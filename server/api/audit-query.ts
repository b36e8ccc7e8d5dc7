/**
 * The query of GET /api/audit and /api/audit/export (docs/api.md, "Audit trail"): an empty
 * parameter (`actor=`) is the same as leaving it out; anything malformed is a 400 saying which
 * parameter and why (`since: must be an ISO 8601 date …`).
 */
import type { z } from "zod";
import { DomainError } from "../errors";
import type { AuditFilter } from "../data/audit";
import { AUDIT_DEFAULT_LIMIT, auditExportQuerySchema, auditQuerySchema } from "./contracts/audit";
import { zodMessage } from "./errors";

function parse<S extends z.ZodType>(request: Request, schema: S): z.infer<S> {
  const params = Object.fromEntries([...new URL(request.url).searchParams].filter(([, value]) => value !== ""));
  const parsed = schema.safeParse(params);
  if (!parsed.success) throw new DomainError("bad_request", zodMessage(parsed.error));
  return parsed.data;
}

function filterOf(query: { actor?: string; action?: string; outcome?: AuditFilter["outcome"]; since?: Date }): AuditFilter {
  return { actor: query.actor, action: query.action, outcome: query.outcome, since: query.since };
}

export function parseAuditQuery(request: Request): { filter: AuditFilter; limit: number; before?: number } {
  const query = parse(request, auditQuerySchema);
  return { filter: filterOf(query), limit: query.limit ?? AUDIT_DEFAULT_LIMIT, before: query.before };
}

export function parseAuditExportQuery(request: Request): AuditFilter {
  return filterOf(parse(request, auditExportQuerySchema));
}
