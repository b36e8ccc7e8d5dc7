/**
 * The route label of an HTTP request: the Next.js route pattern it is served by
 * (`/api/jobs/[id]/lines`), never the raw path, so the label's values are a short fixed list
 * whatever the ids, names and typos clients send.
 *
 * APP_ROUTES lists every page and route handler under app/ by its pattern;
 * test/unit/route-pattern.test.ts checks it against the files, so a new route that is not
 * listed here fails the unit suite instead of being labelled by its neighbour or as "other".
 */

/** Every route of app/ (pages and route handlers), as Next names them. */
export const APP_ROUTES: readonly string[] = [
  "/",
  "/account",
  "/audit",
  "/credentials",
  "/forms/[name]",
  "/forms/[name]/report",
  "/hosts",
  "/hosts/[name]",
  "/jobs",
  "/jobs/[id]",
  "/login",
  "/recap",
  "/runners",
  "/sources",
  "/users",
  "/groups",
  "/schedules",
  "/api/[[...rest]]",
  "/api/audit",
  "/api/audit/export",
  "/api/auth/login",
  "/api/auth/logout",
  "/api/auth/me",
  "/api/auth/oidc/callback",
  "/api/auth/oidc/login",
  "/api/auth/oidc/logout",
  "/api/auth/password",
  "/api/auth/providers",
  "/api/auth/token",
  "/api/credentials",
  "/api/credentials/[name]",
  "/api/docs",
  "/api/docs/assets/[file]",
  "/api/forms",
  "/api/forms/[name]",
  "/api/forms/[name]/choices/[field]",
  "/api/forms/[name]/idempotence",
  "/api/forms/[name]/preview",
  "/api/forms/[name]/preview/[id]",
  "/api/forms/[name]/report",
  "/api/forms/[name]/trend",
  "/api/forms/import",
  "/api/jobs",
  "/api/jobs/[id]",
  "/api/jobs/[id]/abort",
  "/api/jobs/[id]/approve",
  "/api/jobs/[id]/artifacts",
  "/api/jobs/[id]/compare/[otherId]",
  "/api/jobs/[id]/lines",
  "/api/jobs/[id]/notifications",
  "/api/jobs/[id]/log",
  "/api/jobs/[id]/output",
  "/api/jobs/[id]/progress",
  "/api/jobs/[id]/recap",
  "/api/jobs/[id]/reject",
  "/api/jobs/[id]/relaunch",
  "/api/jobs/[id]/search",
  "/api/jobs/[id]/tasks",
  "/api/jobs/[id]/timeline",
  "/api/jobs/progress",
  "/api/groups",
  "/api/groups/[name]",
  "/api/groups/[name]/members",
  "/api/hosts",
  "/api/hosts/[name]",
  "/api/live",
  "/api/notifications",
  "/api/openapi.json",
  "/api/ready",
  "/api/recap",
  "/api/retention",
  "/api/retention/run",
  "/api/runners",
  "/api/runners/[id]",
  "/api/runners/[id]/[action]",
  "/api/runners/join",
  "/api/runners/join/status",
  "/api/sources",
  "/api/sources/[name]",
  "/api/sources/[name]/sync",
  "/api/sources/[name]/webhook",
  "/api/tokens",
  "/api/tokens/[id]",
  "/api/schedules",
  "/api/schedules/[id]",
  "/api/uploads",
  "/api/users",
  "/api/users/[username]",
];

/** Next's own assets (`/_next/static/…`, `/_next/image`, …): one label for all of them. */
export const NEXT_ASSETS = "/_next";
/** Anything else (a page that does not exist, /favicon.ico, a scanner's probe). */
export const OTHER_ROUTE = "other";

type Segment = { kind: "static"; text: string } | { kind: "dynamic" } | { kind: "catch-all"; optional: boolean };

interface CompiledRoute {
  pattern: string;
  segments: Segment[];
}

function compile(pattern: string): CompiledRoute {
  const segments = pattern
    .split("/")
    .filter(Boolean)
    .map((part): Segment => {
      if (part.startsWith("[[...")) return { kind: "catch-all", optional: true };
      if (part.startsWith("[...")) return { kind: "catch-all", optional: false };
      if (part.startsWith("[")) return { kind: "dynamic" };
      return { kind: "static", text: part };
    });
  return { pattern, segments };
}

const RANK = { static: 0, dynamic: 1, "catch-all": 2 } as const;

/** Next's precedence: segment by segment, a static segment before a dynamic one before a catch-all. */
function bySpecificity(a: CompiledRoute, b: CompiledRoute): number {
  for (let i = 0; i < Math.max(a.segments.length, b.segments.length); i++) {
    const x = a.segments[i];
    const y = b.segments[i];
    if (!x || !y) return x ? 1 : -1;
    const diff = RANK[x.kind] - RANK[y.kind];
    if (diff !== 0) return diff;
  }
  return 0;
}

function matches(route: CompiledRoute, parts: readonly string[]): boolean {
  for (const [i, segment] of route.segments.entries()) {
    if (segment.kind === "catch-all") return segment.optional || parts.length > i;
    const part = parts[i];
    if (part === undefined || part === "") return false;
    if (segment.kind === "static" && segment.text !== part) return false;
  }
  return parts.length === route.segments.length;
}

/** A matcher over a list of route patterns (APP_ROUTES unless told otherwise). */
export function routeMatcher(patterns: readonly string[] = APP_ROUTES): (path: string) => string {
  const routes = patterns.map(compile).sort(bySpecificity);
  return (path) => {
    if (path === NEXT_ASSETS || path.startsWith(`${NEXT_ASSETS}/`)) return NEXT_ASSETS;
    // As sent, minus a trailing slash (Next redirects it to the same route) and the query.
    const bare = path.split(/[?#]/, 1)[0]!;
    const parts = bare.split("/").filter((part, i, all) => part !== "" || (i > 0 && i < all.length - 1));
    for (const route of routes) if (matches(route, parts)) return route.pattern;
    return OTHER_ROUTE;
  };
}

/** The route label of a request path (`/api/jobs/12/lines?from=3` → `/api/jobs/[id]/lines`). */
export const routePattern = routeMatcher();
