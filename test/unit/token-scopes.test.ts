/**
 * The one rule of token scopes (server/access/token-scopes.ts) that requireUser applies to every
 * authenticated request: what each scope lets through, and which scope may make which.
 */
import { describe, expect, it } from "vitest";
import { effectiveScope, scopeAllows, scopeCovers, scopeRefusal } from "../../server/access/token-scopes";

const requests: [string, string][] = [
  ["GET", "/api/jobs/7/lines"],
  ["GET", "/api/users"],
  ["POST", "/api/auth/logout"],
  ["POST", "/api/tokens"],
  ["POST", "/api/jobs"],
  ["POST", "/api/jobs/7/abort"],
  ["POST", "/api/jobs/7/approve"],
  ["POST", "/api/jobs/7/reject"],
  ["POST", "/api/jobs/7/relaunch"],
  ["POST", "/api/uploads"],
  ["POST", "/api/forms/deploy/choices/env"],
  ["POST", "/api/forms/deploy/preview"],
  ["DELETE", "/api/tokens/abc"],
  ["POST", "/api/users"],
  ["PATCH", "/api/users/bob"],
  ["POST", "/api/schedules"],
  ["POST", "/api/forms/import"],
  ["PUT", "/api/credentials/x"],
  ["POST", "/api/jobs/7/abort/extra"],
];

describe("token scopes", () => {
  it("read lets GET, logout and making tokens through; launch adds launching and acting on jobs; admin everything", () => {
    const allowed = (scope: "read" | "launch" | "admin") =>
      requests.filter(([method, path]) => scopeAllows(scope, method, path)).map(([method, path]) => `${method} ${path}`);
    expect(allowed("read")).toEqual(["GET /api/jobs/7/lines", "GET /api/users", "POST /api/auth/logout", "POST /api/tokens"]);
    expect(allowed("launch")).toEqual([
      "GET /api/jobs/7/lines",
      "GET /api/users",
      "POST /api/auth/logout",
      "POST /api/tokens",
      "POST /api/jobs",
      "POST /api/jobs/7/abort",
      "POST /api/jobs/7/approve",
      "POST /api/jobs/7/reject",
      "POST /api/jobs/7/relaunch",
      "POST /api/uploads",
      "POST /api/forms/deploy/choices/env",
      "POST /api/forms/deploy/preview",
    ]);
    expect(allowed("admin")).toHaveLength(requests.length);
    expect(scopeAllows("read", "head", "/api/jobs")).toBe(true);
  });

  it("a scope covers itself and those below it; sessions and old tokens hold admin", () => {
    expect(scopeCovers("admin", "launch")).toBe(true);
    expect(scopeCovers("launch", "launch")).toBe(true);
    expect(scopeCovers("launch", "admin")).toBe(false);
    expect(scopeCovers("read", "launch")).toBe(false);
    expect(effectiveScope(null)).toBe("admin");
    expect(effectiveScope("read")).toBe("read");
    expect(effectiveScope("something else")).toBe("admin");
    expect(scopeRefusal("read", "post", "/api/jobs")).toBe('this token\'s scope "read" allows reading (GET) only, not POST /api/jobs');
  });
});
