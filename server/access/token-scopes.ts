/**
 * What a personal token's scope lets it do: the one rule, applied to every authenticated API
 * request by requireUser (server/api/route.ts) and to the /ui socket (server/hub/ui-hub.ts).
 * A scope only narrows: whatever the scope, a request is then decided by its user's rights
 * (role, groups: policy.ts), so an `admin` token of a non-admin user is no admin.
 *
 * - `read`: GET (and HEAD) requests, and following jobs on the /ui socket.
 * - `launch`: read, plus launching a job (`POST /api/jobs`, with the uploads, choice lists and
 *   previews a launch needs), aborting, approving, rejecting and running a job again.
 * - `admin`: everything its user may.
 *
 * Whatever the scope, a token may end itself (`POST /api/auth/logout`) and make a token with
 * no more scope and no longer life than it has (`POST /api/tokens`, personal-tokens.ts).
 * Sessions and sign-in tokens (`POST /api/auth/token`) have no scope: all their user's rights.
 */
export const TOKEN_SCOPES = ["read", "launch", "admin"] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** A stored scope (null: a session or sign-in token, or a personal token made before scopes) as a scope. */
export function effectiveScope(stored: string | null): TokenScope {
  return stored === "read" || stored === "launch" ? stored : "admin";
}

/** Whether a token of scope `have` may make one of scope `want`. */
export function scopeCovers(have: TokenScope, want: TokenScope): boolean {
  return TOKEN_SCOPES.indexOf(want) <= TOKEN_SCOPES.indexOf(have);
}

/** Requests every scope may make, whatever it is. */
const ALWAYS: readonly [string, RegExp][] = [
  ["POST", /^\/api\/auth\/logout$/],
  ["POST", /^\/api\/tokens$/],
];

/** What `launch` adds to `read`. */
const LAUNCH: readonly [string, RegExp][] = [
  ["POST", /^\/api\/jobs$/],
  ["POST", /^\/api\/jobs\/[^/]+\/(abort|approve|reject|relaunch)$/],
  ["POST", /^\/api\/uploads$/],
  ["POST", /^\/api\/forms\/[^/]+\/choices\/[^/]+$/],
  ["POST", /^\/api\/forms\/[^/]+\/preview$/],
];

const matches = (rules: readonly [string, RegExp][], method: string, path: string) =>
  rules.some(([m, pattern]) => m === method && pattern.test(path));

/** Whether a request (method, URL path) is within the scope. */
export function scopeAllows(scope: TokenScope, method: string, path: string): boolean {
  if (scope === "admin") return true;
  const verb = method.toUpperCase();
  if (verb === "GET" || verb === "HEAD" || matches(ALWAYS, verb, path)) return true;
  return scope === "launch" && matches(LAUNCH, verb, path);
}

/** Why a request was refused, for the 403 answer. */
export function scopeRefusal(scope: TokenScope, method: string, path: string): string {
  const allowed = scope === "read" ? "reading (GET) only" : "reading, launching, aborting, approving and running jobs again only";
  return `this token's scope "${scope}" allows ${allowed}, not ${method.toUpperCase()} ${path}`;
}
