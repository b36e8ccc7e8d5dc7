/**
 * Every answer the integration suite's API client gets is checked against the OpenAPI
 * document (server/api/openapi.ts): the route (by its Next.js pattern) and method must be in
 * it, the status must be documented for that operation, a JSON body must validate against the
 * documented schema (ajv, JSON Schema 2020-12), and a body of another type must have a
 * documented media type. A mismatch fails the call with the route, the status and what differs.
 *
 * The check is stricter than the document: an object may hold only the properties the
 * document declares (closed() below), so a field a route returns but its contract forgets
 * fails the test. The published document itself leaves objects open, so clients keep
 * working when a later version adds a field.
 */
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { openApiPath } from "../../server/api/contract";
import { openApiJson } from "../../server/api/openapi";
import { routePattern } from "../../server/metrics/route-pattern";

interface MediaType {
  schema?: object;
}
interface Operation {
  responses: Record<string, { content?: Record<string, MediaType> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components?: object;
}

/** Where /api paths that name no endpoint land: a JSON 404 in the one error shape (not in the document). */
const CATCH_ALL = "/api/[[...rest]]";
const DOC_ID = "openapi.json";

let state: { doc: Document; ajv: Ajv2020; validators: Map<string, ValidateFunction> } | undefined;

function load() {
  if (state) return state;
  const doc = JSON.parse(openApiJson()) as Document;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema({ $id: DOC_ID, components: closed(doc.components) }, DOC_ID);
  state = { doc, ajv, validators: new Map() };
  return state;
}

const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);

/**
 * The schema with every object closed: an object schema that says nothing about other
 * properties gets `additionalProperties: false`. A member of an `allOf` is left open (its
 * siblings declare the rest) and the `allOf` itself gets `unevaluatedProperties: false`.
 * Objects that allow other properties on purpose (`z.record`, free-form values) say so
 * with `additionalProperties` and are kept as they are.
 */
function closed(schema: unknown, inAllOf = false): unknown {
  if (Array.isArray(schema)) return schema.map((item) => closed(item, inAllOf));
  if (typeof schema !== "object" || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties" || key === "$defs" || key === "schemas" || key === "patternProperties") {
      // Maps of names to schemas: close each schema, not the map.
      out[key] = Object.fromEntries(Object.entries(value as object).map(([name, sub]) => [name, closed(sub)]));
    } else if (SCHEMA_LISTS.has(key)) {
      out[key] = (value as unknown[]).map((item) => closed(item, key === "allOf"));
    } else if (typeof value === "object" && value !== null) {
      out[key] = closed(value);
    } else out[key] = value;
  }
  const isObject = out.type === "object" || (Array.isArray(out.type) && out.type.includes("object")) || "properties" in out;
  const saysOthers = "additionalProperties" in out || "patternProperties" in out || "unevaluatedProperties" in out;
  if (isObject && !saysOthers && !inAllOf) out.additionalProperties = false;
  if ("allOf" in out && !inAllOf && !saysOthers) out.unevaluatedProperties = false;
  return out;
}

/** The schema with its `#/components/...` references pointed at the document. */
function anchored(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(anchored);
  if (typeof schema !== "object" || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === "$ref" && typeof value === "string" && value.startsWith("#/") ? `${DOC_ID}${value}` : anchored(value),
    ]),
  );
}

function validator(key: string, schema: object): ValidateFunction {
  const { ajv, validators } = load();
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(anchored(closed(schema)) as object);
    validators.set(key, validate);
  }
  return validate;
}

function errorSchema(): object {
  return { $ref: "#/components/schemas/Error" };
}

/**
 * Null when the answer matches the document, else what is wrong, naming the route and status.
 * Paths outside /api (pages, /metrics) are not the API's: not checked.
 */
export function openApiMismatch(method: string, url: string, status: number, contentType: string | null, text: string): string | null {
  const pathname = new URL(url, "http://x").pathname;
  if (pathname !== "/api" && !pathname.startsWith("/api/")) return null;
  const pattern = routePattern(pathname);
  const verb = method.toLowerCase() === "head" ? "get" : method.toLowerCase();
  const where = `${method.toUpperCase()} ${pattern === CATCH_ALL ? pathname : pattern} → ${status}`;
  const mediaType = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  const body = method.toUpperCase() === "HEAD" ? "" : text;

  let documented: { content?: Record<string, MediaType> } | undefined;
  let key: string;
  // The custom server answers a path that is not in canonical form (`/api/jobs/%2e%2e`) before
  // any route sees it, with the catch-all's JSON 404 "no API endpoint at …".
  const noEndpoint = status === 404 && body.includes('"no API endpoint at ');
  if (pattern === CATCH_ALL || noEndpoint) {
    if (status !== 404) return `${where}: a path that names no endpoint must answer 404`;
    documented = { content: { "application/json": { schema: errorSchema() } } };
    key = "catch-all 404";
  } else {
    const item = load().doc.paths[openApiPath(pattern)];
    if (!item) return `${where}: the route ${pattern} is not in the OpenAPI document`;
    const operation = item[verb];
    if (!operation) {
      // Next answers 405 for a method the route does not export: HTTP itself, not an endpoint.
      if (status === 405) return null;
      return `${where}: ${verb.toUpperCase()} ${pattern} is not in the OpenAPI document`;
    }
    documented = operation.responses[String(status)];
    if (!documented) return `${where}: status ${status} is not documented (documented: ${Object.keys(operation.responses).join(", ")})`;
    key = `${verb} ${pattern} ${status}`;
  }

  if (body === "") return null;
  const content = documented.content ?? {};
  if (Object.keys(content).length === 0)
    return `${where}: documented without a body, answered ${mediaType || "untyped"} (${body.slice(0, 200)})`;
  if (mediaType !== "application/json") {
    return mediaType in content ? null : `${where}: answered ${mediaType || "untyped"}, documented ${Object.keys(content).join(", ")}`;
  }
  const schema = content["application/json"]?.schema;
  if (!schema) return `${where}: answered JSON, documented ${Object.keys(content).join(", ")}`;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return `${where}: the body is not JSON though typed so`;
  }
  const validate = validator(`${key} application/json`, schema);
  if (validate(json)) return null;
  const errors = (validate.errors ?? [])
    .slice(0, 8)
    .map((e) => `${e.instancePath || "(body)"} ${e.message ?? ""}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`)
    .join("; ");
  return `${where}: the body does not match the document: ${errors}; body: ${body.slice(0, 500)}`;
}
