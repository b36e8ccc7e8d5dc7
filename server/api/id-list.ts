/**
 * A query parameter holding a comma-separated list of job ids (`ids=12,15,20`): decimal
 * digits, each naming a possible job, at most `max` of them. Anything else is a 400 whose
 * message names the parameter. The schema is what the endpoint's contract publishes and what
 * its route parses with.
 */
import { z } from "zod";
import { DomainError } from "../errors";
import { zodMessage } from "./errors";
import { MAX_DB_INT } from "./route";

const DECIMAL = /^[1-9][0-9]{0,9}$/;

/** The schema of a job-id list parameter called `name` (for the examples in its messages). */
export function jobIdListParam(name: string, max: number) {
  const required = `is required (comma-separated job ids, e.g. ${name}=12,15)`;
  return z
    .string({ error: required })
    .meta({ description: `comma-separated job ids, at most ${max}` })
    .transform((raw, ctx) => {
      if (raw.trim() === "") {
        ctx.addIssue({ code: "custom", message: required });
        return z.NEVER;
      }
      const parts = raw.split(",").map((p) => p.trim());
      if (parts.length > max) {
        ctx.addIssue({ code: "custom", message: `at most ${max} ids, got ${parts.length}` });
        return z.NEVER;
      }
      const ids: number[] = [];
      for (const part of parts) {
        const value = DECIMAL.test(part) ? Number(part) : NaN;
        if (!(value <= MAX_DB_INT)) {
          const shown = JSON.stringify(part.length > 20 ? `${part.slice(0, 20)}…` : part);
          ctx.addIssue({ code: "custom", message: `${shown} is not a job id (decimal digits, from 1 to ${MAX_DB_INT})` });
          return z.NEVER;
        }
        ids.push(value);
      }
      return ids;
    });
}

/**
 * A query read with a schema of job-id list parameters (a contract's, built with
 * jobIdListParam): each parameter's first value, as URLSearchParams.get reads it; 400 naming
 * the parameter when the schema refuses it.
 */
export function parseIdListQuery<S extends z.ZodObject>(request: Request, schema: S): z.infer<S> {
  const params = new URL(request.url).searchParams;
  const values: Record<string, string> = {};
  for (const key of params.keys()) values[key] ??= params.get(key)!;
  const parsed = schema.safeParse(values);
  if (!parsed.success) throw new DomainError("bad_request", zodMessage(parsed.error));
  return parsed.data;
}

/** The ids of parameter `name` (its first value when repeated); 400 naming the parameter otherwise. */
export function parseIdListParam(request: Request, name: string, max: number): number[] {
  return parseIdListQuery(request, z.object({ [name]: jobIdListParam(name, max) }))[name] as number[];
}
