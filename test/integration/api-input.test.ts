/**
 * What the API accepts on the default path, against the real app: ids and paths (unknown ones
 * are JSON 404s in the one error shape), the text inside JSON bodies (no NUL, no lone
 * surrogate, valid UTF-8, named field by field), the media type, the size of bodies and of
 * error answers, and the join throttle per client address (X-Forwarded-For is not trusted by
 * default, and the app's internal client-address header cannot be sent from outside).
 */
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../support/api";
import { adminToken, dbQuery, startPlayform, type RunningPlayform } from "../support/playform";

let app: RunningPlayform;
let api: ApiClient;
let token: string;

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** A request with the path sent exactly as written (fetch would normalise `%2e%2e` and `..`). */
function raw(method: string, path: string, init: { headers?: Record<string, string>; body?: Buffer | string } = {}): Promise<RawAnswer> {
  const url = new URL(app.url);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: url.hostname, port: url.port, method, path, headers: init.headers }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, text }));
    });
    request.on("error", reject);
    request.end(init.body);
  });
}

function rssBytes(): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${app.pid}/status`, "utf8"));
  return Number(match![1]) * 1024;
}

async function count(table: string): Promise<number> {
  const rows = await dbQuery<{ n: number | string }>(app, `SELECT COUNT(*) AS n FROM "${table}"`);
  return Number(rows[0]!.n);
}

beforeAll(async () => {
  app = await startPlayform();
  token = await adminToken(app);
  api = apiClient(app, token);
});
afterAll(async () => {
  await app?.stop();
});

/** Every route.ts under app/api (but the catch-all) with the methods it exports: ["/api/jobs/[id]", ["GET"]]. */
function routesOnDisk(dir = path.resolve(import.meta.dirname, "../../app/api"), prefix = "/api"): [string, string[]][] {
  const found: [string, string[]][] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "[[...rest]]") found.push(...routesOnDisk(full, `${prefix}/${entry.name}`));
    } else if (entry.name === "route.ts") {
      const source = fs.readFileSync(full, "utf8");
      found.push([
        prefix,
        ["GET", "POST", "PUT", "PATCH", "DELETE"].filter((m) =>
          new RegExp(`export\\s+(const|(async\\s+)?function)\\s+${m}\\b`).test(source),
        ),
      ]);
    }
  }
  return found;
}

describe("methods", () => {
  it("answers a method a route does not have with a JSON 405 naming it and an Allow header, on every route", async () => {
    // Before the fix: Next answered these itself, 405 with an empty body.
    const routes = routesOnDisk();
    expect(routes.length).toBeGreaterThan(40);
    const wrong: string[] = [];
    let checked = 0;
    for (const [pattern, methods] of routes) {
      const target = pattern.replace(/\[[^\]]+\]/g, "1");
      for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"].filter((m) => !methods.includes(m))) {
        checked++;
        // A body only where one belongs (a GET's would be ignored, and kept the socket waiting).
        const sent = ["POST", "PUT", "PATCH"].includes(method) ? "{}" : undefined;
        const answer = await raw(method, target, {
          headers: { authorization: `Bearer ${token}`, ...(sent ? { "content-type": "application/json", "content-length": "2" } : {}) },
          body: sent,
        });
        let body: { error?: { code?: string; message?: string } } = {};
        try {
          body = JSON.parse(answer.text) as typeof body;
        } catch {
          // not JSON: reported below
        }
        const allow = String(answer.headers.allow ?? "");
        const ok =
          answer.status === 405 &&
          String(answer.headers["content-type"]).startsWith("application/json") &&
          body.error?.code === "method_not_allowed" &&
          body.error.message === `${method} is not allowed on ${pattern}: use ${methods.join(" or ")}` &&
          methods.every((m) => allow.includes(m));
        if (!ok) wrong.push(`${method} ${target}: ${answer.status} allow=${allow} ${answer.text.slice(0, 120)}`);
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(wrong).toEqual([]);
  });
});

describe("ids and paths", () => {
  it("reads job ids as strict decimal numbers in range, and answers every unknown API path with a JSON 404", async () => {
    const id = await api.launch("hello-world", { message: "job one" });
    expect(id).toBe(1);
    expect((await api.call("GET", "/api/jobs/1")).status).toBe(200);
    const auth = { authorization: `Bearer ${token}` };

    const paths = [
      // Out of the database integer's range: a 404 like any unknown job, not a 500.
      "/api/jobs/99999999999999999999",
      "/api/jobs/99999999999999999999/output",
      "/api/jobs/99999999999999999999/recap",
      "/api/jobs/99999999999999999999/timeline",
      "/api/jobs/99999999999999999999/compare/previous",
      "/api/jobs/1/compare/99999999999999999999",
      "/api/jobs/2147483648",
      // Not decimal digits: not job 1 in disguise.
      "/api/jobs/0x1",
      "/api/jobs/1e0",
      "/api/jobs/1.0",
      "/api/jobs/01",
      "/api/jobs/+1",
      "/api/jobs/%201",
      "/api/jobs/0",
      "/api/jobs/-1",
      // Encoded traversal and paths that normalise outside their route.
      "/api/jobs/%2e%2e",
      "/api/jobs/%2E%2E",
      "/api/jobs/%2e%2e/%2e%2e/login",
      "/api/%2e%2e/login",
      "/api/..%2fusers",
      "/api/../login",
      "/api/jobs/./1",
      "/api/jobs/1%2fabort",
      "/api/jobs/1%5cabort",
      "/api%2fjobs",
      // Nothing there at all.
      "/api/nothing",
      "/api/jobs/1/nothing",
      "/api",
    ];
    for (const path of paths) {
      const answer = await raw("GET", path, { headers: auth });
      expect(answer.status, `${path}: ${answer.text.slice(0, 200)}`).toBe(404);
      expect(answer.headers["content-type"], path).toMatch(/^application\/json/);
      expect(JSON.parse(answer.text).error.code, path).toBe("not_found");
    }
    for (const path of ["/api/jobs/0x1/abort", "/api/jobs/99999999999999999999/approve", "/api/nothing", "/api/%2e%2e/auth/login"]) {
      const answer = await raw("POST", path, { headers: { ...auth, "content-type": "application/json" }, body: "{}" });
      expect(answer.status, `POST ${path}: ${answer.text.slice(0, 200)}`).toBe(404);
      expect(JSON.parse(answer.text).error.code, path).toBe("not_found");
    }
    // Numbers in queries are decimal too, and within range: a malformed query is a 400.
    for (const query of ["after=99999999999999999999", "after=0x10", "limit=1e2"]) {
      const answer = await raw("GET", `/api/jobs/1/output?${query}`, { headers: auth });
      expect(answer.status, `${query}: ${answer.text.slice(0, 200)}`).toBe(400);
      expect(JSON.parse(answer.text).error.code).toBe("bad_request");
    }
    // The job list names the bad parameter (422 with fields; test/integration/job-list.test.ts).
    const list = await raw("GET", "/api/jobs?limit=0x10", { headers: auth });
    expect(list.status).toBe(422);
    expect(JSON.parse(list.text).error.fields.limit).toMatch(/whole number from 1 to 200/);
    // A malformed cookie is no cookie: 401, not a 500.
    const cookie = await raw("GET", "/api/auth/me", { headers: { cookie: "playform_session=%zz" } });
    expect(cookie.status).toBe(401);
    expect(JSON.parse(cookie.text).error.code).toBe("unauthorized");
    expect((await api.get("/api/jobs/1")).job.id).toBe(1);
  });
});

describe("text in JSON bodies", () => {
  it("refuses NUL, lone surrogates and invalid UTF-8 naming the field, and bodies that are not application/json; nothing is stored", async () => {
    const jobs = await count("Job");
    const credentials = await count("Credential");
    const users = await count("User");
    const post = (path: string, body: string | Buffer, type = "application/json") =>
      raw("POST", path, { headers: { authorization: `Bearer ${token}`, "content-type": type }, body });

    const nul = await api.call("POST", "/api/jobs", { json: { form: "hello-world", values: { message: "a\u0000b" } } });
    expect(nul.status).toBe(422);
    expect(nul.json.error.fields["values.message"]).toMatch(/NUL/);
    const surrogate = await api.call("POST", "/api/jobs", { json: { form: "hello-world", values: { message: "a\ud800b" } } });
    expect(surrogate.status).toBe(422);
    expect(surrogate.json.error.fields["values.message"]).toMatch(/surrogate/);
    const latin1 = Buffer.concat([Buffer.from('{"form":"hello-world","values":{"message":"caf'), Buffer.from([0xe9]), Buffer.from('"}}')]);
    const invalid = await post("/api/jobs", latin1);
    expect(invalid.status).toBe(422);
    expect(JSON.parse(invalid.text).error.fields["values.message"]).toMatch(/UTF-8/);
    const outsideStrings = await post(
      "/api/jobs",
      Buffer.concat([Buffer.from('{"form":"hello-world"'), Buffer.from([0xff]), Buffer.from("}")]),
    );
    expect(outsideStrings.status).toBe(400);
    expect(JSON.parse(outsideStrings.text).error.message).toMatch(/UTF-8/);
    const nulKey = await api.call("POST", "/api/jobs", { json: { form: "hello-world", values: { "mess\u0000age": "x" } } });
    expect(nulKey.status).toBe(422);
    expect(Object.keys(nulKey.json.error.fields)).toEqual(["values"]);

    const vault = await api.call("POST", "/api/credentials", { json: { name: "nul-vault", kind: "vault", password: "pass\u0000word" } });
    expect(vault.status).toBe(422);
    expect(vault.json.error.fields.password).toMatch(/NUL/);
    const vaultBytes = Buffer.concat([
      Buffer.from('{"name":"bad-vault","kind":"vault","password":"pass'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}'),
    ]);
    const vaultInvalid = await post("/api/credentials", vaultBytes);
    expect(vaultInvalid.status).toBe(422);
    expect(JSON.parse(vaultInvalid.text).error.fields.password).toMatch(/UTF-8/);
    const secret = await api.call("POST", "/api/credentials", {
      json: { name: "surrogate-secret", kind: "secret", variables: { api_key: "\udc00" } },
    });
    expect(secret.status).toBe(422);
    expect(secret.json.error.fields["variables.api_key"]).toMatch(/surrogate/);
    const user = await api.call("POST", "/api/users", { json: { username: "nully", password: "long-enough\u0000password" } });
    expect(user.status).toBe(422);
    expect(user.json.error.fields.password).toMatch(/NUL/);

    // JSON bodies need Content-Type: application/json.
    const valid = JSON.stringify({ form: "hello-world", values: { message: "typed as text" } });
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/jsonx"]) {
      const answer = await post("/api/jobs", valid, type);
      expect(answer.status, type).toBe(415);
      expect(JSON.parse(answer.text).error.code).toBe("unsupported_media_type");
    }
    const untyped = await raw("POST", "/api/jobs", { headers: { authorization: `Bearer ${token}` }, body: valid });
    expect(untyped.status).toBe(415);
    const login = await raw("POST", "/api/auth/login", {
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ username: "admin", password: app.adminPassword }),
    });
    expect(login.status).toBe(415);
    expect((await post("/api/jobs", valid, "application/json; charset=utf-8")).status).toBe(201);

    expect(await count("Job")).toBe(jobs + 1);
    expect(await count("Credential")).toBe(credentials);
    expect(await count("User")).toBe(users);
  });
});

describe("sizes", () => {
  it("refuses large bodies without reading them (413 with the limit) and keeps error listings short", async () => {
    // Warm the routes up, so what is measured is the bodies, not the first compilation.
    expect((await raw("POST", "/api/auth/login", { headers: { "content-type": "application/json" }, body: "{}" })).status).toBe(400);
    const before = rssBytes();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssBytes())), 20);

    const big = Buffer.alloc(50 * 1024 * 1024, "a");
    const chunked = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < big.length; at += 1024 * 1024) controller.enqueue(big.subarray(at, at + 1024 * 1024));
          controller.close();
        },
      });
    const send = async (path: string, streamed: boolean) => {
      // Raw: a 50 MiB body, streamed or not (the client sends small JSON only).
      const response = await fetch(`${app.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: streamed ? chunked() : big,
        duplex: "half",
      } as RequestInit);
      return { status: response.status, json: (await response.json()) as any };
    };
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => send(i % 4 < 2 ? "/api/auth/login" : "/api/runners/join", i % 2 === 1)),
    );
    clearInterval(sampler);
    for (const answer of answers) {
      expect(answer.status).toBe(413);
      expect(answer.json.error.code).toBe("payload_too_large");
      expect(answer.json.error.message).toMatch(/16 KiB/);
    }
    expect(peak - before, `RSS grew from ${before} to ${peak}`).toBeLessThan(100 * 1024 * 1024);
    // The app still answers.
    expect((await api.call("GET", "/api/auth/me")).status).toBe(200);

    // 400,000 unknown keys: a short answer, whatever it is.
    const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [i.toString(36), 0]));
    const huge = await raw("POST", "/api/jobs", {
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ form: "hello-world", values: many(400_000) }),
    });
    expect(huge.status).toBeGreaterThanOrEqual(400);
    expect(huge.status).toBeLessThan(500);
    expect(huge.text.length).toBeLessThan(10_000);
    // Under the size limit, the listing is capped: a few fields, and how many more there are.
    const jobs = await count("Job");
    const listed = await api.call("POST", "/api/jobs", { json: { form: "hello-world", values: many(90_000) } });
    expect(listed.status).toBe(422);
    expect(JSON.stringify(listed.json).length).toBeLessThan(10_000);
    expect(Object.keys(listed.json.error.fields).length).toBeLessThanOrEqual(20);
    expect(listed.json.error.message).toMatch(/and \d+ more/);
    // Unknown keys next to the known ones are refused, briefly, not ignored.
    const extra = await api.call("POST", "/api/jobs", { json: { form: "hello-world", values: { message: "x" }, ...many(60_000) } });
    expect(extra.status).toBe(400);
    expect(JSON.stringify(extra.json).length).toBeLessThan(10_000);
    expect(extra.json.error.message).toMatch(/unknown key/);
    expect(await count("Job")).toBe(jobs);
  });
});

describe("join throttle", () => {
  it("answers 429 with Retry-After to the 11th join from one address within a minute, whatever headers it sends", async () => {
    // Raw: what is tested is the forwarding headers a client sends.
    const join = (i: number) =>
      fetch(`${app.url}/api/runners/join`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          // Not trusted by default, and the app's own header is replaced, so neither changes who is asking.
          "x-forwarded-for": `203.0.113.${i}`,
          "x-playform-client-ip": `198.51.100.${i}`,
        },
        body: JSON.stringify({ v: 1, name: `flood-${i}`, version: "x", capacity: 1 }),
      });
    for (let i = 0; i < 10; i++) expect((await join(i)).status).toBe(202);
    const refused = await join(10);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(((await refused.json()) as any).error.code).toBe("too_many_requests");
    const pending = await dbQuery<{ n: number }>(app, `SELECT COUNT(*) AS n FROM "Runner" WHERE status = 'pending'`);
    expect(Number(pending[0]!.n)).toBe(10);
  });
});
