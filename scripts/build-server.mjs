// Bundles the custom server and the RTE into dist/ (node_modules stay external), so production
// starts with plain `node`, not tsx.
import { build } from "esbuild";

await build({
  entryPoints: { server: "server/index.ts", rte: "server/rte/entry.ts" },
  outdir: "dist",
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  packages: "external",
  sourcemap: true,
  logLevel: "warning",
  alias: { "@": "." },
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
});
console.log("built dist/server.js and dist/rte.js");
