/**
 * The import layers of docs/architecture.md are checked by dependency-cruiser in `npm run lint`.
 * A rule whose path pattern stops matching (a folder renamed, a regex typo) would pass silently
 * forever, so this test builds a small tree with one deliberately wrong import per rule, next to
 * imports the rules allow, runs the real checker with the project's real configuration on it,
 * and expects exactly the wrong imports to be reported, each by its own rule.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const DEPCRUISE = path.join(ROOT, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");

/** path -> source. Every import below is either allowed or listed in EXPECTED. */
const TREE: Record<string, string> = {
  // Targets that exist so every import resolves.
  "server/errors.ts": "export class DomainError extends Error {}\n",
  "server/api/errors.ts": "export const ERROR_STATUS = {};\n",
  "server/data/db.ts": 'import pg from "pg";\nexport const db = pg;\n',
  "server/data/jobs.ts":
    'import { db } from "./db";\nimport { type Plan } from "../jobs/plan";\nexport const jobs = db;\nexport type P = Plan;\n',
  "server/jobs/plan.ts": "export type Plan = { id: number };\nexport const plan = 1;\n",
  "server/protocol/messages.ts": "export const V = 1;\n",
  "server/security/mask.ts": "export const mask = 1;\n",
  "components/ui/button.tsx": "export const Button = 1;\n",
  "server/metrics/registry.ts": "export const registry = 1;\n",
  "server/logging/logger.ts": 'import { mask } from "../security/mask";\nexport const logger = mask;\n',

  // Allowed imports, one per layer: none of these may be reported.
  "server/rte/agent.ts":
    'import { V } from "../protocol/messages";\nimport { mask } from "../security/mask";\nimport { logger } from "../logging/logger";\nexport const a = V + mask + logger;\n',
  "server/data/users.ts": 'import { logger } from "../logging/logger";\nexport const u = logger;\n',
  "server/metrics/endpoint.ts": 'import { logger } from "../logging/logger";\nexport const e = logger;\n',
  "server/jobs/launch.ts":
    'import { jobs } from "../data/jobs";\nimport { DomainError } from "../errors";\nexport const l = [jobs, DomainError];\n',
  "components/jobs/view.tsx":
    'import type { P } from "../../server/data/jobs";\nimport { V } from "../../server/protocol/messages";\nexport const v: P | number = V;\n',

  // Deliberate violations.
  "server/protocol/bad.ts": 'import { plan } from "../jobs/plan";\nexport const b = plan;\n',
  "server/recap/bad.ts": 'import { mask } from "../security/mask";\nexport const b = mask;\n',
  "server/form-rules/bad.ts": 'import { mask } from "../security/mask";\nexport const b = mask;\n',
  "server/form-rules/fields.ts": "export const fields = 1;\n",
  "components/forms/uses-rules.tsx": 'import { fields } from "../../server/form-rules/fields";\nexport const f = fields;\n',
  "server/rte/bad.ts": 'import { plan } from "../jobs/plan";\nexport const b = plan;\n',
  "server/jobs/uses-pg.ts": 'import pg from "pg";\nexport const b = pg;\n',
  "server/jobs/uses-db.ts": 'import { db } from "../data/db";\nexport const b = db;\n',
  "server/security/bad.ts": 'import { jobs } from "../data/jobs";\nexport const b = jobs;\n',
  "server/data/bad.ts": 'import { plan } from "../jobs/plan";\nexport const b = plan;\n',
  "server/jobs/http.ts": 'import { ERROR_STATUS } from "../api/errors";\nexport const b = ERROR_STATUS;\n',
  "server/hub/ui.ts": 'import { Button } from "../../components/ui/button";\nexport const b = Button;\n',
  "components/jobs/bad.tsx": 'import { jobs } from "../../server/data/jobs";\nexport const b = jobs;\n',
  "server/forms/cycle-a.ts": 'import { b } from "./cycle-b";\nexport const a = () => b;\n',
  "server/forms/cycle-b.ts": 'import { a } from "./cycle-a";\nexport const b = () => a;\n',
  "server/hub/rte.ts": 'import { registry } from "../metrics/registry";\nexport const h = registry;\n',
  "server/metrics/bad.ts": 'import { jobs } from "../data/jobs";\nexport const b = jobs;\n',
  "server/jobs/metered.ts": 'import { registry } from "../metrics/registry";\nexport const b = registry;\n',
  "server/logging/bad.ts": 'import { jobs } from "../data/jobs";\nexport const b = jobs;\n',
  "server/forms/typo.ts": 'import { x } from "./does-not-exist";\nexport const t = x;\n',
};

const EXPECTED = [
  "browser-code-imports-server-types-only: components/jobs/bad.tsx -> server/data/jobs.ts",
  "data-is-below-the-domain: server/data/bad.ts -> server/jobs/plan.ts",
  "database-drivers-only-in-data: server/jobs/uses-pg.ts -> node_modules/pg",
  "database-handle-only-in-data: server/jobs/uses-db.ts -> server/data/db.ts",
  "form-rules-is-a-leaf: server/form-rules/bad.ts -> server/security/mask.ts",
  "http-only-at-the-edge: server/jobs/http.ts -> server/api/errors.ts",
  "logging-is-a-leaf: server/logging/bad.ts -> server/data/jobs.ts",
  "metrics-is-a-leaf: server/metrics/bad.ts -> server/data/jobs.ts",
  "metrics-only-at-the-edges: server/jobs/metered.ts -> server/metrics/registry.ts",
  "no-circular: server/forms/cycle-a.ts -> server/forms/cycle-b.ts",
  "not-to-unresolvable: server/forms/typo.ts -> ./does-not-exist",
  "protocol-is-a-leaf: server/protocol/bad.ts -> server/jobs/plan.ts",
  "recap-is-a-leaf: server/recap/bad.ts -> server/security/mask.ts",
  "rte-imports-only-its-contract: server/rte/bad.ts -> server/jobs/plan.ts",
  "security-imports-no-data: server/security/bad.ts -> server/data/jobs.ts",
  "server-never-imports-ui: server/hub/ui.ts -> components/ui/button.tsx",
];

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "playform-layers-"));
  for (const [file, source] of Object.entries(TREE)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), source);
  }
  fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, moduleResolution: "bundler" } }));
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
});

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function cruise(): Violation[] {
  let stdout: string;
  try {
    stdout = execFileSync(
      process.execPath,
      [DEPCRUISE, "server", "components", "--config", path.join(ROOT, ".dependency-cruiser.cjs"), "--output-type", "json"],
      { cwd: dir, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
    );
  } catch (error) {
    // Violations make the checker exit non-zero; its JSON report is still on stdout.
    stdout = String((error as { stdout?: unknown }).stdout ?? "");
    if (!stdout) throw error;
  }
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

describe("import layer rules", () => {
  it("report every deliberately wrong import by its own rule, and nothing that is allowed", { timeout: 60_000 }, () => {
    const found = cruise()
      .map((v) => `${v.rule.name}: ${v.from} -> ${v.to.replace(/^.*(node_modules\/[^/]+).*$/, "$1")}`)
      .sort();
    expect(found).toEqual(EXPECTED);
  });

  it("cover every rule of the configuration", async () => {
    const { default: config } = (await import(path.join(ROOT, ".dependency-cruiser.cjs"))) as {
      default: { forbidden: { name: string }[] };
    };
    const tested = new Set(EXPECTED.map((line) => line.split(":")[0]));
    expect(config.forbidden.map((rule) => rule.name).sort()).toEqual([...tested].sort());
  });
});
