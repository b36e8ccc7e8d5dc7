/** Contracts of the health probes and of the API reference itself (server/api/contract.ts). */
import { z } from "zod";
import { endpoint } from "../contract";

export const live = endpoint({
  method: "get",
  path: "/api/live",
  summary: "Liveness: the process serves requests",
  tags: ["health"],
  access: "public",
  responses: { 200: { description: "alive", schema: z.object({ status: z.literal("ok") }) } },
});

export const ready = endpoint({
  method: "get",
  path: "/api/ready",
  summary: "Readiness: the database answers and every migration is applied",
  tags: ["health"],
  access: "public",
  responses: {
    200: { description: "ready", schema: z.object({ status: z.literal("ready") }) },
    503: { description: "not ready, with the reason", schema: z.object({ status: z.literal("not_ready"), reason: z.string() }) },
  },
});

export const openApiDocument = endpoint({
  method: "get",
  path: "/api/openapi.json",
  summary: "This OpenAPI 3.1 document",
  description: "Generated from the zod schemas the routes validate with. Public: it holds no data, only the API's shape.",
  tags: ["reference"],
  access: "public",
  responses: {
    200: { description: "the document", schema: z.looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.looseObject({}) }) },
  },
});

export const docsPage = endpoint({
  method: "get",
  path: "/api/docs",
  summary: "The interactive API reference (Swagger UI) over /api/openapi.json",
  tags: ["reference"],
  access: "public",
  responses: { 200: { description: "an HTML page", mediaType: "text/html" } },
});

export const docsAsset = endpoint({
  method: "get",
  path: "/api/docs/assets/[file]",
  summary: "A file of the reference page (Swagger UI's scripts and styles, served from this app: no CDN)",
  tags: ["reference"],
  access: "public",
  params: z.object({ file: z.string().meta({ description: "one of the allowed asset names, e.g. swagger-ui-bundle.js" }) }),
  responses: {
    200: {
      description: "the asset",
      alternatives: [{ mediaType: "text/javascript" }, { mediaType: "text/css" }, { mediaType: "image/png" }],
    },
  },
});
