/**
 * The methods each API route answers, from the endpoints' contracts (server/api/contracts,
 * which test/unit/openapi.test.ts keeps equal to the handlers every route.ts exports). The
 * custom server's HTTP entry answers any other method itself with a JSON 405: Next would
 * answer it with an empty body, unlike every other error of the API.
 */
import { ENDPOINTS } from "./contracts";
import { routeMatcher } from "../metrics/route-pattern";

/** The order methods are named in, in messages and in `Allow`. */
const ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
/** The catch-all route: every method, a JSON 404. */
const CATCH_ALL = "/api/[[...rest]]";

const byRoute = new Map<string, Set<string>>();
for (const endpoint of ENDPOINTS) {
  const methods = byRoute.get(endpoint.path) ?? new Set<string>();
  methods.add(endpoint.method.toUpperCase());
  byRoute.set(endpoint.path, methods);
}
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
