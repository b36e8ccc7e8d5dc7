/**
 * A query parameter holding a comma-separated list of job ids (`ids=12,15,20`): decimal
 * digits, each naming a possible job, at most `max` of them. Anything else is a 400 whose
 * message names the parameter.
 */
import { DomainError } from "../errors";
import { MAX_DB_INT } from "./route";

const DECIMAL = /^[1-9][0-9]{0,9}$/;

export function parseIdListParam(request: Request, name: string, max: number): number[] {
  const raw = new URL(request.url).searchParams.get(name);
  if (raw === null || raw.trim() === "")
    throw new DomainError("bad_request", `${name}: is required (comma-separated job ids, e.g. ${name}=12,15)`);
  const parts = raw.split(",").map((p) => p.trim());
  if (parts.length > max) throw new DomainError("bad_request", `${name}: at most ${max} ids, got ${parts.length}`);
  const ids: number[] = [];
  for (const part of parts) {
    const value = DECIMAL.test(part) ? Number(part) : NaN;
    if (!(value <= MAX_DB_INT)) {
      const shown = JSON.stringify(part.length > 20 ? `${part.slice(0, 20)}…` : part);
      throw new DomainError("bad_request", `${name}: ${shown} is not a job id (decimal digits, from 1 to ${MAX_DB_INT})`);
    }
    ids.push(value);
  }
  return ids;
}
