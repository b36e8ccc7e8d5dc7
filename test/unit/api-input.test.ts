/**
 * The pure pieces behind the API's input rules: canonical API paths, the client address behind
 * trusted proxies, bounded throttling counters, strict UTF-8 with the bad field named, and
 * error answers that stay short.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkJsonText, decodeUtf8, formatBytes } from "@/server/api/body";
import { parseTrustProxy, resolveClientAddress } from "@/server/api/client-address";
import { errorBody, issueFields, zodMessage } from "@/server/api/errors";
import { isApiPath, isCanonicalApiPath } from "@/server/api/http-entry";
import { parseIdListParam } from "@/server/api/id-list";
import { ENDPOINTS } from "@/server/api/contracts";
import { API_METHODS, methodRefusal } from "@/server/api/methods";
import { parseJobId } from "@/server/api/route";
import { RecentEvents, addressKey } from "@/server/auth/throttle";
import { DomainError } from "@/server/errors";

function thrown(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error("nothing thrown");
}

describe("a list of job ids in a query parameter", () => {
  const ids = (query: string) => parseIdListParam(new Request(`http://x/api/jobs/progress${query}`), "ids", 3);

  it("reads comma-separated decimal ids", () => {
    expect(ids("?ids=12")).toEqual([12]);
    expect(ids("?ids=1,%2015,2147483647")).toEqual([1, 15, 2147483647]);
  });

  it("refuses anything else with a 400 that names the parameter", () => {
    for (const query of [
      "",
      "?ids=",
      "?ids=abc",
      "?ids=1,,2",
      "?ids=0",
      "?ids=01",
      "?ids=-1",
      "?ids=1e3",
      "?ids=2147483648",
      "?ids=1,2,3,4",
    ]) {
      const error = thrown(() => ids(query));
      expect(error.code, query).toBe("bad_request");
      expect(error.message, query).toMatch(/^ids: /);
    }
  });
});

describe("methods a route has no handler for", () => {
  it("are known from a table equal to the endpoints' contracts", () => {
    const fromContracts: Record<string, string[]> = {};
    for (const endpoint of ENDPOINTS) (fromContracts[endpoint.path] ??= []).push(endpoint.method.toUpperCase());
    const sorted = (table: Readonly<Record<string, readonly string[]>>) =>
      Object.fromEntries(Object.entries(table).map(([route, methods]) => [route, [...methods].sort()]));
    expect(sorted(API_METHODS)).toEqual(sorted(fromContracts));
  });

  it("are refused with the route's own methods named; HEAD follows GET, OPTIONS and unknown paths pass", () => {
    expect(methodRefusal("/api/forms", "POST")).toEqual({ route: "/api/forms", handled: ["GET"], allow: "GET, HEAD, OPTIONS" });
    expect(methodRefusal("/api/jobs/12", "DELETE")).toMatchObject({ route: "/api/jobs/[id]", handled: ["GET"] });
    expect(methodRefusal("/api/users/bob", "GET")).toEqual({
      route: "/api/users/[username]",
      handled: ["PATCH", "DELETE"],
      allow: "PATCH, DELETE, OPTIONS",
    });
    expect(methodRefusal("/api/jobs", "POST")).toBeNull();
    expect(methodRefusal("/api/forms", "HEAD")).toBeNull();
    expect(methodRefusal("/api/users/bob", "HEAD")).not.toBeNull();
    expect(methodRefusal("/api/forms", "OPTIONS")).toBeNull();
    expect(methodRefusal("/api/no/such/thing", "PUT")).toBeNull();
  });
});

describe("paths and ids", () => {
  it("tells canonical API paths from the rest", () => {
    for (const path of ["/api", "/api/jobs", "/api/jobs/12/output", "/api/forms/hello-world", "/api/jobs/"]) {
      expect(isApiPath(path), path).toBe(true);
      expect(isCanonicalApiPath(path), path).toBe(true);
    }
    for (const path of ["/api/%2e%2e/login", "/api/jobs/%2E", "/api/jobs/1%2fabort", "/api/a%5cb", "/api/../x", "/api/./x", "/api//jobs"]) {
      expect(isCanonicalApiPath(path), path).toBe(false);
    }
    for (const path of ["/api/forms/%zz", "/api/forms/%c3", "/api/forms/a%00", "/api/forms/a%1f", "/api/a\\b"]) {
      expect(isCanonicalApiPath(path), path).toBe(false);
    }
    expect(isApiPath("/api%2fjobs")).toBe(true);
    expect(isApiPath("/apis")).toBe(false);
    expect(isApiPath("/login")).toBe(false);
  });

  it("reads job ids as canonical decimals within the database integer", () => {
    expect(parseJobId("1")).toBe(1);
    expect(parseJobId("2147483647")).toBe(2147483647);
    for (const raw of ["0", "01", "0x10", "1e3", "1.0", "+1", "-1", " 1", "2147483648", "99999999999999999999", ""]) {
      expect(thrown(() => parseJobId(raw)).code, raw).toBe("not_found");
    }
  });
});

describe("client address", () => {
  it("is the socket's peer unless proxies are trusted, then the entry the outermost trusted proxy added", () => {
    expect(resolveClientAddress("::ffff:192.0.2.1", "203.0.113.9", 0)).toBe("192.0.2.1");
    expect(resolveClientAddress("10.0.0.2", "203.0.113.9, 198.51.100.7", 1)).toBe("198.51.100.7");
    expect(resolveClientAddress("10.0.0.2", "203.0.113.9, 198.51.100.7", 2)).toBe("203.0.113.9");
    expect(resolveClientAddress("10.0.0.2", ["203.0.113.9", "198.51.100.7"], 1)).toBe("198.51.100.7");
    expect(resolveClientAddress("10.0.0.2", "not-an-address", 1)).toBe("10.0.0.2");
    expect(resolveClientAddress("10.0.0.2", undefined, 1)).toBe("10.0.0.2");
    expect(parseTrustProxy(undefined)).toBe(0);
    expect(parseTrustProxy("true")).toBe(1);
    expect(parseTrustProxy("2")).toBe(2);
    expect(() => parseTrustProxy("maybe")).toThrow(/PLAYFORM_TRUST_PROXY/);
  });

  it("counts IPv6 clients per /64", () => {
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:0db8:0001:0002::/64");
    expect(addressKey("2001:db8:1:2:bbbb:cccc:dddd:eeee")).toBe("2001:0db8:0001:0002::/64");
    expect(addressKey("::1")).toBe("0000:0000:0000:0000::/64");
    expect(addressKey("192.0.2.1")).toBe("192.0.2.1");
  });
});

describe("throttling counters", () => {
  it("allow `limit` events per window and say when the next one may come", () => {
    const counter = new RecentEvents(3, 60_000);
    for (let i = 0; i < 3; i++) {
      expect(counter.retryAfterSeconds("a", 1000 + i)).toBe(0);
      counter.record("a", 1000 + i);
    }
    expect(counter.retryAfterSeconds("a", 2000)).toBe(59);
    expect(counter.retryAfterSeconds("a", 61_000)).toBe(0);
    expect(counter.retryAfterSeconds("b", 2000)).toBe(0);
  });

  it("stay bounded: old keys are evicted, each key keeps at most `limit` timestamps", () => {
    const counter = new RecentEvents(2, 60_000, 100);
    counter.record("first", 0);
    counter.record("first", 1);
    for (let i = 0; i < 10_000; i++) counter.record(`key-${i}`, 2);
    expect(counter.size).toBe(100);
    expect(counter.has("first", 3)).toBe(false);
    for (let i = 0; i < 50; i++) counter.record("busy", 10 + i);
    expect(counter.retryAfterSeconds("busy", 60)).toBe(60);
  });
});

describe("body text", () => {
  it("decodes valid UTF-8 as it is and marks invalid sequences so the field can be named", () => {
    expect(decodeUtf8(Buffer.from('{"a":"café €"}'))).toEqual({ text: '{"a":"café €"}', invalid: false });
    const bad = decodeUtf8(Buffer.concat([Buffer.from('{"a":"ok","b":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]));
    expect(bad.invalid).toBe(true);
    const problem = thrown(() => checkJsonText(JSON.parse(bad.text), bad.invalid));
    expect(problem.code).toBe("validation_failed");
    expect(problem.fields).toEqual({ b: "is not valid UTF-8" });
    // Overlong encodings and encoded surrogates are invalid too.
    expect(decodeUtf8(Buffer.from([0x22, 0xc0, 0xaf, 0x22])).invalid).toBe(true);
    expect(decodeUtf8(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22])).invalid).toBe(true);
  });

  it("names every string and key holding NUL or a lone surrogate, in order, at most 20", () => {
    const problem = thrown(() => checkJsonText({ a: "x\u0000", list: ["ok", "\ud800"], pair: "\ud83d\ude00", o: { "k\u0000": 1 } }, false));
    expect(problem.fields).toEqual({
      a: "must not contain NUL characters",
      "list.1": "must not contain lone surrogates (unpaired UTF-16 halves)",
      o: "has a key that must not contain NUL characters",
    });
    const many = thrown(() =>
      checkJsonText(
        Array.from({ length: 100 }, () => "\u0000"),
        false,
      ),
    );
    expect(Object.keys(many.fields!)).toHaveLength(20);
    expect(many.message).toMatch(/and 80 more$/);
    let deep: unknown = "x";
    for (let i = 0; i < 40; i++) deep = [deep];
    expect(thrown(() => checkJsonText(deep, false)).code).toBe("bad_request");
    expect(() => checkJsonText({ fine: ["text", 1, null, { ok: true }] }, false)).not.toThrow();
  });

  it("names a __proto__ key instead of letting a schema's copy drop it", () => {
    const problem = thrown(() => checkJsonText(JSON.parse('{"form":"f","values":{"__proto__":"z","constructor":"x"}}'), false));
    expect(problem.code).toBe("validation_failed");
    expect(problem.fields).toEqual({ "values.__proto__": "is not accepted as a key name" });
    expect(problem.message).toBe("values.__proto__: is not accepted as a key name");
    expect(() => checkJsonText(JSON.parse('{"list":[{"constructor":1,"toString":2}]}'), false)).not.toThrow();
  });

  it("formats limits for people", () => {
    expect(formatBytes(16 * 1024)).toBe("16 KiB");
    expect(formatBytes(1024 * 1024)).toBe("1 MiB");
    expect(formatBytes(1000)).toBe("1000 bytes");
  });
});

describe("type errors in the API's words", () => {
  it("says what was expected and what came, or that it is required", () => {
    const schema = z.object({
      values: z.record(z.string(), z.unknown()),
      form: z.string(),
      count: z.number(),
      on: z.boolean(),
      tags: z.array(z.string()),
    });
    const result = schema.safeParse({ values: [1], count: "3", on: 1, tags: {} });
    expect(result.success).toBe(false);
    expect(zodMessage(result.error!)).toBe(
      "values: must be an object, not a list; form: is required; count: must be a number, not a string; on: must be true or false, not a number; tags: must be a list, not an object",
    );
  });
});

describe("error answers", () => {
  it("name a field called like an Object.prototype member", () => {
    const parsed = z.record(z.string(), z.number()).safeParse(JSON.parse('{"constructor": "x", "toString": "y", "ok": 1}'));
    expect(parsed.success).toBe(false);
    expect(issueFields(parsed.error!.issues, "body")).toEqual({
      constructor: "must be a number, not a string",
      toString: "must be a number, not a string",
    });
  });

  it("stay short however many fields or unknown keys there are", () => {
    const fields = Object.fromEntries(Array.from({ length: 90_000 }, (_, i) => [`f${i}`, "is not a field of this form"]));
    const body = errorBody("validation_failed", "x".repeat(5_000_000), fields);
    expect(Object.keys(body.error.fields!)).toHaveLength(20);
    expect(body.error.message).toMatch(/; and 89980 more$/);
    expect(JSON.stringify(body).length).toBeLessThan(5_000);

    const strict = z.strictObject({ a: z.string() });
    const parsed = strict.safeParse({ a: "x", ...Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, 1])) });
    expect(parsed.success).toBe(false);
    const message = zodMessage(parsed.error!);
    expect(message).toBe('unknown keys "k0", "k1", "k2", "k3", "k4" and 49995 more');
  });
});
