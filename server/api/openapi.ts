/**
 * The OpenAPI 3.1 document of the REST API, generated from the endpoints' contracts
 * (server/api/contracts): the same zod schemas the routes validate with. Served at
 * /api/openapi.json and rendered by the reference page at /api/docs. Built once per process.
 */
import { OpenApiGeneratorV31, OpenAPIRegistry, type ResponseConfig, type RouteConfig } from "@asteasolutions/zod-to-openapi";
import packageJson from "../../package.json";
import { SESSION_COOKIE } from "../auth/session";
import { errorBodySchema, errorStatuses, openApiPath, type EndpointSpec } from "./contract";
import { ENDPOINTS } from "./contracts";

export const BEARER_SCHEME = "bearerToken";
export const COOKIE_SCHEME = "sessionCookie";

function responsesOf(spec: EndpointSpec): Record<string, ResponseConfig> {
  const out: Record<string, ResponseConfig> = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    const alternatives =
      response.alternatives ??
      (response.schema || response.mediaType ? [{ mediaType: response.mediaType ?? "application/json", schema: response.schema }] : []);
    out[status] = {
      description: response.description,
      ...(alternatives.length > 0
        ? {
            content: Object.fromEntries(
              alternatives.map((alt) => [alt.mediaType, alt.schema ? { schema: alt.schema } : { schema: { type: "string" } }]),
            ),
          }
        : {}),
    };
  }
  for (const [status, description] of errorStatuses(spec)) {
    out[String(status)] ??= { description, content: { "application/json": { schema: errorBodySchema } } };
  }
  return out;
}

function routeConfig(spec: EndpointSpec): RouteConfig {
  const admins = spec.access === "admin" ? " Admins only." : "";
  return {
    method: spec.method,
    path: openApiPath(spec.path),
    operationId: `${spec.method}${spec.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ""))}`,
    summary: spec.summary,
    ...(spec.description || admins ? { description: `${spec.description ?? ""}${admins}`.trim() } : {}),
    tags: spec.tags,
    security: spec.access === "public" ? [] : [{ [BEARER_SCHEME]: [] }, { [COOKIE_SCHEME]: [] }],
    ...(spec.access === "admin" ? { "x-playform-role": "admin" } : {}),
    request: {
      ...(spec.params ? { params: spec.params } : {}),
      ...(spec.query ? { query: spec.query } : {}),
      ...(spec.body
        ? {
            body: {
              required: !spec.body.optional,
              ...(spec.body.description ? { description: spec.body.description } : {}),
              content: { [spec.body.mediaType ?? "application/json"]: { schema: spec.body.schema } },
            },
          }
        : {}),
    },
    responses: responsesOf(spec),
  };
}

/** The document for a list of contracts (every endpoint's unless told otherwise). */
export function buildOpenApiDocument(endpoints: readonly EndpointSpec[] = ENDPOINTS) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", BEARER_SCHEME, {
    type: "http",
    scheme: "bearer",
    description: "A token from POST /api/auth/token (HTTP Basic credentials in, bearer token out).",
  });
  registry.registerComponent("securitySchemes", COOKIE_SCHEME, {
    type: "apiKey",
    in: "cookie",
    name: SESSION_COOKIE,
    description: "The browser session, set by POST /api/auth/login.",
  });
  for (const spec of endpoints) registry.registerPath(routeConfig(spec));
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "Playform REST API",
      version: packageJson.version,
      description:
        "Generated from the zod schemas the routes validate with. Concepts (errors, ids, limits, throttling, the job list, output by line): docs/api.md.",
      license: { name: packageJson.license, identifier: packageJson.license },
    },
    servers: [{ url: "/" }],
  });
  stringDefaults(document.paths ?? {});
  return document;
}

/**
 * Query parameters arrive as text: `queryInt(1, 500).default(500)` is documented as a string
 * whose default is the text "500", not the number the parsed value defaults to.
 */
function stringDefaults(paths: object) {
  for (const item of Object.values(paths) as Record<string, { parameters?: { schema?: { type?: unknown; default?: unknown } }[] }>[]) {
    for (const operation of Object.values(item)) {
      for (const parameter of operation.parameters ?? []) {
        const schema = parameter.schema;
        if (schema?.type === "string" && schema.default !== undefined && typeof schema.default !== "string")
          schema.default = String(schema.default);
      }
    }
  }
}

let cached: string | undefined;

/** The document as JSON text, built on first use and kept for the life of the process. */
export function openApiJson(): string {
  cached ??= JSON.stringify(buildOpenApiDocument());
  return cached;
}
