/**
 * Recording the audit trail: every security-relevant action (sign-in, accounts, runners,
 * credentials, forms import, jobs) as one AuditEvent saying who, when, from where, what, to
 * what and with which outcome. docs/api.md ("Audit trail") lists every action name; other code
 * calls recordAudit (or audited, which records the outcome of a function) where the action
 * happens.
 *
 * - Recording never throws into the caller: a failed insert is logged at error level with
 *   the event (masked), so it is not lost silently either.
 * - details are for names and ids only. They are masked anyway, the way log lines are: values
 *   of secret keys (password, token, secret, extravars, …) are replaced, and every string is
 *   masked for the secret values this process knows (server/logging/logger.ts, maskSecrets).
 * - ip and user agent come from the request when one is given, else from the request being
 *   served (server/audit/origin.ts: the HTTP entry resolves the address like the throttles do,
 *   honouring trusted proxies); null outside a request (start-up, the dispatcher).
 */
import { DomainError } from "../errors";
import { insertAuditEvent, type AuditOutcome } from "../data/audit";
import { loggerFor, maskSecrets } from "../logging/logger";
import { currentAuditOrigin, originOfRequest } from "./origin";

const log = loggerFor({ component: "audit" });

/** Every action the app records (docs/api.md lists them with what they mean). */
export const AUDIT_ACTIONS = [
  "auth.login",
  "auth.logout",
  "auth.token",
  "auth.password",
  "auth.email",
  "user.create",
  "user.delete",
  "user.role",
  "user.password",
  "user.email",
  "admin.access",
  "runner.join",
  "runner.approve",
  "runner.reject",
  "runner.revoke",
  "runner.rotate",
  "runner.repin",
  "runner.no-tls",
  "runner.require-tls",
  "runner.default",
  "runner.delete",
  "credential.create",
  "credential.update",
  "credential.delete",
  "credential.use",
  "forms.import",
  "job.launch",
  "job.preview",
  "job.abort",
  "job.approve",
  "job.reject",
  // A runner stopping (SIGTERM) cancelled a job once RTE_DRAIN_SECONDS ran out.
  "job.drain-cancel",
  // Recorded by features being added alongside (groups, personal tokens, single sign-on).
  "group.create",
  "group.delete",
  "group.members",
  "token.create",
  "token.revoke",
  // Retention (docs/operations.md, "Retention"): a cleanup run, with its counts.
  "retention.run",
  // Git sources of forms (server/sources).
  "source.create",
  "source.update",
  "source.delete",
  "source.sync",
  "schedule.create",
  "schedule.update",
  "schedule.delete",
  "schedule.pause",
  "schedule.skip",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditEventInput {
  /** A username, "runner:NAME", or null when nobody is signed in. */
  actor: string | null;
  /** One of AUDIT_ACTIONS (a new one is added there and to docs/api.md). */
  action: AuditAction;
  /** What it was done to: "job:12", "user:alice", "credential:db", "runner:edge-1". */
  target?: string | null;
  outcome: AuditOutcome;
  /** Names and ids only, never a secret value. */
  details?: Record<string, unknown> | null;
}

const MAX_ACTOR = 200;
const MAX_TARGET = 300;
const MAX_USER_AGENT = 400;
const MAX_DETAILS = 4000;

function capped(text: string | null | undefined, max: number): string | null {
  if (text === null || text === undefined || text === "") return null;
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function maskedText(text: string | null): string | null {
  return text === null ? null : (maskSecrets(text) as string);
}

/** The row as stored: masked, capped, with the request's origin. */
export function auditRow(event: AuditEventInput, request?: Request) {
  const origin = request ? originOfRequest(request) : currentAuditOrigin();
  const details = event.details && Object.keys(event.details).length > 0 ? JSON.stringify(maskSecrets(event.details)) : null;
  return {
    actor: maskedText(capped(event.actor, MAX_ACTOR)),
    action: event.action,
    target: maskedText(capped(event.target, MAX_TARGET)),
    outcome: event.outcome,
    ip: capped(origin?.ip, 100),
    userAgent: maskedText(capped(origin?.userAgent, MAX_USER_AGENT)),
    details:
      details === null ? null : details.length > MAX_DETAILS ? JSON.stringify({ truncated: details.slice(0, MAX_DETAILS) }) : details,
  };
}

/**
 * Records one event. Never throws: a failure to store it is logged at error level (with the
 * event, masked), and the caller's action goes on.
 */
export async function recordAudit(event: AuditEventInput, request?: Request): Promise<void> {
  let row: ReturnType<typeof auditRow> | null = null;
  try {
    row = auditRow(event, request);
    await insertAuditEvent(row);
  } catch (error) {
    log().error(
      { err: error, audit: row ?? { action: event.action, outcome: event.outcome } },
      `audit event ${event.action} (${event.outcome}) could not be stored`,
    );
  }
}

/** The outcome of a failed action: "denied" for a refusal of rights, else "failure". */
export function outcomeOf(error: unknown): AuditOutcome {
  return error instanceof DomainError && (error.code === "forbidden" || error.code === "unauthorized") ? "denied" : "failure";
}

/** What the details say about an error: its code and message (masked when stored), never a stack. */
export function errorDetails(error: unknown): Record<string, unknown> {
  if (error instanceof DomainError) return { error: error.code, reason: error.message.slice(0, 300) };
  return { error: "internal" };
}

export interface AuditedAction<T> {
  actor: string | null;
  action: AuditAction;
  /** The target, known before or made from the result. */
  target?: string | null;
  targetOf?: (result: T) => string | null;
  details?: Record<string, unknown>;
  detailsOf?: (result: T) => Record<string, unknown>;
  /**
   * The outcome of an action that reports its failure in its result instead of throwing (a Git
   * sync that failed is a result): without it, returning is a success.
   */
  outcomeOf?: (result: T) => AuditOutcome;
}

/**
 * Runs `fn` and records its outcome: success (or outcomeOf of the result, with targetOf/detailsOf
 * of the result), or failure/denied with the error's code and message; the error is then thrown on.
 */
export async function audited<T>(spec: AuditedAction<T>, fn: () => Promise<T>, request?: Request): Promise<T> {
  let result: T;
  try {
    result = await fn();
  } catch (error) {
    await recordAudit(
      {
        actor: spec.actor,
        action: spec.action,
        target: spec.target,
        outcome: outcomeOf(error),
        details: { ...spec.details, ...errorDetails(error) },
      },
      request,
    );
    throw error;
  }
  await recordAudit(
    {
      actor: spec.actor,
      action: spec.action,
      target: spec.targetOf ? spec.targetOf(result) : spec.target,
      outcome: spec.outcomeOf ? spec.outcomeOf(result) : "success",
      details: { ...spec.details, ...spec.detailsOf?.(result) } as Record<string, unknown>,
    },
    request,
  );
  return result;
}
