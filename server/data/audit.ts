/**
 * The audit trail (AuditEvent): who did what, to what, from where, with which outcome. Rows are
 * only ever added; reading is newest first, paged by id (`before`: the rows older than that id),
 * so a page costs the same wherever it is and events recorded while someone pages never repeat
 * rows. What is recorded, and by whom: server/audit/record.ts; the action names: docs/api.md.
 */
import { getDb } from "./db";
import type { Prisma } from "./generated/sqlite/client";

export const AUDIT_OUTCOMES = ["success", "failure", "denied"] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

export interface NewAuditEvent {
  actor: string | null;
  action: string;
  target: string | null;
  outcome: AuditOutcome;
  ip: string | null;
  userAgent: string | null;
  /** JSON text, already masked (server/audit/record.ts). */
  details: string | null;
}

export interface AuditEventView {
  id: number;
  at: string;
  actor: string | null;
  action: string;
  target: string | null;
  outcome: AuditOutcome;
  ip: string | null;
  userAgent: string | null;
  details: Record<string, unknown> | null;
}

export interface AuditFilter {
  /** Exactly this actor (a username, or "runner:NAME"). */
  actor?: string;
  /** Exactly this action, or every action starting with it when it ends with "." (`job.`). */
  action?: string;
  outcome?: AuditOutcome;
  /** at >= since. */
  since?: Date;
}

export interface AuditQuery {
  filter: AuditFilter;
  limit: number;
  /** Only events with a smaller id (older): the nextCursor of the page before. */
  before?: number;
}

export interface AuditPage {
  events: AuditEventView[];
  /** The `before` of the next (older) page; null when this is the last. */
  nextCursor: string | null;
}

export async function insertAuditEvent(event: NewAuditEvent): Promise<number> {
  const row = await getDb().auditEvent.create({ data: event, select: { id: true } });
  return row.id;
}

/** The filter as a Prisma condition (exported for the unit tests of the filters). */
export function auditWhere(filter: AuditFilter, before?: number): Prisma.AuditEventWhereInput {
  const where: Prisma.AuditEventWhereInput = {};
  if (filter.actor !== undefined) where.actor = filter.actor;
  if (filter.action !== undefined) where.action = filter.action.endsWith(".") ? { startsWith: filter.action } : filter.action;
  if (filter.outcome !== undefined) where.outcome = filter.outcome;
  if (filter.since !== undefined) where.at = { gte: filter.since };
  if (before !== undefined) where.id = { lt: before };
  return where;
}

function parseDetails(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  } catch {
    return { text };
  }
}

type AuditRow = Awaited<ReturnType<ReturnType<typeof getDb>["auditEvent"]["findMany"]>>[number];

function toView(row: AuditRow): AuditEventView {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: row.actor,
    action: row.action,
    target: row.target,
    outcome: row.outcome as AuditOutcome,
    ip: row.ip,
    userAgent: row.userAgent,
    details: parseDetails(row.details),
  };
}

/** One page, newest first. */
export async function listAuditEvents(query: AuditQuery): Promise<AuditPage> {
  const rows = await getDb().auditEvent.findMany({
    where: auditWhere(query.filter, query.before),
    orderBy: { id: "desc" },
    take: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  return {
    events: page.map(toView),
    nextCursor: rows.length > query.limit && page.length > 0 ? String(page[page.length - 1]!.id) : null,
  };
}

/**
 * Every matching event, newest first, read `batchSize` rows at a time (an export of 100,000
 * events holds one batch in memory, never all of them).
 */
export async function* eachAuditEvent(filter: AuditFilter, batchSize = 500): AsyncGenerator<AuditEventView> {
  let before: number | undefined;
  for (;;) {
    const { events, nextCursor } = await listAuditEvents({ filter, limit: batchSize, before });
    yield* events;
    if (nextCursor === null) return;
    before = Number(nextCursor);
  }
}
