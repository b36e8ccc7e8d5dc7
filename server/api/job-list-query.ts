/**
 * The query of `GET /api/jobs`, checked parameter by parameter (docs/api.md, "Jobs"). Every
 * problem is a 422 whose `fields` name the parameter and say what is wrong with it; all the
 * problems of a request are reported at once. An empty parameter (`status=`) is the same as
 * leaving it out, and parameters the list does not know are ignored, as everywhere in the API.
 */
import { DomainError } from "../errors";
import {
  decodeJobListCursor,
  JOB_LIST_SORTS,
  type JobListCursor,
  type JobListFilter,
  type JobListQuery,
  type JobListSort,
} from "../data/job-list";
import { JOB_STATUSES, type JobStatus } from "../protocol/ui-messages";

export const JOB_LIST_DEFAULT_LIMIT = 50;
export const JOB_LIST_MAX_LIMIT = 200;
/** Longer names than any form, user or runner has. */
const MAX_NAME_LENGTH = 200;

const ISO_HINT = "an ISO 8601 date (2026-03-01) or timestamp (2026-03-01T14:30:00Z, 2026-03-01T14:30:00.000+02:00)";

// YYYY-MM-DD, optionally followed by a time (hh:mm, seconds and fraction optional) and an offset.
// A `+` in a query string that was not percent-encoded arrives as a space: " 02:00" is "+02:00".
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+\- ])(\d{2}):?(\d{2}))?)?$/;

/**
 * An ISO 8601 date or timestamp as an instant. A date alone means that day in UTC: its first
 * millisecond for the start of a range, its last for the end, so `to=2026-03-01` includes the
 * whole day. A time without an offset is UTC. Null when the text is not one, or names a day
 * or time that does not exist (2026-02-30, 24:00).
 */
export function parseInstant(text: string, bound: "start" | "end"): Date | null {
  const match = INSTANT.exec(text);
  if (!match) return null;
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, oh, om] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const dayStart = Date.UTC(year, month - 1, day);
  const check = new Date(dayStart);
  // Date.UTC maps years 0-99 to 1900-1999; four digits below 1000 are refused anyway.
  if (year < 1000 || check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return null;
  if (h === undefined) return new Date(bound === "start" ? dayStart : dayStart + 86_400_000 - 1);
  const hours = Number(h);
  const minutes = Number(mi);
  const seconds = s === undefined ? 0 : Number(s);
  if (hours > 23 || minutes > 59 || seconds > 59) return null;
  const ms = fraction === undefined ? 0 : Number(fraction.slice(0, 3).padEnd(3, "0"));
  let offsetMinutes = 0;
  if (!zulu && sign !== undefined) {
    const offsetHours = Number(oh);
    const offsetMins = Number(om);
    if (offsetHours > 23 || offsetMins > 59) return null;
    offsetMinutes = (sign === "-" ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  return new Date(dayStart + ((hours * 60 + minutes) * 60 + seconds) * 1000 + ms - offsetMinutes * 60_000);
}

/** "approval, queued, …": for messages. */
const VALID_STATUSES = JOB_STATUSES.join(", ");

function hasControlCharacters(text: string): boolean {
  // eslint-disable-next-line no-control-regex -- exactly what is looked for
  return /[\u0000-\u001f\u007f]/.test(text);
}

function quoted(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

/** The query of a `GET /api/jobs` request; 422 with `fields` for anything wrong in it. */
export function parseJobListQuery(request: Request): JobListQuery {
  const params = new URL(request.url).searchParams;
  const fields: Record<string, string> = {};

  /** A single-valued parameter; undefined when absent or empty. */
  const single = (name: string): string | undefined => {
    const values = params.getAll(name).filter((v) => v !== "");
    if (values.length > 1) {
      fields[name] = `is given ${values.length} times; give it once`;
      return undefined;
    }
    return values[0];
  };
  const name = (param: string): string | undefined => {
    const value = single(param);
    if (value === undefined) return undefined;
    if (value.length > MAX_NAME_LENGTH) fields[param] = `must be at most ${MAX_NAME_LENGTH} characters`;
    else if (hasControlCharacters(value)) fields[param] = "must not contain control characters";
    else return value;
    return undefined;
  };
  const instant = (param: "from" | "to"): Date | undefined => {
    const value = single(param);
    if (value === undefined) return undefined;
    const date = parseInstant(value, param === "from" ? "start" : "end");
    if (date === null) fields[param] = `must be ${ISO_HINT}, not ${quoted(value)}`;
    return date ?? undefined;
  };

  let limit = JOB_LIST_DEFAULT_LIMIT;
  const rawLimit = single("limit");
  if (rawLimit !== undefined) {
    if (/^(0|[1-9][0-9]{0,9})$/.test(rawLimit) && Number(rawLimit) >= 1 && Number(rawLimit) <= JOB_LIST_MAX_LIMIT) limit = Number(rawLimit);
    else fields.limit = `must be a whole number from 1 to ${JOB_LIST_MAX_LIMIT} in decimal digits; page with nextCursor for more`;
  }

  // status=failed,aborted and status=failed&status=aborted mean the same.
  const statusValues = params
    .getAll("status")
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter((v) => v !== "");
  const unknown = statusValues.filter((v) => !(JOB_STATUSES as readonly string[]).includes(v));
  if (unknown.length > 0) {
    fields.status = `unknown status${unknown.length === 1 ? "" : "es"} ${unknown.slice(0, 5).map(quoted).join(", ")}; valid: ${VALID_STATUSES}`;
  }
  const statuses = [...new Set(statusValues)].filter((v): v is JobStatus => (JOB_STATUSES as readonly string[]).includes(v));

  const filter: JobListFilter = {
    statuses: statuses.length > 0 ? statuses : undefined,
    form: name("form"),
    user: name("user"),
    runner: name("runner"),
    from: instant("from"),
    to: instant("to"),
  };
  if (filter.from && filter.to && filter.from > filter.to) {
    fields.to = `is before from (${filter.from.toISOString()} > ${filter.to.toISOString()}): nothing can match`;
  }

  let sort: JobListSort = "-created";
  const rawSort = single("sort");
  if (rawSort !== undefined) {
    if ((JOB_LIST_SORTS as readonly string[]).includes(rawSort)) sort = rawSort as JobListSort;
    else fields.sort = `must be -created (newest first, the default) or created (oldest first), not ${quoted(rawSort)}`;
  }

  let cursor: JobListCursor | undefined;
  const rawCursor = single("cursor");
  if (rawCursor !== undefined) {
    const decoded = decodeJobListCursor(rawCursor);
    if (decoded === null) {
      fields.cursor =
        "is not a cursor of this list: pass nextCursor or prevCursor back as they came, or leave cursor out for the first page";
    } else if (decoded.sort !== sort && !fields.sort) {
      fields.cursor = `belongs to sort=${decoded.sort}, not sort=${sort}: keep the sort while paging, or leave cursor out to start again`;
    } else cursor = decoded;
  }

  const problems = Object.entries(fields);
  if (problems.length > 0) {
    throw new DomainError("validation_failed", problems.map(([param, problem]) => `${param}: ${problem}`).join("; "), fields);
  }
  return { filter, sort, limit, cursor };
}
