/** Contracts of the audit trail (docs/api.md, "Audit trail"; server/api/contract.ts). */
import { z } from "zod";
import { AUDIT_OUTCOMES } from "../../data/audit";
import { endpoint } from "../contract";
import { parseInstant } from "../job-list-query";
import { MAX_DB_INT, queryInt } from "../route";

export const AUDIT_DEFAULT_LIMIT = 100;
export const AUDIT_MAX_LIMIT = 500;

const name = (description: string) => z.string().max(200).optional().meta({ description });

/** The filters of the list and of the export. An empty parameter is the same as leaving it out. */
const filterShape = {
  actor: name('exactly this actor: a username or "runner:NAME"'),
  action: name("exactly this action (`job.launch`), or every action starting with it when it ends with a dot (`job.`)"),
  outcome: z.enum(AUDIT_OUTCOMES).optional(),
  since: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return undefined;
      const at = parseInstant(text, "start");
      if (at === null) {
        ctx.addIssue({ code: "custom", message: "must be an ISO 8601 date (2026-03-01) or timestamp (2026-03-01T14:30:00Z)" });
        return z.NEVER;
      }
      return at;
    })
    .meta({ description: "only events at or after this ISO 8601 date or timestamp" }),
};

export const auditQuerySchema = z.object({
  ...filterShape,
  limit: queryInt(1, AUDIT_MAX_LIMIT)
    .optional()
    .meta({ description: `1..${AUDIT_MAX_LIMIT}, default ${AUDIT_DEFAULT_LIMIT}` }),
  before: queryInt(1, MAX_DB_INT).optional().meta({ description: "the nextCursor of an earlier answer: only older events" }),
});

export const auditExportQuerySchema = z.object({
  ...filterShape,
  format: z.enum(["jsonl"]).optional().meta({ description: "jsonl (the only format, the default)" }),
});

export const auditEventSchema = z
  .object({
    id: z.number().int(),
    at: z.string(),
    actor: z.string().nullable(),
    action: z.string(),
    target: z.string().nullable(),
    outcome: z.enum(AUDIT_OUTCOMES),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
    details: z.record(z.string(), z.unknown()).nullable(),
  })
  .meta({ id: "AuditEvent" });

export const listAudit = endpoint({
  method: "get",
  path: "/api/audit",
  summary: "One page of the audit trail, newest first",
  tags: ["audit"],
  access: "admin",
  query: auditQuerySchema,
  responses: {
    200: {
      description: "a page; nextCursor is the `before` of the next (older) page, null on the last",
      schema: z.object({ events: z.array(auditEventSchema), nextCursor: z.string().nullable() }),
    },
  },
});

export const exportAudit = endpoint({
  method: "get",
  path: "/api/audit/export",
  summary: "The audit trail as JSON lines (one event per line, newest first), as a download",
  tags: ["audit"],
  access: "admin",
  query: auditExportQuerySchema,
  responses: { 200: { description: "one AuditEvent object per line", mediaType: "application/x-ndjson" } },
});
