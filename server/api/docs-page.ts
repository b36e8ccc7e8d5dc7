/**
 * The interactive API reference at /api/docs: Swagger UI (swagger-ui-dist) over
 * /api/openapi.json. Its files are served by this app from node_modules (the machines are
 * offline: no CDN), through /api/docs/assets/NAME for the names listed here only.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";

const ASSETS_PATH = "/api/docs/assets";

/** Our own starter: no inline script, so the page also works under a strict Content-Security-Policy. */
const INIT_SCRIPT = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/api/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    withCredentials: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: "StandaloneLayout",
  });
});
`;

/** The files the page may load, and their media types. */
const ALLOWED: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "index.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui-standalone-preset.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
  "favicon-16x16.png": "image/png",
  "playform-init.js": "text/javascript; charset=utf-8",
};

export const DOCS_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Playform API reference</title>
<link rel="stylesheet" href="${ASSETS_PATH}/swagger-ui.css">
<link rel="stylesheet" href="${ASSETS_PATH}/index.css">
<link rel="icon" type="image/png" href="${ASSETS_PATH}/favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${ASSETS_PATH}/swagger-ui-bundle.js"></script>
<script src="${ASSETS_PATH}/swagger-ui-standalone-preset.js"></script>
<script src="${ASSETS_PATH}/playform-init.js"></script>
</body>
</html>
`;

/** An asset's bytes and media type; null for a name that is not on the list. */
export async function docsAsset(name: string): Promise<{ body: Uint8Array<ArrayBuffer> | string; contentType: string } | null> {
  if (!Object.hasOwn(ALLOWED, name)) return null;
  const contentType = ALLOWED[name]!;
  if (name === "playform-init.js") return { body: INIT_SCRIPT, contentType };
  const body = await readFile(path.join(process.cwd(), "node_modules", "swagger-ui-dist", name));
  return { body: new Uint8Array(body), contentType };
}
