// The import layers of docs/architecture.md, checked by `npm run lint` (depcruise). Each rule
// names the layer it protects; test/unit/architecture.test.ts runs the checker on deliberately
// wrong imports so a rule that silently stops matching fails the build.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "protocol-is-a-leaf",
      comment: "server/protocol holds the wire contracts both sides import; it imports nothing of the project.",
      severity: "error",
      from: { path: "^server/protocol/" },
      to: { path: "^(app|components|server|scripts|test)/", pathNot: "^server/protocol/" },
    },
    {
      name: "form-rules-is-a-leaf",
      comment:
        "server/form-rules is a form's fields and the rules of its values, run by the page and the API alike; it imports nothing of the project.",
      severity: "error",
      from: { path: "^server/form-rules/" },
      to: { path: "^(app|components|server|scripts|test)/", pathNot: "^server/form-rules/" },
    },
    {
      name: "recap-is-a-leaf",
      comment: "server/recap is pure analytics (text or events in, JSON out); it imports nothing of the project.",
      severity: "error",
      from: { path: "^server/recap/" },
      to: { path: "^(app|components|server|scripts|test)/", pathNot: "^server/recap/" },
    },
    {
      name: "logging-is-a-leaf",
      comment:
        "server/logging (pino, the request context, masking of log lines) is used by every server layer and the RTE: it imports only the masker of server/security.",
      severity: "error",
      from: { path: "^server/logging/" },
      to: { path: "^(app|components|server|scripts|test)/", pathNot: "^server/(logging|security)/" },
    },
    {
      name: "metrics-is-a-leaf",
      comment:
        "server/metrics holds the app's Prometheus registry; what it reads at scrape time is handed in by the custom server, so it imports nothing of the project but the logger and the pure security functions (the bearer token check).",
      severity: "error",
      from: { path: "^server/metrics/" },
      to: { path: "^(app|components|server|scripts|test)/", pathNot: "^server/(metrics|logging|security)/" },
    },
    {
      name: "metrics-only-at-the-edges",
      comment:
        "Only the custom server, the hubs and the HTTP edge observe metrics; domain and data code (also bundled into route handlers) report through callbacks the custom server gives them.",
      severity: "error",
      from: { path: "^server/", pathNot: "^server/(metrics/|hub/|api/|index\\.ts)" },
      to: { path: "^server/metrics/" },
    },
    {
      name: "rte-imports-only-its-contract",
      comment: "The RTE is a separate process on another machine: it may use only protocol, recap, security and logging.",
      severity: "error",
      from: { path: "^server/rte/" },
      to: { path: "^(app|components|server|scripts)/", pathNot: "^server/(rte|protocol|recap|security|logging)/" },
    },
    {
      name: "database-drivers-only-in-data",
      comment: "Only server/data talks to the database: the Prisma client, its generated code and pg stay there.",
      severity: "error",
      from: { pathNot: "^(server/data/|scripts/|test/)" },
      to: { path: "((^|/)node_modules/(@prisma/|prisma/|pg/|better-sqlite3/)|^server/data/generated/)" },
    },
    {
      name: "database-handle-only-in-data",
      comment: "Queries live in server/data, one module per entity; everything else calls those functions.",
      severity: "error",
      from: { pathNot: "^(server/data/|scripts/|test/)" },
      to: { path: "^server/data/db\\.ts$" },
    },
    {
      name: "security-imports-no-data",
      comment:
        "Sealing, masking and hashing are pure functions of their inputs; reading secrets from the database is the caller's job. The masker masks what the app shows, so it reads the output by the renderer's own definition of an escape (server/protocol/ansi.ts, a leaf).",
      severity: "error",
      from: { path: "^server/security/" },
      to: { path: "^(app|components|server)/", pathNot: "^server/(security/|protocol/ansi\\.ts$)" },
    },
    {
      name: "data-is-below-the-domain",
      comment: "server/data stores and reads; it calls no domain service, hub or HTTP code at run time (it may name their types).",
      severity: "error",
      from: { path: "^server/data/" },
      to: {
        path: "^(app|components|server)/",
        pathNot: "^server/(data|protocol|security|recap|logging|errors\\.ts)",
        dependencyTypesNot: ["type-only"],
      },
    },
    {
      name: "http-only-at-the-edge",
      comment:
        "server/api maps domain errors to HTTP; only route handlers (app/) and the custom server use it. Domain modules throw domain errors.",
      severity: "error",
      from: { path: "^server/", pathNot: "^server/(api/|index\\.ts)" },
      to: { path: "^server/api/" },
    },
    {
      name: "server-never-imports-ui",
      comment: "The server does not depend on pages or components.",
      severity: "error",
      from: { path: "^server/" },
      to: { path: "^(app|components)/" },
    },
    {
      name: "browser-code-imports-server-types-only",
      comment: "components/ runs in the browser: from server/ it may import types, and the pure recap, protocol and form-rules modules.",
      severity: "error",
      from: { path: "^components/" },
      to: { path: "^server/", pathNot: "^server/(recap|protocol|form-rules)/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "no-circular",
      comment: "A cycle means two modules are one; split or merge them.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "not-to-unresolvable",
      comment: "An import that resolves to nothing is a typo or a missing dependency.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(\\.next|dist|data)/|^server/data/generated/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json"],
    },
    skipAnalysisNotInRules: true,
  },
};
