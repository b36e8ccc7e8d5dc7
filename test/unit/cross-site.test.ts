import { describe, expect, it } from "vitest";
import { errorStatuses } from "@/server/api/contract";
import { login } from "@/server/api/contracts/auth";
import { createToken, listTokens } from "@/server/api/contracts/tokens";
import { crossSiteRefusal, foreignOrigin, isOwnOrigin, parseAllowedOrigins } from "@/server/auth/cross-site";

const direct = { trustedProxies: 0 };
const host = { host: "playform.example.com" };

describe("cross-site requests", () => {
  it("refuses a state-changing request from another site's page", () => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE", "post"]) {
      expect(crossSiteRefusal(method, { ...host, origin: "https://evil.example" }, direct)).toMatch(/Origin https:\/\/evil\.example/);
    }
    expect(crossSiteRefusal("POST", { ...host, origin: "null" }, direct)).toMatch(/Origin null/);
    expect(crossSiteRefusal("POST", { ...host, "sec-fetch-site": "cross-site" }, direct)).toMatch(/Sec-Fetch-Site/);
    expect(crossSiteRefusal("POST", { ...host, referer: "https://evil.example/page" }, direct)).toMatch(/Referer/);
    // Another subdomain, or the same name on another port, is another origin.
    expect(crossSiteRefusal("POST", { ...host, origin: "https://other.example.com" }, direct)).not.toBeNull();
    expect(crossSiteRefusal("POST", { host: "app:3000", origin: "http://app:4000" }, direct)).not.toBeNull();
  });

  it("lets same-origin, safe-method, bearer and non-browser requests through", () => {
    expect(crossSiteRefusal("POST", { ...host, origin: "https://playform.example.com" }, direct)).toBeNull();
    expect(
      crossSiteRefusal("POST", { ...host, origin: "https://PLAYFORM.example.com", "sec-fetch-site": "same-origin" }, direct),
    ).toBeNull();
    expect(crossSiteRefusal("POST", { host: "app:3000", origin: "http://app:3000" }, direct)).toBeNull();
    // A default port written out in Host; the scheme is not compared (a TLS terminator in front).
    expect(crossSiteRefusal("POST", { host: "app:443", origin: "https://app" }, direct)).toBeNull();
    expect(crossSiteRefusal("POST", { host: "app", origin: "https://app" }, direct)).toBeNull();
    expect(crossSiteRefusal("POST", { ...host, referer: "https://playform.example.com/account" }, direct)).toBeNull();
    expect(crossSiteRefusal("GET", { ...host, origin: "https://evil.example", "sec-fetch-site": "cross-site" }, direct)).toBeNull();
    expect(crossSiteRefusal("POST", { ...host, origin: "https://evil.example", authorization: "Bearer pfp_x" }, direct)).toBeNull();
    expect(crossSiteRefusal("DELETE", { ...host, cookie: "playform_session=pfs_x" }, direct)).toBeNull();
  });

  it("believes X-Forwarded-Host only from trusted proxies, and takes listed origins", () => {
    const proxied = { host: "10.0.0.5:3000", "x-forwarded-host": "playform.example.com", origin: "https://playform.example.com" };
    expect(crossSiteRefusal("POST", proxied, direct)).not.toBeNull();
    expect(crossSiteRefusal("POST", proxied, { trustedProxies: 1 })).toBeNull();
    expect(
      isOwnOrigin(
        "https://playform.example.com",
        { host: "10.0.0.5:3000" },
        { trustedProxies: 0, allowedOrigins: ["https://playform.example.com"] },
      ),
    ).toBe(true);
    expect(isOwnOrigin("not a url", host, direct)).toBe(false);
    expect(isOwnOrigin("javascript:alert(1)", host, direct)).toBe(false);
  });

  it("names what gave a socket away and parses PLAYFORM_ALLOWED_ORIGINS", () => {
    expect(foreignOrigin({ ...host, origin: "https://evil.example" }, direct)).toBe("Origin https://evil.example");
    expect(foreignOrigin({ ...host }, direct)).toBeNull();
    expect(parseAllowedOrigins(undefined)).toEqual([]);
    expect(parseAllowedOrigins(" https://a.example, http://b.example:8080 ")).toEqual(["https://a.example", "http://b.example:8080"]);
    expect(() => parseAllowedOrigins("https://a.example/path")).toThrow(/PLAYFORM_ALLOWED_ORIGINS/);
    expect(() => parseAllowedOrigins("a.example")).toThrow(/PLAYFORM_ALLOWED_ORIGINS/);
  });
});

describe("the OpenAPI document", () => {
  it("lists the cross-site 403 for every state-changing endpoint, the login included", () => {
    expect(errorStatuses(createToken).get(403)).toMatch(/cross-site request/);
    expect(errorStatuses(login).get(403)).toMatch(/cross-site request/);
    expect(errorStatuses(listTokens).get(403)).toBe("another user's tokens, for a non-admin");
  });
});
