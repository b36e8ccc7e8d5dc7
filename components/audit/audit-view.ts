/**
 * What the Audit page shows, read from and written to its address (`/audit?action=job.&before=…`),
 * so a filtered view can be shared or bookmarked and the back button undoes a change.
 */
import type { AuditOutcome } from "@/components/api/types";

export const AUDIT_OUTCOMES: readonly AuditOutcome[] = ["success", "failure", "denied"];

export interface AuditView {
  actor: string;
  action: string;
  outcome: AuditOutcome | "";
  /** YYYY-MM-DD, or "". */
  since: string;
  /** The nextCursor of the page before, or "" for the newest events. */
  before: string;
}

export const DEFAULT_AUDIT_VIEW: AuditView = { actor: "", action: "", outcome: "", since: "", before: "" };

export function readAuditView(params: URLSearchParams): AuditView {
  const outcome = params.get("outcome") ?? "";
  return {
    actor: params.get("actor") ?? "",
    action: params.get("action") ?? "",
    outcome: (AUDIT_OUTCOMES as readonly string[]).includes(outcome) ? (outcome as AuditOutcome) : "",
    since: params.get("since") ?? "",
    before: params.get("before") ?? "",
  };
}

/** The view's filters (and cursor) as a query string: only what is set, in a fixed order. */
export function auditSearch(view: AuditView, options: { cursor?: boolean } = {}): string {
  const params = new URLSearchParams();
  for (const key of ["actor", "action", "outcome", "since"] as const) if (view[key]) params.set(key, view[key]);
  if (options.cursor !== false && view.before) params.set("before", view.before);
  return params.toString();
}

export function hasAuditFilters(view: AuditView): boolean {
  return Boolean(view.actor || view.action || view.outcome || view.since);
}
