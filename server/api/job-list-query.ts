/**
 * The query of `GET /api/jobs`, checked parameter by parameter (docs/api.md, "Jobs"). Every
 * problem is a 422 whose `fields` name the parameter and say what is wrong with it; all the
 * problems of a request are reported at once. An empty parameter (`status=`) is the same as
 * leaving it out, and parameters the list does not know are ignored, as everywhere in the API.
 */
import { z } from "zod";
import { DomainError } from "../errors";
import { issueFields } from "./errors";
import { decodeJobListCursor, JOB_LIST_SORTS, type JobListCursor, type JobListQuery } from "../data/job-list";
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

/**
 * The parameters of a query as the schemas read them: a parameter given once is a string, one
 * given several times an array of its values (so `status` may repeat and a single-valued
 * parameter given twice is named as such); empty values (`status=`) count as left out.
 */
export function queryValues(request: Request): Record<string, string | string[]> {
  const params = new URL(request.url).searchParams;
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key).filter((v) => v !== "");
    if (values.length === 1) out[key] = values[0]!;
    else if (values.length > 1) out[key] = values;
  }
  return out;
}

/** A parameter that may be given once: a string; several values are named as such. */
function once(description?: string) {
  const schema = z.string({
    error: (issue) => (Array.isArray(issue.input) ? `is given ${issue.input.length} times; give it once` : "must be a string"),
  });
  return description ? schema.meta({ description }) : schema;
}

/** A name (form, user, runner): bounded, without control characters. */
const nameParam = (description: string) =>
  once(description)
    .refine((value) => value.length <= MAX_NAME_LENGTH, `must be at most ${MAX_NAME_LENGTH} characters`)
    .refine((value) => !hasControlCharacters(value), "must not contain control characters")
    .optional();

const instantParam = (bound: "start" | "end") =>
  once(`${ISO_HINT}, included${bound === "end" ? " (a date alone: the whole day)" : ""}`)
    .transform((value, ctx) => {
      const date = parseInstant(value, bound);
      if (date === null) {
        ctx.addIssue({ code: "custom", message: `must be ${ISO_HINT}, not ${quoted(value)}` });
        return z.NEVER;
      }
      return date;
    })
    .optional();

/**
 * The query of `GET /api/jobs` (its contract publishes this very schema): every parameter is
 * checked on its own and all problems of a request are reported at once, each under the
 * parameter's name. Read through queryValues; parseJobListQuery turns the problems into a 422
 * and the values into a JobListQuery.
 */
export const jobListQuerySchema = z
  .object({
    // status=failed,aborted and status=failed&status=aborted mean the same.
    status: z
      .union([z.string(), z.array(z.string())])
      .meta({ description: `one or several statuses, comma-separated or repeated: ${VALID_STATUSES}` })
      .transform((value, ctx) => {
        const values = (Array.isArray(value) ? value : [value])
          .flatMap((v) => v.split(","))
          .map((v) => v.trim())
          .filter((v) => v !== "");
        const unknown = values.filter((v) => !(JOB_STATUSES as readonly string[]).includes(v));
        if (unknown.length > 0) {
          ctx.addIssue({
            code: "custom",
            message: `unknown status${unknown.length === 1 ? "" : "es"} ${unknown.slice(0, 5).map(quoted).join(", ")}; valid: ${VALID_STATUSES}`,
          });
          return z.NEVER;
        }
        const statuses = [...new Set(values)] as JobStatus[];
        return statuses.length > 0 ? statuses : undefined;
      })
      .optional(),
    form: nameParam("the form's name, exactly"),
    user: nameParam("the launching user's name, exactly"),
    runner: nameParam("the runner's name, exactly"),
    from: instantParam("start"),
    to: instantParam("end"),
    sort: z
      .enum(JOB_LIST_SORTS, {
        error: (issue) =>
          Array.isArray(issue.input)
            ? `is given ${issue.input.length} times; give it once`
            : `must be -created (newest first, the default) or created (oldest first), not ${quoted(String(issue.input))}`,
      })
      .meta({ description: "-created (newest first, the default) or created (oldest first)" })
      .optional(),
    limit: once(`1..${JOB_LIST_MAX_LIMIT}, default ${JOB_LIST_DEFAULT_LIMIT}`)
      .refine(
        (value) => /^(0|[1-9][0-9]{0,9})$/.test(value) && Number(value) >= 1 && Number(value) <= JOB_LIST_MAX_LIMIT,
        `must be a whole number from 1 to ${JOB_LIST_MAX_LIMIT} in decimal digits; page with nextCursor for more`,
      )
      .transform(Number)
      .optional(),
    cursor: once("a nextCursor or prevCursor of an earlier answer, with the same sort")
      .transform((value, ctx) => {
        const decoded = decodeJobListCursor(value);
        if (decoded === null) {
          ctx.addIssue({
            code: "custom",
            message:
              "is not a cursor of this list: pass nextCursor or prevCursor back as they came, or leave cursor out for the first page",
          });
          return z.NEVER;
        }
        return decoded;
      })
      .optional(),
  })
  // The checks across parameters run whatever else is wrong, on the parameters they need
  // when those are valid, so all problems are still reported at once.
  .superRefine(
    (query, ctx) => {
      const { from, to, cursor, sort } = query as Record<string, unknown>;
      if (from instanceof Date && to instanceof Date && from > to) {
        ctx.addIssue({
          code: "custom",
          path: ["to"],
          message: `is before from (${from.toISOString()} > ${to.toISOString()}): nothing can match`,
        });
      }
      const effectiveSort = sort === undefined ? "-created" : sort;
      if (isCursor(cursor) && (JOB_LIST_SORTS as readonly unknown[]).includes(effectiveSort) && cursor.sort !== effectiveSort) {
        ctx.addIssue({
          code: "custom",
          path: ["cursor"],
          message: `belongs to sort=${cursor.sort}, not sort=${String(effectiveSort)}: keep the sort while paging, or leave cursor out to start again`,
        });
      }
    },
    { when: () => true },
  );

function isCursor(value: unknown): value is JobListCursor {
  return typeof value === "object" && value !== null && "sort" in value && "direction" in value;
}

/** The query of a `GET /api/jobs` request; 422 with `fields` for anything wrong in it. */
export function parseJobListQuery(request: Request, schema: typeof jobListQuerySchema = jobListQuerySchema): JobListQuery {
  const parsed = schema.safeParse(queryValues(request));
  if (parsed.success) {
    const query = parsed.data;
    return {
      filter: { statuses: query.status, form: query.form, user: query.user, runner: query.runner, from: query.from, to: query.to },
      sort: query.sort ?? "-created",
      limit: query.limit ?? JOB_LIST_DEFAULT_LIMIT,
      cursor: query.cursor,
    };
  }
  const fields = issueFields(parsed.error.issues, "query");
  throw new DomainError(
    "validation_failed",
    Object.entries(fields)
      .map(([param, problem]) => `${param}: ${problem}`)
      .join("; "),
    fields,
  );
}
