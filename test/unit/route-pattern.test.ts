/**
 * The HTTP metrics label requests by Next.js route pattern: the list of patterns matches the
 * routes under app/, and paths with ids, names or junk map to a bounded set of labels.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { APP_ROUTES, NEXT_ASSETS, OTHER_ROUTE, routeMatcher, routePattern } from "../../server/metrics/route-pattern";

const APP = path.resolve(import.meta.dirname, "../../app");

/** Every page.tsx and route.ts under app/, as the pattern Next serves it at (route groups left out). */
function routesOnDisk(dir = APP, prefix = ""): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      const segment = /^\(.*\)$/.test(entry.name) ? "" : `/${entry.name}`;
      found.push(...routesOnDisk(path.join(dir, entry.name), prefix + segment));
    } else if (/^(page|route)\.(tsx?|jsx?)$/.test(entry.name)) found.push(prefix || "/");
  }
  return found;
}

describe("route-pattern labels", () => {
  it("list exactly the routes under app/", () => {
    expect([...APP_ROUTES].sort()).toEqual([...new Set(routesOnDisk())].sort());
  });

  it.each([
    ["/", "/"],
    ["/jobs", "/jobs"],
    ["/jobs/", "/jobs"],
    ["/jobs/1234", "/jobs/[id]"],
    ["/forms/hello-world", "/forms/[name]"],
    ["/api/jobs", "/api/jobs"],
    ["/api/jobs/42", "/api/jobs/[id]"],
    ["/api/jobs/42/lines?from=1&count=200", "/api/jobs/[id]/lines"],
    ["/api/jobs/42/compare/41", "/api/jobs/[id]/compare/[otherId]"],
    ["/api/forms/import", "/api/forms/import"],
    ["/api/forms/hello-world", "/api/forms/[name]"],
    ["/api/forms/hello-world/trend", "/api/forms/[name]/trend"],
    ["/api/runners/join", "/api/runners/join"],
    ["/api/runners/join/status", "/api/runners/join/status"],
    ["/api/runners/abc/revoke", "/api/runners/[id]/[action]"],
    ["/api/users/alice", "/api/users/[username]"],
    ["/api", "/api/[[...rest]]"],
    ["/api/nothing/here/7", "/api/[[...rest]]"],
    ["/api/jobs/42/lines/extra", "/api/[[...rest]]"],
    ["/api/jobs//lines", "/api/[[...rest]]"],
    ["/api/%2e%2e/login", "/api/[[...rest]]"],
    ["/_next/static/chunks/app-123.js", NEXT_ASSETS],
    ["/favicon.ico", OTHER_ROUTE],
    ["/jobs/1/2", OTHER_ROUTE],
    ["/wp-login.php", OTHER_ROUTE],
  ])("%s -> %s", (raw, label) => {
    expect(routePattern(raw)).toBe(label);
  });

  it("prefer static segments, then dynamic ones, then catch-alls, whatever the order listed", () => {
    const match = routeMatcher(["/[...all]", "/a/[x]", "/a/b", "/[y]/b"]);
    expect(match("/a/b")).toBe("/a/b");
    expect(match("/a/c")).toBe("/a/[x]");
    expect(match("/c/b")).toBe("/[y]/b");
    expect(match("/c/d")).toBe("/[...all]");
    expect(match("/")).toBe(OTHER_ROUTE);
  });

  it("never put a number of the path into a label", () => {
    for (let id = 1; id < 200; id += 17) {
      for (const raw of [`/api/jobs/${id}`, `/api/jobs/${id}/log`, `/jobs/${id}`, `/api/x/${id}`, `/${id}`]) {
        expect(routePattern(raw)).not.toMatch(/\d/);
      }
    }
  });
});
