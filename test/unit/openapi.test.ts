/**
 * The OpenAPI document (server/api/openapi.ts) covers every route handler under app/api,
 * exactly once per exported method, and nothing else; and it is a well-formed OpenAPI 3.1
 * document whose schemas are valid JSON Schema 2020-12. (No OpenAPI 3.1 meta-schema is
 * available offline, so the document's own structure is checked by hand below.)
 */
import fs from "node:fs";
import path from "node:path";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { ENDPOINTS } from "../../server/api/contracts";
import { openApiPath } from "../../server/api/contract";
import { type buildOpenApiDocument, openApiJson } from "../../server/api/openapi";
import { APP_ROUTES } from "../../server/metrics/route-pattern";
import { openApiMismatch } from "../support/openapi-check";

const API = path.resolve(import.meta.dirname, "../../app/api");
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/**
 * Routes that are deliberately not in the document: the catch-all answers a JSON 404 (the one
 * error body) for every path under /api that names no endpoint; OpenAPI cannot template it.
 */
const UNDOCUMENTED = new Set(["/api/[[...rest]]"]);

/** Every route.ts under app/api with the HTTP methods it exports, as "METHOD /api/pattern". */
function handlersOnDisk(dir = API, prefix = "/api"): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      found.push(...handlersOnDisk(full, /^\(.*\)$/.test(entry.name) ? prefix : `${prefix}/${entry.name}`));
    } else if (/^route\.(ts|js)$/.test(entry.name)) {
      const source = fs.readFileSync(full, "utf8");
      const methods = METHODS.filter((m) => new RegExp(`export\\s+(const\\s+${m}\\b|(async\\s+)?function\\s+${m}\\b)`).test(source));
      if (methods.length === 0) throw new Error(`${full} exports no HTTP method handler`);
      for (const method of methods) found.push(`${method} ${prefix}`);
    }
  }
  return found;
}

type Doc = ReturnType<typeof buildOpenApiDocument>;
const doc: Doc = JSON.parse(openApiJson());

function operationsInDocument(d: Doc): string[] {
  const out: string[] = [];
  for (const [p, item] of Object.entries(d.paths ?? {})) {
    for (const method of Object.keys(item as object)) {
      if (METHODS.includes(method.toUpperCase() as (typeof METHODS)[number])) out.push(`${method.toUpperCase()} ${p}`);
    }
  }
  return out.sort();
}

describe("the OpenAPI document", () => {
  it("has exactly one entry per route handler under app/api, and none without a route", () => {
    const onDisk = handlersOnDisk()
      .filter((h) => !UNDOCUMENTED.has(h.split(" ")[1]!))
      .map((h) => {
        const [method, pattern] = h.split(" ");
        return `${method} ${openApiPath(pattern!)}`;
      })
      .sort();
    expect(onDisk.length).toBeGreaterThan(40);
    expect(operationsInDocument(doc)).toEqual(onDisk);
  });

  it("has one contract per (method, path) and only paths that are routes", () => {
    const keys = ENDPOINTS.map((e) => `${e.method} ${e.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const e of ENDPOINTS) expect(APP_ROUTES, e.path).toContain(e.path);
  });

  it("names each path parameter in its path and declares it", () => {
    for (const [p, item] of Object.entries(doc.paths ?? {})) {
      const names = [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const operation of Object.values(item as Record<string, { parameters?: { in: string; name: string; required?: boolean }[] }>)) {
        const declared = (operation.parameters ?? []).filter((x) => x.in === "path");
        expect(declared.map((x) => x.name).sort(), p).toEqual([...names].sort());
        for (const x of declared) expect(x.required, `${p} ${x.name}`).toBe(true);
      }
    }
  });

  it("is structurally an OpenAPI 3.1 document", () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info.title).toBeTruthy();
    const packageJson = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, "../../package.json"), "utf8"));
    expect(doc.info.version).toBe(packageJson.version);
    // The license, as redocly's recommended rules ask (an SPDX identifier).
    expect(doc.info.license).toEqual({ name: packageJson.license, identifier: "Apache-2.0" });
    expect(Object.keys(doc.components?.securitySchemes ?? {}).sort()).toEqual(["bearerToken", "sessionCookie"]);
    const operationIds = new Set<string>();
    for (const [p, item] of Object.entries(doc.paths ?? {})) {
      expect(p.startsWith("/api/"), p).toBe(true);
      for (const [method, op] of Object.entries(item as Record<string, Record<string, unknown>>)) {
        const where = `${method} ${p}`;
        expect(typeof op.operationId, where).toBe("string");
        expect(operationIds.has(op.operationId as string), `duplicate operationId ${String(op.operationId)}`).toBe(false);
        operationIds.add(op.operationId as string);
        const responses = op.responses as Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
        expect(Object.keys(responses).length, where).toBeGreaterThan(0);
        for (const [status, response] of Object.entries(responses)) {
          expect(status, where).toMatch(/^[1-5]\d\d$/);
          expect(typeof response.description, `${where} ${status}`).toBe("string");
          const own = ENDPOINTS.find((e) => e.method === method && openApiPath(e.path) === p)?.responses[Number(status)];
          if (Number(status) >= 400 && !own)
            expect(response.content?.["application/json"]?.schema, `${where} ${status}`).toEqual({ $ref: "#/components/schemas/Error" });
        }
        for (const scheme of (op.security as Record<string, unknown>[] | undefined) ?? []) {
          for (const name of Object.keys(scheme)) expect(doc.components?.securitySchemes, where).toHaveProperty(name);
        }
      }
    }
  });

  it("holds only valid JSON Schema 2020-12 schemas, every $ref resolving", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: true });
    addFormats(ajv);
    ajv.addSchema({ $id: "openapi.json", components: doc.components }, "openapi.json");
    const refs = new Set<string>();
    const visit = (node: unknown, where: string) => {
      if (Array.isArray(node)) return node.forEach((n, i) => visit(n, `${where}/${i}`));
      if (typeof node !== "object" || node === null) return;
      for (const [key, value] of Object.entries(node)) {
        if (key === "$ref" && typeof value === "string") refs.add(value);
        if (key === "schema" && typeof value === "object") {
          expect(ajv.validateSchema(value as object), `${where}/schema: ${ajv.errorsText(ajv.errors)}`).toBe(true);
        }
        visit(value, `${where}/${key}`);
      }
    };
    visit(doc.paths, "#/paths");
    for (const ref of refs) {
      expect(ref, ref).toMatch(/^#\/components\/schemas\//);
      expect(ajv.getSchema(`openapi.json${ref}`), ref).toBeTruthy();
    }
  });

  it("is built once and served from memory", () => {
    expect(openApiJson()).toBe(openApiJson());
  });
});

describe("the integration client's check against the document", () => {
  const job = {
    id: 1,
    form: "f",
    status: "queued",
    statusReason: null,
    exitCode: null,
    runner: null,
    environment: null,
    user: "u",
    values: {},
    runOptions: {},
    abortRequested: false,
    decidedBy: null,
    createdAt: "2026-01-01T00:00:00.000Z",
    startedAt: null,
    finishedAt: null,
    lastSeq: 0,
    lines: 0,
    relaunchOf: null,
    outputPurgedAt: null,
    outputTruncated: false,
    source: null,
    launchedBy: null,
    drift: false,
    plan: null,
  };
  const json = "application/json";
  const permissions = { approve: false, abort: true, relaunch: true };

  it("accepts documented answers", () => {
    expect(openApiMismatch("GET", "/api/jobs/12", 200, json, JSON.stringify({ job, permissions }))).toBeNull();
    expect(
      openApiMismatch("GET", "/api/jobs/12", 404, json, JSON.stringify({ error: { code: "not_found", message: "no job 12" } })),
    ).toBeNull();
    expect(openApiMismatch("DELETE", "/api/users/alice", 204, null, "")).toBeNull();
    expect(openApiMismatch("GET", "/api/jobs/12/log", 200, "text/plain; charset=utf-8", "hello\n")).toBeNull();
    expect(openApiMismatch("GET", "/api/nothing", 404, json, JSON.stringify({ error: { code: "not_found", message: "x" } }))).toBeNull();
    expect(openApiMismatch("GET", "/metrics", 200, "text/plain", "x 1")).toBeNull();
  });

  it("refuses a body, a status or a route the document does not describe, naming route and status", () => {
    expect(openApiMismatch("GET", "/api/jobs/12", 200, json, JSON.stringify({ job: { ...job, status: "done" }, permissions }))).toMatch(
      /^GET \/api\/jobs\/\[id\] → 200: the body does not match the document: \/job\/status/,
    );
    expect(openApiMismatch("GET", "/api/jobs/12", 418, json, "{}")).toMatch(/^GET \/api\/jobs\/\[id\] → 418: status 418 is not documented/);
    expect(openApiMismatch("GET", "/api/jobs/12", 404, json, JSON.stringify({ oops: 1 }))).toMatch(/→ 404: the body does not match/);
    expect(openApiMismatch("PUT", "/api/jobs/12", 200, json, "{}")).toMatch(/PUT \/api\/jobs\/\[id\] is not in the OpenAPI document/);
    expect(openApiMismatch("GET", "/api/jobs/12/log", 200, "text/html", "<p>")).toMatch(/answered text\/html, documented text\/plain/);
    expect(openApiMismatch("GET", "/api/nothing", 200, json, "{}")).toMatch(/must answer 404/);
  });

  it("refuses properties the document does not declare, at any depth, though the document leaves objects open", () => {
    expect(openApiMismatch("GET", "/api/jobs/12", 200, json, JSON.stringify({ job: { ...job, secretField: 1 }, permissions }))).toMatch(
      /→ 200: the body does not match the document: \/job must NOT have additional properties .*"additionalProperty":"secretField"/,
    );
    expect(openApiMismatch("GET", "/api/jobs/12", 200, json, JSON.stringify({ job, permissions, extra: true }))).toMatch(
      /additionalProperty":"extra"/,
    );
    const error = { error: { code: "not_found", message: "no job 12", hint: "x" } };
    expect(openApiMismatch("GET", "/api/jobs/12", 404, json, JSON.stringify(error))).toMatch(/additionalProperty":"hint"/);
    // The published document itself does not close them: clients keep working when a field is added.
    expect(JSON.parse(openApiJson()).components.schemas.Job.additionalProperties).toBeUndefined();
  });
});
