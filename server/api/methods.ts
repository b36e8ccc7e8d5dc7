/**
 * The methods each API route answers. The custom server's HTTP entry answers any other method
 * itself with a JSON 405: Next would answer it with an empty body, unlike every other error of
 * the API. The table is written out (the contracts import Next's route helpers, which the
 * custom server's bundle cannot load); test/unit/api-input.test.ts checks it against the
 * endpoints' contracts, which test/unit/openapi.test.ts keeps equal to what each route.ts exports.
 */
import { routeMatcher } from "../metrics/route-pattern";

/** Route pattern → the methods its route.ts exports. */
export const API_METHODS: Readonly<Record<string, readonly string[]>> = {
  "/api/audit": ["GET"],
  "/api/audit/export": ["GET"],
  "/api/auth/login": ["POST"],
  "/api/auth/logout": ["POST"],
  "/api/auth/me": ["GET", "PATCH"],
  "/api/auth/oidc/callback": ["GET"],
  "/api/auth/oidc/login": ["GET"],
  "/api/auth/oidc/logout": ["GET"],
  "/api/auth/password": ["POST"],
  "/api/auth/providers": ["GET"],
  "/api/auth/token": ["POST"],
  "/api/credentials": ["GET", "POST"],
  "/api/credentials/[name]": ["PUT", "DELETE"],
  "/api/docs": ["GET"],
  "/api/docs/assets/[file]": ["GET"],
  "/api/forms": ["GET"],
  "/api/forms/[name]": ["GET"],
  "/api/forms/[name]/choices/[field]": ["POST"],
  "/api/forms/[name]/idempotence": ["GET"],
  "/api/forms/[name]/preview": ["POST"],
  "/api/forms/[name]/preview/[id]": ["GET"],
  "/api/forms/[name]/report": ["GET"],
  "/api/forms/[name]/trend": ["GET"],
  "/api/forms/import": ["POST"],
  "/api/groups": ["GET", "POST"],
  "/api/groups/[name]": ["DELETE"],
  "/api/groups/[name]/members": ["PUT"],
  "/api/hosts": ["GET"],
  "/api/hosts/[name]": ["GET"],
  "/api/jobs": ["GET", "POST"],
  "/api/jobs/[id]": ["GET"],
  "/api/jobs/[id]/abort": ["POST"],
  "/api/jobs/[id]/approve": ["POST"],
  "/api/jobs/[id]/compare/[otherId]": ["GET"],
  "/api/jobs/[id]/lines": ["GET"],
  "/api/jobs/[id]/log": ["GET"],
  "/api/jobs/[id]/notifications": ["GET"],
  "/api/jobs/[id]/output": ["GET"],
  "/api/jobs/[id]/progress": ["GET"],
  "/api/jobs/[id]/recap": ["GET"],
  "/api/jobs/[id]/reject": ["POST"],
  "/api/jobs/[id]/relaunch": ["POST"],
  "/api/jobs/[id]/search": ["GET"],
  "/api/jobs/[id]/tasks": ["GET"],
  "/api/jobs/[id]/timeline": ["GET"],
  "/api/jobs/[id]/artifacts": ["GET"],
  "/api/jobs/progress": ["GET"],
  "/api/live": ["GET"],
  "/api/notifications": ["GET"],
  "/api/openapi.json": ["GET"],
  "/api/ready": ["GET"],
  "/api/recap": ["POST"],
  "/api/retention": ["GET"],
  "/api/retention/run": ["POST"],
  "/api/runners": ["GET"],
  "/api/runners/[id]": ["DELETE"],
  "/api/runners/[id]/[action]": ["POST"],
  "/api/runners/join": ["POST"],
  "/api/runners/join/status": ["POST"],
  "/api/schedules": ["GET", "POST"],
  "/api/schedules/[id]": ["GET", "PATCH", "DELETE"],
  "/api/sources": ["GET", "POST"],
  "/api/sources/[name]": ["GET", "PATCH", "DELETE"],
  "/api/sources/[name]/sync": ["POST"],
  "/api/sources/[name]/webhook": ["POST"],
  "/api/tokens": ["GET", "POST"],
  "/api/tokens/[id]": ["DELETE"],
  "/api/uploads": ["POST"],
  "/api/users": ["GET", "POST"],
  "/api/users/[username]": ["PATCH", "DELETE"],
};

/** The order methods are named in, in messages and in `Allow`. */
const ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
/** The catch-all route: every method, a JSON 404. */
const CATCH_ALL = "/api/[[...rest]]";

const byRoute = new Map(Object.entries(API_METHODS).map(([route, methods]) => [route, new Set(methods)]));
const routeOf = routeMatcher([...byRoute.keys(), CATCH_ALL]);

export interface MethodRefusal {
  /** The route pattern (`/api/jobs/[id]`). */
  route: string;
  /** The methods its handlers export, for the message ("use GET or POST"). */
  handled: string[];
  /** The `Allow` header: those, HEAD with GET, and OPTIONS (Next answers both itself). */
  allow: string;
}

/**
 * Null when the API path's route answers the method (or the path is no route: the catch-all's
 * 404 answers it); else what to say. HEAD goes where GET does and OPTIONS everywhere, as Next
 * implements them for every route.
 */
export function methodRefusal(path: string, method: string): MethodRefusal | null {
  const route = routeOf(path);
  const handled = byRoute.get(route);
  if (!handled) return null;
  const upper = method.toUpperCase();
  if (handled.has(upper) || upper === "OPTIONS" || (upper === "HEAD" && handled.has("GET"))) return null;
  const sorted = (methods: Iterable<string>) => [...methods].sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b));
  const allowed = new Set([...handled, "OPTIONS", ...(handled.has("GET") ? ["HEAD"] : [])]);
  return { route, handled: sorted(handled), allow: sorted(allowed).join(", ") };
}
