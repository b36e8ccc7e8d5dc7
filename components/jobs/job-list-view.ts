/**
 * What the jobs page shows, kept in its address (`/jobs?status=failed&from=2026-03-01`): a view
 * can be shared and bookmarked, and the back button returns to the previous filter or page.
 * Dates in the address are days in the viewer's time zone; the API gets them as the
 * timestamps of that day's first and last millisecond.
 */
import type { JobListQuery, JobListSort, JobStatus } from "@/components/api/types";
import { JOB_STATUSES } from "@/server/protocol/ui-messages";

export { JOB_STATUSES };

export interface JobListView {
  statuses: JobStatus[];
  form: string;
  user: string;
  runner: string;
  /** YYYY-MM-DD, or "" for no bound. */
  from: string;
  to: string;
  sort: JobListSort;
  /** The page: a cursor the API gave ("" for the first page). */
  cursor: string;
}

export const DEFAULT_VIEW: JobListView = { statuses: [], form: "", user: "", runner: "", from: "", to: "", sort: "-created", cursor: "" };

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

function day(text: string | null): string {
  return text !== null && DAY.test(text) ? text : "";
}

/** The view an address asks for; what it cannot mean (an unknown status, a malformed date) is left out. */
export function readView(params: URLSearchParams): JobListView {
  const statuses = (params.get("status") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s): s is JobStatus => (JOB_STATUSES as readonly string[]).includes(s));
  return {
    statuses: JOB_STATUSES.filter((s) => statuses.includes(s)),
    form: params.get("form") ?? "",
    user: params.get("user") ?? "",
    runner: params.get("runner") ?? "",
    from: day(params.get("from")),
    to: day(params.get("to")),
    sort: params.get("sort") === "created" ? "created" : "-created",
    cursor: params.get("cursor") ?? "",
  };
}

/** The address's query for a view ("" for the default view), in a fixed order. */
export function viewSearch(view: JobListView): string {
  const params = new URLSearchParams();
  if (view.statuses.length > 0) params.set("status", view.statuses.join(","));
  for (const key of ["form", "user", "runner", "from", "to"] as const) if (view[key]) params.set(key, view[key]);
  if (view.sort !== "-created") params.set("sort", view.sort);
  if (view.cursor) params.set("cursor", view.cursor);
  const search = params.toString();
  return search ? `?${search}` : "";
}

/** Whether anything narrows the list (sort and page are not filters). */
export function hasFilters(view: JobListView): boolean {
  return view.statuses.length > 0 || Boolean(view.form || view.user || view.runner || view.from || view.to);
}

/** The first (or last) millisecond of a YYYY-MM-DD day in this browser's time zone, as ISO 8601. */
export function localDayBound(text: string, bound: "start" | "end"): string | undefined {
  const match = DAY.exec(text);
  if (!match) return undefined;
  const [, y, m, d] = match;
  const date =
    bound === "start" ? new Date(Number(y), Number(m) - 1, Number(d)) : new Date(Number(y), Number(m) - 1, Number(d), 23, 59, 59, 999);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The API query of a view. */
export function viewQuery(view: JobListView, limit: number): JobListQuery {
  return {
    status: view.statuses.length > 0 ? view.statuses : undefined,
    form: view.form || undefined,
    user: view.user || undefined,
    runner: view.runner || undefined,
    from: localDayBound(view.from, "start"),
    to: localDayBound(view.to, "end"),
    sort: view.sort,
    cursor: view.cursor || undefined,
    limit,
  };
}
